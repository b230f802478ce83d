/**
 * Two runs on the same charts (A and B overlaid) and a table of B's change against A per step.
 */
import '../shared/zod-csp';
import type { RunSummary } from '../../src/format/messages/result';
import { el, errorBanner, replaceChildren } from '../shared/dom';
import { deltaTableElement, notesSection, summarySection } from '../result/render';
import { startPage } from '../result/start';

const runColumn = (tag: string, summary: RunSummary) =>
  el('div', { className: `compare-run compare-run-${tag.toLowerCase()}` }, [summarySection(summary, `${tag}: ${summary.fileName}`)]);

startPage((message, { app, board }) => {
  if (message.type === 'error') {
    board.show([]);
    replaceChildren(app, [el('h1', { text: message.fileName }), errorBanner('These runs cannot be compared.', message.message)]);
  } else if (message.type === 'show-compare') {
    const { view } = message;
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
});
