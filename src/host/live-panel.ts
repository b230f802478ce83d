/**
 * The live run panel on the host side: a StatePanel (state-panel.ts) of the current run's
 * LiveState, with the run's buttons.
 */
import * as vscode from 'vscode';
import { LiveViewStateSchema, type LiveState } from '../format/messages/live';
import { LiveRequestSchema, type LiveRequest } from '../format/messages/from-views';
import { StatePanel, type StatePanelKind } from './state-panel';

export const LIVE_VIEW_TYPE = 'llmBench.live';

const LIVE_PANEL: StatePanelKind<LiveState> = {
  viewType: LIVE_VIEW_TYPE,
  get page() {
    return { view: 'live' as const, title: vscode.l10n.t('LLM Bench: Live'), loading: vscode.l10n.t('Connecting to the run...') };
  },
  viewState: LiveViewStateSchema,
  idOf: (state) => state.run.id,
};

export interface LivePanelActions {
  cancel(runId: string): void;
  openResult(runId: string): void;
  runAgain(): void;
  showLog(): void;
  /** A panel restored after a reload shows a run whose host is gone: its file needs finishing. */
  restored(state: LiveState): LiveState;
}

export class LivePanel extends StatePanel<LiveState, LiveRequest> {
  constructor(extensionUri: vscode.Uri, log: vscode.LogOutputChannel, actions: LivePanelActions) {
    super(extensionUri, log, LIVE_PANEL, {
      requests: LiveRequestSchema,
      restored: (state) => actions.restored(state),
      onRequest: (request) => {
        switch (request.type) {
          case 'cancel':
            return actions.cancel(request.runId);
          case 'open-result':
            return actions.openResult(request.runId);
          case 'run-again':
            return actions.runAgain();
          case 'show-log':
            return actions.showLog();
        }
      },
    });
  }
}
