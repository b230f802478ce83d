/**
 * The result and compare views' pure parts: view model -> table cells and chart specs. Tested
 * without a browser (test/unit/webview-result*.test.ts).
 */
import { stepLabel } from '../../src/format/step-name';
import type { DeltaCell, DeltaRow, RepeatRow, RunSummary, StepRow, ViewChart } from '../../src/format/messages/result';
import { DEFAULT_TABLE_COLUMNS, type TableColumns } from '../../src/format/messages/from-views';
import { METRICS, metricUnit, type MetricKey } from '../../src/format/metrics';
import type { Stats } from '../../src/format/result';
import { NOT_AVAILABLE } from '../../src/report/units';
import { formatMetric } from '../../src/views/number-format';
import { DECIMATE_ABOVE, type ChartSpec } from '../../src/views/chart-spec';

export { formatMetric, formatNumber } from '../../src/views/number-format';

export function formatPercent(value: number | null): string {
  if (value === null) return NOT_AVAILABLE;
  const rounded = Math.abs(value) >= 10 ? value.toFixed(0) : value.toFixed(1);
  return `${value > 0 ? '+' : ''}${rounded}%`;
}

/** One header group of the step table: a metric over one or more sub-columns. */
export interface ColumnGroup {
  label: string;
  unit: string;
  /** The metric's definition, shown on hover. */
  definition: string;
  columns: string[];
}

export interface StepTable {
  groups: ColumnGroup[];
  rows: string[][];
}

type StatColumn = 'mean' | 'p50' | 'p90' | 'p95' | 'p99';

function statColumns(columns: TableColumns): StatColumn[] {
  return [
    ...(columns.means ? (['mean'] as const) : []),
    'p50',
    ...(columns.p90 ? (['p90'] as const) : []),
    ...(columns.p95 ? (['p95'] as const) : []),
    'p99',
  ];
}

function statCells(metric: MetricKey, stats: Stats | null, stat: StatColumn[]): string[] {
  return stat.map((key) => formatMetric(metric, stats?.[key]));
}

function group(metric: MetricKey, columns: string[]): ColumnGroup {
  const m = METRICS[metric];
  return { label: m.label, unit: metricUnit(metric), definition: m.definition, columns };
}

/**
 * The step table: Benchmark | req/s | output tok/s | TTFT | TPOT | latency | (ITL) | failures, each
 * distribution at p50 and p99 and, when chosen, its mean, p90 and p95. Throughput comes first, as in
 * GuideLLM's and vLLM's tables, and the defaults fit 1000 px without scrolling.
 */
export function stepTable(rows: StepRow[], columns: TableColumns = DEFAULT_TABLE_COLUMNS): StepTable {
  const stat = statColumns(columns);
  const distributions: MetricKey[] = ['ttftMs', 'tpotMs', 'latencyMs', ...(columns.itl ? (['itlMs'] as const) : [])];
  const groups: ColumnGroup[] = [
    { label: 'Benchmark', unit: '', definition: 'The step: its load profile (synchronous, concurrency@N, a rate, throughput).', columns: [''] },
    group('requestsPerSecond', ['']),
    group('outputTokensPerSecond', ['']),
    ...distributions.map((metric) => group(metric, stat)),
    group('failures', ['']),
  ];
  return {
    groups,
    rows: rows.map((row) => [
      `${stepLabel(row)}${row.partial ? ' (partial)' : ''}`,
      formatMetric('requestsPerSecond', row.requestsPerSecond),
      formatMetric('outputTokensPerSecond', row.outputTokensPerSecond),
      ...distributions.flatMap((metric) => statCells(metric, row[metric as 'ttftMs'], stat)),
      failureText(row),
    ]),
  };
}

function failureText(row: StepRow): string {
  if (row.failed === 0) return `0 of ${row.total}`;
  const kinds = row.errors.map(([kind, n]) => `${kind} ${n}`).join(', ');
  return `${row.failed} of ${row.total}${kinds ? ` (${kinds})` : ''}`;
}

/** The view's chart (compact [x, y] pairs) as a shared chart spec. */
export function chartSpec(chart: ViewChart): ChartSpec {
  return {
    kind: 'line',
    x: {
      title: chart.xLabel,
      ...(chart.xLog ? { log: true } : {}),
      // A log axis ends at its last level; a linear one at a round number past it.
      ...(chart.xMax !== undefined ? { max: chart.xLog ? chart.xMax : niceCeiling(chart.xMax) } : {}),
    },
    y: { title: chart.yLabel, ...(chart.yMax !== undefined ? { max: niceCeiling(chart.yMax) } : {}) },
    ...(chart.markers ? { markers: chart.markers } : {}),
    // A series over a long run's time has thousands of scrapes: drawn decimated, as the live panel's are.
    ...(chart.series.some((s) => s.points.length > DECIMATE_ABOVE) ? { decimateAbove: DECIMATE_ABOVE } : {}),
    series: chart.series.map((s, i) => ({
      label: s.label,
      data: s.points.map(([x, y]) => ({ x, y })),
      color: s.colorIndex,
      ...(s.dashed ? { dashed: true } : {}),
      ...(s.percentile ? { percentile: s.percentile } : {}),
      // A load curve has a handful of points: show them; a distribution curve is a line.
      pointRadius: s.points.length <= 20 ? 3 : 0,
      ...(s.fillToPrevious && i > 0 ? { fillTo: i - 1 } : {}),
    })),
  };
}

/** A round axis maximum at or above `value` (1, 2, 2.5, 5 times a power of ten), as chart.js would pick. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  // A round value is its own ceiling (KV-cache usage ends at 100%, not 200%); float noise just above one is not.
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= value * (1 - 1e-9)) ?? 10;
  return step * power;
}

export interface SummaryItem {
  label: string;
  value: string;
}

export function summaryItems(summary: RunSummary): SummaryItem[] {
  const status = summary.statusReason ? `${summary.status}: ${summary.statusReason}` : summary.status;
  const items: SummaryItem[] = [
    { label: 'Model', value: summary.model },
    { label: 'Endpoint', value: summary.baseUrl ? `${summary.baseUrl} (${summary.api})` : 'not recorded in the file' },
    { label: 'Status', value: status },
    { label: 'Started', value: summary.createdAt },
    { label: 'Finished', value: summary.finishedAt ?? NOT_AVAILABLE },
    { label: 'Tool', value: summary.tool },
  ];
  if (summary.importedFrom) items.push({ label: 'Imported from', value: summary.importedFrom });
  return items;
}

export interface DeltaTable {
  columns: { label: string; definition: string }[];
  rows: { step: string; cells: { text: string; detail: string; verdict: DeltaCell['verdict'] }[] }[];
}

/** Colour is not the only cue: better, worse and within-noise cells also carry a mark. */
export const VERDICT_MARK: Record<DeltaCell['verdict'], string> = { better: ' \u2713', worse: ' \u2717', same: ' \u2248', unknown: '' };
const VERDICT_WORDS: Record<DeltaCell['verdict'], string> = { better: 'better', worse: 'worse', same: 'within noise', unknown: 'not comparable' };

function verdictDetail(cell: DeltaCell): string {
  const interval = cell.interval ? `: 95% interval ${formatPercent(cell.interval[0])} to ${formatPercent(cell.interval[1])}` : cell.verdict === 'same' ? ' (no interval: a small change of one figure)' : '';
  return `${VERDICT_WORDS[cell.verdict]}${interval}`;
}

/** Column heads for figures of a step (a metric, and its statistic for per-request ones). */
function figureColumns(heads: { metric: MetricKey; statistic?: 'p50' | 'p99' | undefined }[]): { label: string; definition: string }[] {
  return heads.map(({ metric, statistic }) => {
    const m = METRICS[metric];
    const stat = statistic ? ` ${statistic}` : m.unit === 'ms' ? ' p50' : '';
    return { label: `${m.label}${stat}`, definition: `${m.definition} ${m.better === 'higher' ? 'Higher' : 'Lower'} is better.` };
  });
}

export interface RepeatTable {
  columns: { label: string; definition: string }[];
  /** Each cell: the mean, and `± half-width` (or how many repeats had the figure, when too few for an interval). */
  rows: { step: string; cells: { mean: string; spread: string }[] }[];
}

/** Each step name across the run's repeats: every figure as mean ± the half-width of its 95% interval. */
export function repeatTable(repeats: RepeatRow[]): RepeatTable {
  return {
    columns: figureColumns(repeats[0]?.cells ?? []),
    rows: repeats.map((row) => ({
      step: `${row.name} (${row.repeats} repeats)`,
      cells: row.cells.map((cell) => ({
        mean: cell.mean === null ? NOT_AVAILABLE : formatMetric(cell.metric, cell.mean),
        spread: cell.mean === null ? '' : cell.halfWidth === null ? `n=${cell.n}` : `± ${formatMetric(cell.metric, cell.halfWidth)}`,
      })),
    })),
  };
}

/** B against A for each paired step: B's value and its change in percent, coloured by verdict. */
export function deltaTable(deltas: DeltaRow[]): DeltaTable {
  return {
    columns: figureColumns(deltas[0]?.cells ?? []),
    rows: deltas.map((row) => ({
      step: row.stepA === row.stepB ? row.stepA : `${row.stepA} / ${row.stepB}`,
      cells: row.cells.map((cell) => ({
        text: `${formatMetric(cell.metric, cell.b)} (${cell.percent === null && cell.a === 0 ? 'from 0' : formatPercent(cell.percent)})${VERDICT_MARK[cell.verdict]}`,
        detail: `A ${formatMetric(cell.metric, cell.a)} -> B ${formatMetric(cell.metric, cell.b)}: ${verdictDetail(cell)}`,
        verdict: cell.verdict,
      })),
    })),
  };
}
