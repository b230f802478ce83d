/**
 * The compare view: both runs' headers, what makes them not like for like, B's change against A
 * per step (better, worse or within noise), both runs on the same charts, then each run's own
 * charts side by side on shared axes. One editor column; Swap and Open Side by Side ask the host.
 */
import '../shared/zod-csp';
import type { RunSummary } from '../../src/format/messages/result';
import { el, errorBanner, replaceChildren } from '../shared/dom';
import { button } from '../shared/toolkit';
import { VERDICT_MARK } from '../../src/views/result-tables';
import { type ChartBoard, deltaTableElement, hasRepeatPoints, repeatToggle, notesSection, scrollingTable, shardsSectionElement, summarySection, toolbar } from '../result/render';
import { startPage } from '../result/start';
import { t } from '../shared/l10n';
import { sayWarning } from '../../src/views/step-warnings';

const runColumn = (tag: string, summary: RunSummary) =>
  el('div', { className: `compare-run compare-run-${tag.toLowerCase()}` }, [summarySection(summary, `${tag}: ${summary.fileName}`, true)]);

let ownBoard: ChartBoard | undefined;
/** Whether the charts show each repeat's own points. */
let eachRepeat = false;

startPage((message, { app, board, ask, addBoard }) => {
  ownBoard ??= addBoard();
  if (message.type === 'error') {
    replaceChildren(app, [el('h1', { text: message.fileName }), errorBanner(t('These runs cannot be compared.'), message.message)]);
  } else if (message.type === 'show-compare') {
    const { view } = message;
    const legend = `${t('{0} better, {1} worse, {2} within noise.', VERDICT_MARK.better.trim(), VERDICT_MARK.worse.trim(), VERDICT_MARK.same.trim())} ${view.noiseRule}`;
    replaceChildren(app, [
      el('div', { className: 'compare-runs' }, [runColumn('A', view.a), runColumn('B', view.b)]),
      ...view.warnings.map((warning) => el('p', { className: 'notice', text: t('Not like for like: {0}', sayWarning(warning, t)) })),
      toolbar([
        button(t('Swap A \u2194 B'), () => ask({ type: 'swap' }), 'secondary', 'swap-runs'),
        button(t('Open Side by Side'), () => ask({ type: 'open-side-by-side' }), 'secondary', 'open-side-by-side'),
      ]),
      el('h2', { text: t('B against A') }),
      view.deltas.length ? el('p', { className: 'muted', text: legend }) : null,
      view.deltas.length ? deltaTableElement(view.deltas) : null,
      notesSection(view.notes),
      view.server
        ? el('section', { attrs: { id: 'server-compare' } }, [
            el('h2', { text: t('Server per step (A \u2192 B)'), title: t("Each run's server metrics (scraped from its /metrics) over each paired step") }),
            ...view.server.notes.map((note) => el('p', { className: 'notice', text: note })),
            scrollingTable(view.server.table, 'server-table'),
          ])
        : null,
      view.shards ? shardsSectionElement(view.shards, 'shards-compare') : null,
      view.endpoints
        ? el('section', { attrs: { id: 'endpoint-compare' } }, [
            el('h2', { text: t('Per endpoint'), title: t("Each run's steps over all its endpoints (\"all\"), then each endpoint's own requests") }),
            ...view.endpoints.notes.map((note) => el('p', { className: 'notice', text: note })),
            scrollingTable(view.endpoints.table, 'endpoint-table'),
          ])
        : null,
      el('h2', { text: t('Both runs') }),
      hasRepeatPoints([...view.charts, ...view.ownCharts])
        ? repeatToggle(eachRepeat, (checked) => {
            eachRepeat = checked;
            board.show(view.charts, eachRepeat);
            ownBoard?.show(view.ownCharts, eachRepeat);
          })
        : null,
      board.element,
      el('h2', { text: t('Each run on its own (A left, B right)') }),
      ownBoard.element,
    ]);
    ownBoard.element.classList.add('chart-pairs');
    // Headers and the table paint first; the charts follow on the next frame.
    requestAnimationFrame(() => {
      board.show(view.charts, eachRepeat);
      ownBoard?.show(view.ownCharts, eachRepeat);
    });
  }
});
