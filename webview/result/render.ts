/**
 * DOM for the result and compare views. Every string from a result file (model, labels, step
 * names, error messages, config) goes through dom.ts's text-only helpers.
 */
import { DEFAULT_TABLE_COLUMNS, type DeltaRow, type RepeatRow, type RunSummary, type StepRow, type TableColumns, type ViewChart } from '../../src/format/messages/result';
import { METRICS } from '../../src/format/metrics';
import { SpecChart } from '../shared/charts';
import { el, errorBanner, type Child } from '../shared/dom';
import { readTheme, type Theme } from '../shared/theme';
import { badge, button } from '../shared/toolkit';
import { chartSpec, deltaTable, repeatTable, stepTable, summaryItems } from './model';

/** What a compare header keeps of a run's summary: what tells two runs apart, not when they ran. */
const COMPACT_ITEMS = new Set(['Model', 'Endpoint', 'Status', 'Imported from']);

export function summarySection(summary: RunSummary, heading: string = summary.fileName, compact = false): HTMLElement {
  const labels = summary.labels.length
    ? el('ul', { className: 'label-list' }, summary.labels.map(([k, v]) => el('li', { className: 'label-chip', text: `${k}: ${v}` })))
    : el('span', { className: 'muted', text: 'none' });
  const items = summaryItems(summary).filter((item) => !compact || COMPACT_ITEMS.has(item.label));
  return el('section', { className: `run-summary${compact ? ' compact' : ''}` }, [
    el(compact ? 'h2' : 'h1', {}, [heading, ' ', badge(summary.status)]),
    el('dl', { className: 'kv' }, [
      ...items.flatMap((item) => [el('dt', { text: item.label }), el('dd', { text: item.value })]),
      el('dt', { text: 'Labels' }),
      el('dd', {}, [labels]),
    ]),
    el('details', { className: 'run-config' }, [
      el('summary', { text: 'Run configuration' }),
      el('pre', { text: summary.config }),
    ]),
  ]);
}

export function notesSection(notes: string[]): HTMLElement | null {
  if (notes.length === 0) return null;
  return el('section', { className: 'notes' }, notes.map((note) => el('p', { className: 'notice', text: note })));
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
      ...row.cells.map((cell) => el('td', { className: `num delta-${cell.verdict}`, title: cell.detail, text: cell.text })),
    ]),
  );
  return el('div', { className: 'table-scroll' }, [
    el('table', { className: 'data-table delta-table sticky-first' }, [el('thead', {}, [head]), el('tbody', {}, body)]),
  ]);
}

/**
 * The grid of chart cards. Charts are kept by id and updated in place when the same view
 * redraws (a running benchmark's file growing), so the page does not flicker or jump.
 */
export class ChartBoard {
  readonly element = el('div', { className: 'chart-grid' });
  private readonly charts = new Map<string, { card: HTMLElement; chart: SpecChart | null; spec: ViewChart }>();
  private theme: Theme = readTheme();

  constructor(private readonly onSavePng: (chartId: string, dataUrl: string) => void) {}

  show(specs: ViewChart[]): void {
    const wanted = specs.filter((s) => s.series.some((series) => series.points.length > 0));
    const sameLayout = wanted.length === this.charts.size && wanted.every((s) => this.charts.has(s.id));
    if (!sameLayout) this.rebuild(wanted);
    else for (const spec of wanted) this.update(spec);
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    for (const entry of this.charts.values()) entry.chart?.setTheme(theme);
  }

  /** The chart as a PNG on the theme background; undefined if there is no such chart. */
  pngOf(chartId: string): string | undefined {
    return this.charts.get(chartId)?.chart?.toPngDataUrl();
  }

  private rebuild(specs: ViewChart[]): void {
    for (const entry of this.charts.values()) entry.chart?.destroy();
    this.charts.clear();
    const cards = specs.map((spec) => {
      const canvas = el('canvas', { attrs: { role: 'img', 'aria-label': spec.title } });
      const card = el('div', { className: 'chart-card', attrs: { 'data-chart': spec.id } }, [
        el('div', { className: 'chart-head' }, [
          el('h3', { text: spec.title, ...(spec.metric ? { title: METRICS[spec.metric].definition } : {}) }),
          button('Save PNG', () => this.save(spec.id), 'secondary'),
        ]),
        el('div', { className: 'chart-box' }, [canvas]),
      ]);
      return { spec, canvas, card };
    });
    // Every card is in the page before the first chart measures its box: one layout for all of
    // them, not one per chart.
    this.element.replaceChildren(...cards.map((c) => c.card));
    for (const { spec, canvas, card } of cards) this.charts.set(spec.id, { card, chart: this.draw(canvas, card, spec), spec });
  }

  private update(spec: ViewChart): void {
    const entry = this.charts.get(spec.id);
    if (!entry) return;
    entry.spec = spec;
    entry.chart?.update(chartSpec(spec));
  }

  /** A canvas the browser cannot draw on leaves a note in the card, not a broken page. */
  private draw(canvas: HTMLCanvasElement, card: HTMLElement, spec: ViewChart): SpecChart | null {
    try {
      if (!canvas.getContext('2d')) throw new Error('no 2D canvas');
      return new SpecChart(canvas, chartSpec(spec), this.theme);
    } catch (e) {
      card.appendChild(el('p', { className: 'muted', text: `This chart cannot be drawn here (${e instanceof Error ? e.message : String(e)}).` }));
      return null;
    }
  }

  private save(chartId: string): void {
    const png = this.pngOf(chartId);
    if (png) this.onSavePng(chartId, png);
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
