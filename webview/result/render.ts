/**
 * DOM for the result and compare views. Every string from a result file (model, labels, step
 * names, error messages, config) goes through dom.ts's text-only helpers.
 */
import type { DeltaRow, RepeatRow, ResultView, RunFailure, RunSummary, ServerSection, StepRow, ViewChart } from '../../src/format/messages/result';
import { DEFAULT_TABLE_COLUMNS, type TableColumns } from '../../src/format/messages/from-views';
import { METRICS } from '../../src/format/metrics';
import { SpecChart } from '../shared/charts';
import { el, errorBanner, textTable, type Child } from '../shared/dom';
import { readTheme, type Theme } from '../shared/theme';
import { resultChartSpec, withRepeatPoints, type ChartSpec } from '../../src/views/chart-spec';
import { button, statusBadge } from '../shared/toolkit';
import { deltaTable, repeatTable, stepTable, summaryItems } from '../../src/views/result-tables';


/** What a compare header keeps of a run's summary: what tells two runs apart, not when they ran. */
const COMPACT_ITEMS = new Set(['Model', 'Endpoint', 'Status', 'Imported from']);

export function summarySection(summary: RunSummary, heading: string = summary.fileName, compact = false): HTMLElement {
  const labels = summary.labels.length
    ? el('ul', { className: 'label-list' }, summary.labels.map(([k, v]) => el('li', { className: 'label-chip', text: `${k}: ${v}` })))
    : el('span', { className: 'muted', text: 'none' });
  const items = summaryItems(summary).filter((item) => !compact || COMPACT_ITEMS.has(item.label));
  return el('section', { className: `run-summary${compact ? ' compact' : ''}` }, [
    el(compact ? 'h2' : 'h1', {}, [heading, ' ', statusBadge(summary.status)]),
    el('dl', { className: 'kv' }, [
      ...items.flatMap((item) => [
        el('dt', { text: item.label }),
        // The server's JSON error behind a status, pretty-printed under it rather than inline.
        item.label === 'Status' && summary.statusDetails
          ? el('dd', {}, [item.value, el('details', { className: 'server-error' }, [el('summary', { text: "The server's answer" }), el('pre', { text: summary.statusDetails })])])
          : el('dd', { text: item.value }),
      ]),
      el('dt', { text: 'Labels' }),
      el('dd', {}, [labels]),
    ]),
    el('details', { className: 'run-config' }, [
      el('summary', { text: 'Run configuration' }),
      el('pre', { text: summary.config }),
    ]),
  ]);
}

/** A run of one load: its figures as a card, in place of charts of one point each. */
export function figuresCard(figures: NonNullable<ResultView['figures']>): HTMLElement {
  return el('section', { className: 'figure-card', attrs: { id: 'figure-card' } }, [
    el('p', { className: 'muted', text: `One load, so no load charts (each would hold one point): ${figures.load}.` }),
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
    el('h2', { text: 'Nothing was measured' }),
    el('p', { text: failure.headline }),
    el('p', { text: `Failed requests by kind: ${failure.kinds.map(([kind, n]) => `${kind} ${n}`).join(', ')}.` }),
    ...failure.errors.map((error) =>
      el('div', { className: 'failure-error' }, [
        el('p', {}, [el('strong', { text: `${error.count} \u00d7 ` }), error.text]),
        error.details ? el('pre', { className: 'server-error', text: error.details }) : null,
      ]),
    ),
    el('h3', { text: 'What to try' }),
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
  return el('section', { className: 'notes run-warnings', attrs: { 'aria-label': 'Warnings of the run' } }, warnings.map((warning) => el('p', { className: 'notice notice-warning', text: warning })));
}

/** A formatted table in a box that scrolls sideways, its first column kept in view. */
export function scrollingTable(table: { columns: { label: string; unit?: string; numeric?: boolean; description?: string }[]; rows: string[][] }, className: string): HTMLElement {
  return el('div', { className: 'table-scroll' }, [textTable(table.columns, table.rows, `data-table sticky-first ${className}`)]);
}

/** The server's figures per step and its charts over the run's time (drawn by `board`). */
export function serverSectionElement(server: ServerSection, board: ChartBoard): HTMLElement {
  return el('section', { className: 'server-section', attrs: { id: 'server-section' } }, [
    el('h2', { text: 'Server', title: "The server's own metrics, scraped from its /metrics during the run" }),
    el('p', { className: 'muted', text: server.source }),
    ...server.notes.map((note) => el('p', { className: 'notice', text: note })),
    server.table.rows.length ? scrollingTable(server.table, 'server-table') : null,
    board.element,
  ]);
}

const COLUMN_CHOICES: { key: keyof TableColumns; label: string; hint: string }[] = [
  { key: 'means', label: 'Means', hint: 'Show each distribution\'s mean' },
  { key: 'p90', label: 'p90', hint: 'Show each distribution\'s 90th percentile' },
  { key: 'p95', label: 'p95', hint: 'Show each distribution\'s 95th percentile (vLLM\'s and GuideLLM\'s files give it too)' },
  { key: 'itl', label: 'ITL', hint: 'Show inter-token latency (per chunk, vLLM\'s ITL)' },
];

/** Check boxes for the step table's optional columns. */
function columnChooser(columns: TableColumns, onChange: (columns: TableColumns) => void): HTMLElement {
  return el('div', { className: 'column-chooser', attrs: { role: 'group', 'aria-label': 'Table columns' } }, [
    el('span', { className: 'muted', text: 'Also show:' }),
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
  const table = stepTable(rows, columns);
  const top = table.groups.map((g) =>
    el('th', { title: g.definition, attrs: { scope: 'colgroup', colspan: String(g.columns.length) } }, [
      g.label,
      g.unit ? el('span', { className: 'unit', text: g.unit }) : null,
    ]),
  );
  const sub = table.groups.flatMap((g, gi) =>
    g.columns.map((c) => el('th', { className: gi === 0 ? '' : 'num', attrs: { scope: 'col' }, text: c })),
  );
  const body = table.rows.map((cells) =>
    el('tr', {}, cells.map((cell, i) => (i === 0 ? el('th', { attrs: { scope: 'row' }, text: cell }) : el('td', { className: 'num', text: cell })))),
  );
  return el('div', { className: 'step-table-block' }, [
    onColumnsChange ? columnChooser(columns, onColumnsChange) : null,
    el('div', { className: 'table-scroll' }, [
      el('table', { className: 'data-table step-table sticky-first' }, [el('thead', {}, [el('tr', {}, top), el('tr', {}, sub)]), el('tbody', {}, body)]),
    ]),
  ]);
}

/** The figures of each step name across the run's repeats, mean ± 95% interval. */
export function repeatTableElement(repeats: RepeatRow[]): HTMLElement {
  const table = repeatTable(repeats);
  const head = el('tr', {}, [
    el('th', { attrs: { scope: 'col' }, text: 'Step' }),
    ...table.columns.map((c) => el('th', { className: 'num', title: c.definition, attrs: { scope: 'col' }, text: c.label })),
  ]);
  // The interval goes under its mean: a row of ten figures fits 1000 px.
  const body = table.rows.map((row) =>
    el('tr', {}, [el('th', { attrs: { scope: 'row' }, text: row.step }), ...row.cells.map((cell) => el('td', { className: 'num' }, [cell.mean, el('span', { className: 'unit', text: cell.spread })]))]),
  );
  return el('div', { className: 'table-scroll', attrs: { id: 'repeat-table' } }, [
    el('table', { className: 'data-table repeat-table sticky-first' }, [el('thead', {}, [head]), el('tbody', {}, body)]),
  ]);
}

export function deltaTableElement(deltas: DeltaRow[]): HTMLElement {
  const table = deltaTable(deltas);
  const head = el('tr', {}, [
    el('th', { attrs: { scope: 'col' }, text: 'Step' }),
    ...table.columns.map((c) => el('th', { className: 'num', title: c.definition, attrs: { scope: 'col' }, text: c.label })),
  ]);
  const body = table.rows.map((row) =>
    el('tr', {}, [
      el('th', { attrs: { scope: 'row' }, text: row.step }),
      // Why the verdict goes under the value: a reader sees what made a change "within noise" without hovering.
      ...row.cells.map((cell) => el('td', { className: `num delta-${cell.verdict}`, title: cell.detail }, [cell.text, cell.reason ? el('span', { className: 'unit verdict-reason', text: cell.reason }) : null])),
    ]),
  );
  return el('div', { className: 'table-scroll' }, [
    el('table', { className: 'data-table delta-table sticky-first' }, [el('thead', {}, [head]), el('tbody', {}, body)]),
  ]);
}

/** Whether any chart holds each repeat's own points (a run that repeated its profile). */
export const hasRepeatPoints = (charts: ViewChart[]): boolean => charts.some((chart) => chart.series.some((series) => series.eachRepeat));

/** The check box that shows each repeat's faint points behind the means; off at first (the means and their intervals are the figures). */
export function repeatToggle(checked: boolean, onChange: (checked: boolean) => void): HTMLElement {
  const box = el('input', { attrs: { type: 'checkbox', id: 'show-repeats' }, title: "Draw each repeat's own point, faint, behind the step's mean" });
  box.checked = checked;
  box.addEventListener('change', () => onChange(box.checked));
  return el('div', { className: 'column-chooser repeat-toggle' }, [
    el('label', {}, [box, 'Show each repeat']),
    el('span', { className: 'muted', text: 'Points are the means across repeats; the shaded band is their 95% interval.' }),
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
      const canvas = el('canvas', { attrs: { role: 'img', 'aria-label': chart.title } });
      const card = el('div', { className: 'chart-card', attrs: { 'data-chart': chart.id } }, [
        el('div', { className: 'chart-head' }, [
          el('h3', { text: chart.title, ...(chart.hint ? { title: chart.hint } : {}) }),
          this.onSavePng ? button('Save PNG', () => this.onSavePng?.(chart.id), 'secondary') : null,
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
      card.appendChild(el('p', { className: 'muted', text: `This chart cannot be drawn here (${e instanceof Error ? e.message : String(e)}).` }));
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
    errorBanner('This file cannot be shown as an LLM Bench result.', message),
    toolbar([button('Open as Text', onOpenAsText, 'primary', 'open-as-text')]),
  ]);
}
