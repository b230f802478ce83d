/**
 * What the result and compare pages share: the checked host connection, the chart board (kept
 * across redraws, following theme changes), answers to the host's PNG requests, the state the host
 * asks to keep for a restore, and the `ready` that asks the host for the current view (which it may
 * have posted already).
 */
import {
  ComparePanelStateSchema,
  HostToResultMessageSchema,
  ResultToHostMessageSchema,
  type ComparePanelState,
  type HostToResultMessage,
  type ResultToHostMessage,
} from '../../src/format/messages/result';
import { byId, errorBanner } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { connectToHost } from '../shared/vscode-api';
import { ChartBoard } from './render';

export interface Page {
  app: HTMLElement;
  board: ChartBoard;
  /** Another board on the page (compare's own charts): it follows the theme and answers PNG requests too. */
  addBoard(): ChartBoard;
  post(message: ResultToHostMessage): void;
}

export type DrawMessage = Exclude<HostToResultMessage, { type: 'request-png' | 'keep-state' }>;

export function startPage(draw: (message: DrawMessage, page: Page) => void): void {
  const host = connectToHost<HostToResultMessage, ResultToHostMessage, ComparePanelState>({
    incoming: HostToResultMessageSchema,
    outgoing: ResultToHostMessageSchema,
    state: ComparePanelStateSchema,
  });
  const newBoard = () => new ChartBoard((chartId, dataUrl) => host.post({ type: 'png', chartId, dataUrl }));
  const boards = [newBoard()];
  const page: Page = {
    app: byId('app'),
    board: boards[0] as ChartBoard,
    addBoard: () => {
      const board = newBoard();
      boards.push(board);
      return board;
    },
    post: (message) => host.post(message),
  };
  onThemeChange((theme) => boards.forEach((board) => board.setTheme(theme)));
  // The host posts a view as soon as it has one and again when this page says `ready`, so the
  // same view usually arrives twice: it is drawn once.
  let lastDrawn: string | undefined;
  host.listen(
    (message) => {
      if (message.type === 'keep-state') return host.setState(message.state);
      page.app.setAttribute('aria-busy', 'false');
      if (message.type !== 'request-png') {
        const key = JSON.stringify(message);
        if (key === lastDrawn) return;
        lastDrawn = key;
        return draw(message, page);
      }
      const dataUrl = boards.map((board) => board.pngOf(message.chartId)).find((url) => url !== undefined);
      if (dataUrl) host.post({ type: 'png', chartId: message.chartId, dataUrl, requestId: message.requestId });
    },
    (reason) => page.app.prepend(errorBanner('A message from LLM Bench could not be read.', reason)),
  );
  host.post({ type: 'ready' });
}
