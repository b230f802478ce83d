/**
 * The custom editor of `*.llmbench.json`: a run's summary, step table and charts, or, for a file
 * that cannot be read as a result, the reason and an "Open as Text" button.
 */
import '../shared/zod-csp';
import { DEFAULT_TABLE_COLUMNS } from '../../src/format/messages/from-views';
import { el, replaceChildren } from '../shared/dom';
import { button } from '../shared/toolkit';
import { type ChartBoard, endpointSectionElement, errorSection, failureSection, figuresCard, hasRepeatPoints, repeatToggle, notesSection, repeatTableElement, serverSectionElement, shardsSectionElement, stepTableElement, summarySection, toolbar, traceSectionElement, warningsSection } from './render';
import { startPage } from './start';
import { t } from '../shared/l10n';

let serverBoard: ChartBoard | undefined;
/** Whether the charts show each repeat's own points: kept while the page lives, as the file redraws. */
let eachRepeat = false;
let traceBoard: ChartBoard | undefined;

startPage((message, { app, board, ask, addBoard }) => {
  serverBoard ??= addBoard();
  traceBoard ??= addBoard();
  if (message.type === 'error') {
    replaceChildren(app, [errorSection(message.fileName, message.message, () => ask({ type: 'open-as-text' }))]);
  } else if (message.type === 'show') {
    const { view } = message;
    const hasCharts = view.charts.some((chart) => chart.series.some((series) => series.points.length > 0));
    let columns = message.columns ?? DEFAULT_TABLE_COLUMNS;
    const table = el('div', {});
    const drawTable = () =>
      replaceChildren(table, [
        stepTableElement(view.rows, columns, (chosen) => {
          columns = chosen;
          ask({ type: 'table-columns', columns });
          drawTable();
        }),
      ]);
    drawTable();
    // Sections are rebuilt from each view; the chart board is kept so charts update in place.
    replaceChildren(app, [
      summarySection(view.summary),
      view.failure ? failureSection(view.failure) : null,
      warningsSection(view.warnings),
      notesSection(view.notes),
      toolbar([
        button(t('Compare With...'), () => ask({ type: 'compare-with' }), 'secondary', 'compare-with'),
        button(t('Copy Table as Markdown'), () => ask({ type: 'markdown', action: 'copy' }), 'secondary', 'copy-markdown'),
        button(t('Save Table as Markdown...'), () => ask({ type: 'markdown', action: 'save' }), 'secondary', 'save-markdown'),
      ]),
      ...(view.repeats
        ? [
            el('h2', { text: t('Across repeats') }),
            el('p', { className: 'muted', text: t("Each figure is the mean over the run's repeats of its step, ± the half-width of its 95% confidence interval (Student's t).") }),
            repeatTableElement(view.repeats),
          ]
        : []),
      el('h2', { text: t('Steps') }),
      table,
      view.shards ? shardsSectionElement(view.shards) : null,
      view.endpoints ? endpointSectionElement(view.endpoints) : null,
      view.trace ? traceSectionElement(view.trace, traceBoard) : null,
      hasCharts || view.figures ? el('h2', { text: view.figures ? t('Figures') : t('Charts') }) : null,
      view.figures ? figuresCard(view.figures) : null,
      hasCharts && hasRepeatPoints(view.charts)
        ? repeatToggle(eachRepeat, (checked) => {
            eachRepeat = checked;
            board.show(view.charts, eachRepeat);
          })
        : null,
      board.element,
      view.server ? serverSectionElement(view.server, serverBoard) : null,
    ]);
    // Header and table paint first; a big run's charts follow on the next frame.
    requestAnimationFrame(() => {
      board.show(view.charts, eachRepeat);
      traceBoard?.show(view.trace?.charts ?? []);
      serverBoard?.show(view.server?.charts ?? []);
    });
  }
});
