/**
 * Two runs on the same charts (A and B overlaid) and a table of B's change against A per step.
 */
import {
  HostToResultMessageSchema,
  ResultToHostMessageSchema,
  type CompareView,
  type HostToResultMessage,
  type ResultToHostMessage,
  type RunSummary,
} from '../../src/format/messages/result';
import { byId, el, errorBanner, replaceChildren } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { ChartBoard, deltaTableElement, notesSection, summarySection } from '../result/render';
import { connectToHost } from '../shared/vscode-api';

const host = connectToHost<HostToResultMessage, ResultToHostMessage>({
  incoming: HostToResultMessageSchema,
  outgoing: ResultToHostMessageSchema,
});
const app = byId('app');
const board = new ChartBoard((chartId, dataUrl) => host.post({ type: 'png', chartId, dataUrl }));
onThemeChange((theme) => board.setTheme(theme));

const runColumn = (tag: string, summary: RunSummary) =>
  el('div', { className: `compare-run compare-run-${tag.toLowerCase()}` }, [summarySection(summary, `${tag}: ${summary.fileName}`)]);

function showCompare(view: CompareView): void {
  replaceChildren(app, [
    el('div', { className: 'compare-runs' }, [runColumn('A', view.a), runColumn('B', view.b)]),
    notesSection(view.notes),
    el('h2', { text: 'B against A' }),
    view.deltas.length ? deltaTableElement(view.deltas) : null,
    el('h2', { text: 'Charts' }),
    board.element,
  ]);
  board.show(view.charts);
}

function handle(message: HostToResultMessage): void {
  app.setAttribute('aria-busy', 'false');
  switch (message.type) {
    case 'show-compare':
      showCompare(message.view);
      break;
    case 'error':
      board.show([]);
      replaceChildren(app, [el('h1', { text: message.fileName }), errorBanner('These runs cannot be compared.', message.message)]);
      break;
    case 'request-png': {
      const dataUrl = board.pngOf(message.chartId);
      if (dataUrl) host.post({ type: 'png', chartId: message.chartId, dataUrl, requestId: message.requestId });
      break;
    }
    case 'show':
      break;
  }
}

host.listen(handle, (reason) => app.prepend(errorBanner('A message from LLM Bench could not be read.', reason)));
host.post({ type: 'ready' });
