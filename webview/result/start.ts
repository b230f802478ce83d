/**
 * What the result and compare pages share: the host connection, the chart board (kept across
 * redraws, following theme changes) whose charts answer the host's PNG requests, and the start that
 * says `ready` to the host (which may have posted the current view already).
 */
import { HostToResultMessageSchema, type HostToResultMessage } from '../../src/format/messages/result';
import { ComparePanelStateSchema, type ComparePanelState, type ResultRequest } from '../../src/format/messages/from-views';
import { byId } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { connectToHost } from '../shared/vscode-api';
import { ChartBoard } from './render';

export interface Page {
  app: HTMLElement;
  board: ChartBoard;
  /** Another board on the page (compare's own charts): it follows the theme and answers PNG requests too. */
  addBoard(): ChartBoard;
  ask(request: ResultRequest): void;
}

export type DrawMessage = Exclude<HostToResultMessage, { type: 'keep-state' }>;

export function startPage(draw: (message: DrawMessage, page: Page) => void): void {
  const host = connectToHost<HostToResultMessage, ResultRequest, ComparePanelState>({ events: HostToResultMessageSchema, state: ComparePanelStateSchema });
  const newBoard = () => new ChartBoard((chartId) => void host.ask({ type: 'save-png', chartId }));
  const boards = [newBoard()];
  const page: Page = {
    app: byId('app'),
    board: boards[0] as ChartBoard,
    addBoard: () => {
      const board = newBoard();
      boards.push(board);
      return board;
    },
    ask: (request) => void host.ask(request),
  };
  onThemeChange((theme) => boards.forEach((board) => board.setTheme(theme)));
  host.charts((chartId) => boards.map((board) => board.pngOf(chartId)).find((url) => url !== undefined));
  host.start((message) => {
    page.app.setAttribute('aria-busy', 'false');
    // A file that cannot be shown leaves no chart of the one before.
    if (message.type === 'error') boards.forEach((board) => board.show([]));
    draw(message, page);
  });
}
