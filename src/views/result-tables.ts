/**
 * The result and compare views' tables as text: the step table, the run's summary items, the table
 * across repeats and compare's delta table, from the view model (src/views/result.ts, compare.ts).
 * The webview only puts the cells on screen; tested without a browser (test/unit/result-view.test.ts).
 */
import type { DeltaCell, DeltaRow, RepeatRow, RunSummary, StepRow } from '../format/messages/result';
import { DEFAULT_TABLE_COLUMNS, type TableColumns } from '../format/messages/from-views';
import { METRICS, metricUnit, type MetricKey } from '../format/metrics';
import type { Stats } from '../format/result';
import { formatMetric, formatPercentChange, NOT_AVAILABLE } from './number-format';
import { verdictDetail, verdictReason } from './noise';
import { stepLabel } from '../format/step-name';

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
  const distributions: MetricKey[] = ['ttftMs', 'tpotMs', 'latencyMs', ...(columns.itl ? (['itlMs'] as const) : [])];
  const stat = shownStats(rows, distributions, statColumns(columns));
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

/**
 * The statistics shown follow what the run holds: one that no step has (an imported GuideLLM table
 * gives means and no p50) is left out rather than shown as a column of n/a, and the mean is shown
 * when the steps have means but no medians, whatever the check boxes say. Without any, as chosen.
 */
function shownStats(rows: StepRow[], distributions: MetricKey[], chosen: StatColumn[]): StatColumn[] {
  const held = (key: StatColumn) => rows.some((row) => distributions.some((metric) => typeof row[metric as 'ttftMs']?.[key] === 'number'));
  const withMeans = !held('p50') && held('mean') && !chosen.includes('mean') ? (['mean', ...chosen] as StatColumn[]) : chosen;
  const shown = withMeans.filter(held);
  return shown.length > 0 ? shown : chosen;
}

/**
 * Whether a step's request counts are unknown: an imported step with figures whose tool did not say
 * how many requests it sent reads "unknown", never "0 of 0".
 */
export function requestCountsUnknown(counts: { total: number }, figures: readonly (number | null | undefined)[]): boolean {
  return counts.total === 0 && figures.some((figure) => typeof figure === 'number');
}

function failureText(row: StepRow): string {
  if (requestCountsUnknown(row, [row.requestsPerSecond, row.outputTokensPerSecond, row.latencyMs?.mean, row.ttftMs?.mean])) return 'unknown';
  if (row.failed === 0) return `0 of ${row.total}`;
  const kinds = row.errors.map(([kind, n]) => `${kind} ${n}`).join(', ');
  return `${row.failed} of ${row.total}${kinds ? ` (${kinds})` : ''}`;
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
    // A time the file does not know is "unknown", never 1970-01-01.
    { label: 'Started', value: summary.createdAt ?? 'unknown' },
    { label: 'Finished', value: summary.finishedAt ?? (summary.status === 'running' ? 'not yet' : 'unknown') },
    { label: 'Tool', value: summary.tool },
  ];
  if (summary.importedFrom) items.push({ label: 'Imported from', value: summary.importedFrom });
  return items;
}

export interface DeltaTable {
  columns: { label: string; definition: string }[];
  /** `reason`: why the verdict, short, shown under the value (the interval that decided it); `detail`: the same in a sentence, on hover. */
  rows: { step: string; cells: { text: string; reason: string; detail: string; verdict: DeltaCell['verdict'] }[] }[];
}

/** Colour is not the only cue: better, worse and within-noise cells also carry a mark. */
export const VERDICT_MARK: Record<DeltaCell['verdict'], string> = { better: ' \u2713', worse: ' \u2717', same: ' \u2248', unknown: '' };

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
        text: `${formatMetric(cell.metric, cell.b)} (${cell.percent === null && cell.a === 0 ? 'from 0' : formatPercentChange(cell.percent)})${VERDICT_MARK[cell.verdict]}`,
        reason: verdictReason(cell),
        detail: `A ${formatMetric(cell.metric, cell.a)} -> B ${formatMetric(cell.metric, cell.b)}: ${verdictDetail(cell)}`,
        verdict: cell.verdict,
      })),
    })),
  };
}
