/**
 * The live run panel on the host side: a StatePanel (state-panel.ts) of the current run's
 * LiveState, with the run's buttons.
 */
import type * as vscode from 'vscode';
import { LiveToHostMessageSchema, LiveViewStateSchema, type LiveState, type LiveToHostMessage } from '../format/messages/live';
import { StatePanel } from './state-panel';

export const LIVE_VIEW_TYPE = 'llmBench.live';

export interface LivePanelActions {
  cancel(runId: string): void;
  openResult(runId: string): void;
  runAgain(): void;
  showLog(): void;
  /** A panel restored after a reload shows a run whose host is gone: its file needs finishing. */
  restored(state: LiveState): LiveState;
}

type LiveAction = Exclude<LiveToHostMessage, { type: 'ready' | 'view-error' }>;

export class LivePanel extends StatePanel<LiveState, LiveAction> {
  constructor(extensionUri: vscode.Uri, log: vscode.LogOutputChannel, actions: LivePanelActions) {
    super(extensionUri, log, {
      viewType: LIVE_VIEW_TYPE,
      title: 'LLM Bench: Live',
      view: 'live',
      loading: 'Connecting to the run...',
      viewStateSchema: LiveViewStateSchema,
      messageSchema: LiveToHostMessageSchema,
      idOf: (state) => state.run.id,
      restored: (state) => actions.restored(state),
      onMessage: (message) => {
        switch (message.type) {
          case 'cancel':
            return actions.cancel(message.runId);
          case 'open-result':
            return actions.openResult(message.runId);
          case 'run-again':
            return actions.runAgain();
          case 'show-log':
            return actions.showLog();
        }
      },
    });
  }
}
