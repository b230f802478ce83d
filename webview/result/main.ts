/**
 * The custom editor of `*.llmbench.json`: a run's summary, step table and charts, or, for a file
 * that cannot be read as a result, the reason and an "Open as Text" button.
 */
import {
  HostToResultMessageSchema,
  ResultToHostMessageSchema,
  type HostToResultMessage,
  type ResultToHostMessage,
  type ResultView,
} from '../../src/format/messages/result';
import { byId, el, errorBanner, replaceChildren } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { button } from '../shared/toolkit';
import { connectToHost } from '../shared/vscode-api';
import { ChartBoard, errorSection, notesSection, stepTableElement, summarySection, toolbar } from './render';

const host = connectToHost<HostToResultMessage, ResultToHostMessage>({
  incoming: HostToResultMessageSchema,
  outgoing: ResultToHostMessageSchema,
});
const app = byId('app');
const board = new ChartBoard((chartId, dataUrl) => host.post({ type: 'png', chartId, dataUrl }));
onThemeChange((theme) => board.setTheme(theme));

const resultTools = () =>
  toolbar([
    button('Compare With...', () => host.post({ type: 'compare-with' }), 'secondary', 'compare-with'),
    button('Copy Table as Markdown', () => host.post({ type: 'markdown', action: 'copy' }), 'secondary', 'copy-markdown'),
    button('Save Table as Markdown...', () => host.post({ type: 'markdown', action: 'save' }), 'secondary', 'save-markdown'),
  ]);

/** Sections are rebuilt from each view; the chart board is kept so charts update in place. */
function showResult(view: ResultView): void {
  replaceChildren(app, [
    summarySection(view.summary),
    notesSection(view.notes),
    resultTools(),
    el('h2', { text: 'Steps' }),
    stepTableElement(view.rows),
    el('h2', { text: 'Charts' }),
    board.element,
  ]);
  board.show(view.charts);
}

function handle(message: HostToResultMessage): void {
  app.setAttribute('aria-busy', 'false');
  switch (message.type) {
    case 'show':
      showResult(message.view);
      break;
    case 'error':
      board.show([]);
      replaceChildren(app, [errorSection(message.fileName, message.message, () => host.post({ type: 'open-as-text' }))]);
      break;
    case 'request-png': {
      const dataUrl = board.pngOf(message.chartId);
      if (dataUrl) host.post({ type: 'png', chartId: message.chartId, dataUrl, requestId: message.requestId });
      break;
    }
    case 'show-compare':
      break;
  }
}

host.listen(handle, (reason) => app.prepend(errorBanner('A message from LLM Bench could not be read.', reason)));
host.post({ type: 'ready' });
