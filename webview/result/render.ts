/**
 * DOM for the result and compare views. Every string from a result file (model, labels, step
 * names, error messages, config) goes through dom.ts's text-only helpers.
 */
import type { DeltaRow, RepeatRow, ResultView, RunFailure, RunSummary, ServerSection, StepRow, TableSection, TraceSection, ViewChart } from '../../src/format/messages/result';
import { DEFAULT_TABLE_COLUMNS, type TableColumns } from '../../src/format/messages/from-views';
import { METRICS } from '../../src/format/metrics';
import { SpecChart } from '../shared/charts';
import { el, errorBanner, replaceChildren, scrollBox, textTable, type Child } from '../shared/dom';
import { readTheme, type Theme } from '../shared/theme';
import { resultChartSpec, withRepeatPoints, type ChartSpec } from '../../src/views/chart-spec';
import { button, statusBadge } from '../shared/toolkit';
import { repeatTable, stackedDeltaTable, stepTable, summaryItems } from '../../src/views/result-tables';
import { t } from '../shared/l10n';
import { sayWarning } from '../../src/views/step-warnings';


/** What a compare header keeps of a run's summary: what tells two runs apart, not when they ran. */
const COMPACT_ITEMS = new Set(['Model', 'Endpoint', 'Status', 'Workers', 'Imported from']);

export function summarySection(summary: RunSummary, heading: string = summary.fileName, compact = false): HTMLElement {
  const labels = summary.labels.length
    ? el('ul', { className: 'label-list' }, summary.labels.map(([k, v]) => el('li', { className: 'label-chip', text: `${k}: ${v}` })))
    : el('span', { className: 'muted', text: t('none') });
  const items = summaryItems(summary, undefined, t).filter((item) => !compact || COMPACT_ITEMS.has(item.label));
  return el('section', { className: `run-summary${compact ? ' compact' : ''}` }, [
    el(compact ? 'h2' : 'h1', {}, [heading, ' ', statusBadge(summary.status)]),
    el('dl', { className: 'kv' }, [
      ...items.flatMap((item) => [
        el('dt', { text: t(item.label) }),
        // The server's JSON error behind a status, pretty-printed under it rather than inline.
        item.label === 'Status' && summary.statusDetails
          ? el('dd', {}, [item.value, el('details', { className: 'server-error' }, [el('summary', { text: t("The server's answer") }), el('pre', { text: summary.statusDetails })])])
          : el('dd', { text: t(item.value) }),
      ]),
      el('dt', { text: t('Labels') }),
      el('dd', {}, [labels]),
    ]),
    el('details', { className: 'run-config' }, [
      el('summary', { text: t('Run configuration') }),
      el('pre', { text: summary.config }),
    ]),
  ]);
}

/** A run of one load: its figures as a card, in place of charts of one point each. */
export function figuresCard(figures: NonNullable<ResultView['figures']>): HTMLElement {
  return el('section', { className: 'figure-card', attrs: { id: 'figure-card' } }, [
    el('p', { className: 'muted', text: t('One load, so no load charts (each would hold one point): {0}.', figures.load) }),
    el(
      'div',
      { className: 'figures' },
      figures.items.map((item) =>
        el('div', { className: 'figure' }, [el('div', { className: 'figure-label', text: item.label }), el('div', { className: 'figure-value' }, [item.value, item.unit ? el('span', { className: 'unit', text: ` ${item.unit}` }) : null])]),
      ),
    ),
  ]);
}

/** A run that measured nothing: what failed, the server's words, what to try; in place of charts of zeros. */
export function failureSection(failure: RunFailure): HTMLElement {
  return el('section', { className: 'run-failure', attrs: { id: 'run-failure', role: 'alert' } }, [
    el('h2', { text: t('Nothing was measured') }),
    el('p', { text: failure.headline }),
    el('p', { text: t('Failed requests by kind: {0}.', failure.kinds.map(([kind, n]) => `${kind} ${n}`).join(', ')) }),
    ...failure.errors.map((error) =>
      el('div', { className: 'failure-error' }, [
        el('p', {}, [el('strong', { text: `${error.count} \u00d7 ` }), error.text]),
        error.details ? el('pre', { className: 'server-error', text: error.details }) : null,
      ]),
    ),
    el('h3', { text: t('What to try') }),
    el('ul', {}, failure.advice.map((advice) => el('li', { text: advice }))),
  ]);
}

export function notesSection(notes: string[]): HTMLElement | null {
  if (notes.length === 0) return null;
  return el('section', { className: 'notes' }, notes.map((note) => el('p', { className: 'notice', text: note })));
}

/** What the run warned of (its server metrics failing, the token cross-check), each said once. */
export function warningsSection(warnings: string[]): HTMLElement | null {
  if (warnings.length === 0) return null;
  return el('section', { className: 'notes run-warnings', attrs: { 'aria-label': t('Warnings of the run') } }, warnings.map((warning) => el('p', { className: 'notice notice-warning', text: sayWarning(warning, t) })));
}

/** A formatted table in a box that scrolls sideways when it must (and says so), its first column kept in view. */
export function scrollingTable(table: { columns: { label: string; unit?: string; numeric?: boolean; description?: string }[]; rows: string[][] }, className: string): HTMLElement {
  return scrollBox(textTable(table.columns, table.rows, `data-table sticky-first ${className}`));
}

/** What a table leaves out for these runs, under it: "Not shown: failures (no request failed in either run)." */
function omittedNote(omitted: string[]): HTMLElement | null {
  return omitted.length ? el('p', { className: 'muted omitted-columns', text: t('Not shown: {0}.', omitted.join('; ')) }) : null;
}

/**
 * The server's figures per step and its charts over the run's time (drawn by `board`). A run over
 * several endpoints offers its replicas summed (the section's own table and charts) or one by one.
 */
export function serverSectionElement(server: ServerSection, board: ChartBoard): HTMLElement {
  const replicas = server.replicas ?? [];
  const tables = el('div', {});
  const show = (oneByOne: boolean): void => {
    replaceChildren(
      tables,
      oneByOne
        ? replicas.flatMap((replica) => [el('h3', { text: replica.label }), replica.table.rows.length ? scrollingTable(replica.table, 'server-table') : null])
        : [server.table.rows.length ? scrollingTable(server.table, 'server-table') : null],
    );
    board.show(oneByOne ? replicas.flatMap((replica) => replica.charts) : server.charts);
  };
  const toggle =
    replicas.length > 0
      ? el('div', { className: 'toolbar server-replicas', attrs: { role: 'group', 'aria-label': t('Endpoints') } }, [
          button(t('Summed'), () => show(false), 'secondary', 'server-summed'),
          button(t('One by one'), () => show(true), 'secondary', 'server-one-by-one'),
        ])
      : null;
  replaceChildren(tables, [server.table.rows.length ? scrollingTable(server.table, 'server-table') : null]);
  return el('section', { className: 'server-section', attrs: { id: 'server-section' } }, [
    el('h2', { text: t('Server'), title: t("The server's own metrics, scraped from its /metrics during the run") }),
    el('p', { className: 'muted', text: server.source }),
    ...server.notes.map((note) => el('p', { className: 'notice', text: note })),
    toggle,
    tables,
    board.element,
  ]);
}

/** A run's figures per endpoint beside each step's total, and what stands out. */
export function endpointSectionElement(section: TableSection): HTMLElement {
  return el('section', { className: 'endpoint-section', attrs: { id: 'endpoint-section' } }, [
    el('h2', { text: t('Per endpoint'), title: t('Each step over all endpoints ("all"), then each endpoint\'s own requests') }),
    ...section.notes.map((note) => el('p', { className: 'notice', text: note })),
    scrollingTable(section.table, 'endpoint-table'),
  ]);
}

/** A shard run's shards: each one's host, clock offset, state and send lateness (the step running now's while the run goes). */
export function shardsSectionElement(section: TableSection, id = 'shards-section'): HTMLElement {
  return el('section', { className: 'shards-section', attrs: { id } }, [
    el('h2', { text: t('Shards'), title: t('The processes this run was split over (llmbench run --shards N), on one machine or many') }),
    ...section.notes.map((note) => el('p', { className: 'notice', text: note })),
    scrollingTable(section.table, 'shards-table'),
  ]);
}

/** A run's trace steps: what each replayed, how late it sent, and its load over time (drawn by `board`). */
export function traceSectionElement(section: TraceSection, board: ChartBoard): HTMLElement {
  return el('section', { className: 'trace-section', attrs: { id: 'trace-section' } }, [
    el('h2', { text: t('Trace replay'), title: t('Send lateness: when a request went out minus when the trace (its recorded time, scaled) said to send it') }),
    ...section.notes.map((note) => el('p', { className: 'notice notice-warning', text: note })),
    scrollingTable(section.table, 'trace-table'),
    board.element,
  ]);
}

const COLUMN_CHOICES: { key: keyof TableColumns; label: string; hint: string }[] = [
  { key: 'means', label: t('Means'), hint: t('Show each distribution\'s mean') },
  { key: 'p90', label: 'p90', hint: t('Show each distribution\'s 90th percentile') },
  { key: 'p95', label: 'p95', hint: t('Show each distribution\'s 95th percentile (vLLM\'s and GuideLLM\'s files give it too)') },
  { key: 'itl', label: 'ITL', hint: t('Show inter-token latency (per chunk, vLLM\'s ITL)') },
];

/** Check boxes for the step table's optional columns. */
function columnChooser(columns: TableColumns, onChange: (columns: TableColumns) => void): HTMLElement {
  return el('div', { className: 'column-chooser', attrs: { role: 'group', 'aria-label': t('Table columns') } }, [
    el('span', { className: 'muted', text: t('Also show:') }),
    ...COLUMN_CHOICES.map(({ key, label, hint }) => {
      const box = el('input', { attrs: { type: 'checkbox', 'data-column': key }, title: hint });
      box.checked = columns[key];
      box.addEventListener('change', () => onChange({ ...columns, [key]: box.checked }));
      return el('label', { title: hint }, [box, label]);
    }),
  ]);
}

/**
 * The step table with grouped headers (a metric on the first row, its statistics below), in a box
 * that scrolls sideways with the step names kept in view, and the chooser of optional columns.
 */
export function stepTableElement(rows: StepRow[], columns: TableColumns = DEFAULT_TABLE_COLUMNS, onColumnsChange?: (columns: TableColumns) => void): HTMLElement {
  const table = stepTable(rows, columns, t);
  const top = table.groups.map((g) =>
    el('th', { title: t(g.definition), attrs: { scope: 'colgroup', colspan: String(g.columns.length) } }, [
      t(g.label),
      g.unit ? el('span', { className: 'unit', text: t(g.unit) }) : null,
    ]),
  );
  const sub = table.groups.flatMap((g, gi) =>
    g.columns.map((c) => el('th', { className: gi === 0 ? '' : 'num', attrs: { scope: 'col' }, text: t(c) })),
  );
  const body = table.rows.map((cells) =>
    el('tr', {}, cells.map((cell, i) => (i === 0 ? el('th', { attrs: { scope: 'row' }, text: cell }) : el('td', { className: 'num', text: cell })))),
  );
  return el('div', { className: 'step-table-block' }, [
    onColumnsChange ? columnChooser(columns, onColumnsChange) : null,
    scrollBox(el('table', { className: 'data-table step-table sticky-first' }, [el('thead', {}, [el('tr', {}, top), el('tr', {}, sub)]), el('tbody', {}, body)])),
  ]);
}

/** The figures of each step name across the run's repeats, mean ± 95% interval. */
export function repeatTableElement(repeats: RepeatRow[]): HTMLElement {
  const table = repeatTable(repeats, t);
  const head = el('tr', {}, [
    el('th', { attrs: { scope: 'col' }, text: t('Step') }),
    ...table.columns.map((c) => el('th', { className: 'num', title: t(c.definition), attrs: { scope: 'col' }, text: t(c.label) })),
  ]);
  // The interval goes under its mean: a row of ten figures fits 1000 px.
  const body = table.rows.map((row) =>
    el('tr', {}, [el('th', { attrs: { scope: 'row' }, text: row.step }), ...row.cells.map((cell) => el('td', { className: 'num' }, [cell.mean, el('span', { className: 'unit', text: cell.spread })]))]),
  );
  return el('div', { attrs: { id: 'repeat-table' } }, [
    scrollBox(el('table', { className: 'data-table repeat-table sticky-first' }, [el('thead', {}, [head]), el('tbody', {}, body)])),
    omittedNote(table.omitted),
  ]);
}

/**
 * B against A: one column a metric, p50 over p99 in its cells, each B's figure over its change
 * and the verdict's mark (coloured, and the mark says it without colour); columns that say nothing
 * for these runs are left out and named under the table.
 */
export function deltaTableElement(deltas: DeltaRow[]): HTMLElement {
  const table = stackedDeltaTable(deltas, t);
  const head = el('tr', {}, [
    el('th', { attrs: { scope: 'col' }, text: t('Step') }),
    ...table.columns.map((c) => el('th', { className: 'num', title: t(c.definition), attrs: { scope: 'col' } }, [t(c.label), c.unit ? el('span', { className: 'unit', text: c.unit }) : null])),
  ]);
  const body = table.rows.map((row) =>
    el('tr', {}, [
      el('th', { attrs: { scope: 'row' }, text: row.step }),
      ...row.cells.map((stats) =>
        el('td', { className: 'num' }, stats.map((stat) =>
          // B's figure over its change and mark: two short lines, so that seven metrics fit a 1000 px window.
          el('span', { className: `stat delta-${stat.verdict}`, title: `${stat.statistic ? `${stat.statistic}: ` : ''}${stat.detail}` }, [
            el('span', { className: 'value', text: stat.value }),
            el('span', { className: 'change', text: `${stat.change}${stat.mark ? `\u00a0${stat.mark}` : ''}` }),
            // Why the verdict, under the change: a reader sees what made it "within noise" without hovering.
            stat.reason ? el('span', { className: 'verdict-reason', text: stat.reason }) : null,
          ]),
        )),
      ),
    ]),
  );
  return el('div', { className: 'delta-block' }, [
    scrollBox(el('table', { className: 'data-table delta-table sticky-first' }, [el('thead', {}, [head]), el('tbody', {}, body)])),
    omittedNote(table.omitted),
  ]);
}

/** Whether any chart holds each repeat's own points (a run that repeated its profile). */
export const hasRepeatPoints = (charts: ViewChart[]): boolean => charts.some((chart) => chart.series.some((series) => series.eachRepeat));

/** The check box that shows each repeat's faint points behind the means; off at first (the means and their intervals are the figures). */
export function repeatToggle(checked: boolean, onChange: (checked: boolean) => void): HTMLElement {
  const box = el('input', { attrs: { type: 'checkbox', id: 'show-repeats' }, title: t("Draw each repeat's own point, faint, behind the step's mean") });
  box.checked = checked;
  box.addEventListener('change', () => onChange(box.checked));
  return el('div', { className: 'column-chooser repeat-toggle' }, [
    el('label', {}, [box, t('Show each repeat')]),
    el('span', { className: 'muted', text: t('Points are the means across repeats; the shaded band is their 95% interval.') }),
  ]);
}

/** A chart card of a board: its title, what the title shows on hover, and what to draw. */
export interface BoardChart {
  id: string;
  title: string;
  hint?: string;
  spec: ChartSpec;
}

/** A result view's chart as a board's card: the metric's definition on hover. */
function resultBoardChart(chart: ViewChart): BoardChart {
  return { id: chart.id, title: chart.title, ...(chart.metric ? { hint: METRICS[chart.metric].definition } : {}), spec: resultChartSpec(chart) };
}

/**
 * The grid of chart cards. Charts are kept by id and updated in place when the same view
 * redraws (a running benchmark's file growing), so the page does not flicker or jump.
 */
export class ChartBoard {
  readonly element: HTMLElement;
  private readonly charts = new Map<string, { card: HTMLElement; chart: SpecChart | null }>();
  private theme: Theme = readTheme();

  /** Without `onSavePng` the cards have no Save PNG button (a live view's charts are saved from the file's editor). */
  constructor(
    private readonly onSavePng?: (chartId: string) => void,
    className = 'chart-grid',
  ) {
    this.element = el('div', { className });
  }

  /** A result or compare view's charts; each repeat's own points only when `eachRepeat` asks for them. */
  show(specs: ViewChart[], eachRepeat = false): void {
    this.showCharts(specs.map((spec) => resultBoardChart(withRepeatPoints(spec, eachRepeat))));
  }

  /** Draws the charts that have data; the same charts again update in place. */
  showCharts(charts: BoardChart[]): void {
    const wanted = charts.filter((c) => c.spec.series.some((series) => series.data.length > 0));
    const sameLayout = wanted.length === this.charts.size && wanted.every((c) => this.charts.has(c.id));
    if (!sameLayout) this.rebuild(wanted);
    else for (const chart of wanted) this.charts.get(chart.id)?.chart?.update(chart.spec);
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    for (const entry of this.charts.values()) entry.chart?.setTheme(theme);
  }

  /** The chart as a PNG on the theme background; undefined if there is no such chart. */
  pngOf(chartId: string): string | undefined {
    return this.charts.get(chartId)?.chart?.toPngDataUrl();
  }

  private rebuild(charts: BoardChart[]): void {
    for (const entry of this.charts.values()) entry.chart?.destroy();
    this.charts.clear();
    const cards = charts.map((chart) => {
      const canvas = el('canvas', { attrs: { role: 'img', 'aria-label': t(chart.title) } });
      const card = el('div', { className: 'chart-card', attrs: { 'data-chart': chart.id } }, [
        el('div', { className: 'chart-head' }, [
          el('h3', { text: t(chart.title), ...(chart.hint ? { title: t(chart.hint) } : {}) }),
          this.onSavePng ? button(t('Save PNG'), () => this.onSavePng?.(chart.id), 'secondary') : null,
        ]),
        el('div', { className: 'chart-box' }, [canvas]),
      ]);
      return { chart, canvas, card };
    });
    // Every card is in the page before the first chart measures its box: one layout for all of
    // them, not one per chart.
    this.element.replaceChildren(...cards.map((c) => c.card));
    for (const { chart, canvas, card } of cards) this.charts.set(chart.id, { card, chart: this.draw(canvas, card, chart.spec) });
  }

  /** A canvas the browser cannot draw on leaves a note in the card, not a broken page. */
  private draw(canvas: HTMLCanvasElement, card: HTMLElement, spec: ChartSpec): SpecChart | null {
    try {
      if (!canvas.getContext('2d')) throw new Error('no 2D canvas');
      return new SpecChart(canvas, spec, this.theme);
    } catch (e) {
      card.appendChild(el('p', { className: 'muted', text: t('This chart cannot be drawn here ({0}).', e instanceof Error ? e.message : String(e)) }));
      return null;
    }
  }
}

export function toolbar(children: Child[]): HTMLElement {
  return el('div', { className: 'toolbar' }, children);
}

/** The view of a file that cannot be shown: the reason, as text, and a way out. */
export function errorSection(fileName: string, message: string, onOpenAsText: () => void): HTMLElement {
  return el('section', { className: 'load-error' }, [
    el('h1', { text: fileName }),
    errorBanner(t('This file cannot be shown as an LLM Bench result.'), message),
    toolbar([button(t('Open as Text'), onOpenAsText, 'primary', 'open-as-text')]),
  ]);
}
