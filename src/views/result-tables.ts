/**
 * The result and compare views' tables as text: the step table, the run's summary items, the table
 * across repeats and compare's delta table, from the view model (src/views/result.ts, compare.ts).
 * The webview only puts the cells on screen; tested without a browser (test/unit/result-view.test.ts).
 */
import { rowsEmbedded, rowsReasoned, type DeltaCell, type DeltaRow, type RepeatRow, type RunSummary, type StepRow } from '../format/messages/result';
import { DEFAULT_TABLE_COLUMNS, type TableColumns } from '../format/messages/from-views';
import { METRICS, metricUnit, type MetricKey } from '../format/metrics';
import type { Stats } from '../format/result';
import { formatMetric, formatPercentChange, NOT_AVAILABLE } from './number-format';
import { verdictDetail } from './noise';
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
 * GuideLLM's and vLLM's tables, and the defaults fit 1000 px without scrolling. Steps that reasoned
 * add TTFO beside TTFT and the mean reasoning and answer tokens (and, with ITL, each phase's ITL);
 * an embeddings run shows embeddings/s and input tok/s instead of the stream's figures. A run
 * without reasoning has none of those columns, not empty ones.
 */
export function stepTable(rows: StepRow[], columns: TableColumns = DEFAULT_TABLE_COLUMNS): StepTable {
  const stat = statColumns(columns);
  const benchmark: ColumnGroup = { label: 'Benchmark', unit: '', definition: 'The step: its load profile (synchronous, concurrency@N, a rate, throughput).', columns: [''] };
  const name = (row: StepRow): string => `${stepLabel(row)}${row.partial ? ' (partial)' : ''}`;
  if (rowsEmbedded(rows)) {
    const rates: MetricKey[] = ['requestsPerSecond', 'embeddingsPerSecond', 'inputTokensPerSecond'];
    return {
      groups: [benchmark, ...rates.map((metric) => group(metric, [''])), group('latencyMs', stat), group('failures', [''])],
      rows: rows.map((row) => [name(row), ...rates.map((metric) => formatMetric(metric, row[metric as 'requestsPerSecond'])), ...statCells('latencyMs', row.latencyMs, stat), failureText(row)]),
    };
  }
  const reasoned = rowsReasoned(rows);
  const distributions: MetricKey[] = [
    'ttftMs',
    ...(reasoned ? (['ttfoMs'] as const) : []),
    'tpotMs',
    'latencyMs',
    ...(columns.itl ? (['itlMs'] as const) : []),
    ...(columns.itl && reasoned ? (['reasoningItlMs', 'answerItlMs'] as const) : []),
  ];
  // Token counts are read as means: how much a response thought, how much it answered.
  const counts: MetricKey[] = reasoned ? ['reasoningTokens', 'answerTokens'] : [];
  const groups: ColumnGroup[] = [
    benchmark,
    group('requestsPerSecond', ['']),
    group('outputTokensPerSecond', ['']),
    ...distributions.map((metric) => group(metric, stat)),
    ...counts.map((metric) => group(metric, ['mean'])),
    group('failures', ['']),
  ];
  return {
    groups,
    rows: rows.map((row) => [
      name(row),
      formatMetric('requestsPerSecond', row.requestsPerSecond),
      formatMetric('outputTokensPerSecond', row.outputTokensPerSecond),
      ...distributions.flatMap((metric) => statCells(metric, row[metric as 'ttftMs'] ?? null, stat)),
      ...counts.map((metric) => formatMetric(metric, row[metric as 'reasoningTokens']?.mean)),
      failureText(row),
    ]),
  };
}

function failureText(row: StepRow): string {
  // Requests the run cut on purpose are no failures: said apart, after them.
  const cut = row.cancelledByDesign ? `; ${row.cancelledByDesign} cancelled by design` : '';
  if (row.failed === 0) return `0 of ${row.total}${cut}`;
  const kinds = row.errors.map(([kind, n]) => `${kind} ${n}`).join(', ');
  return `${row.failed} of ${row.total}${kinds ? ` (${kinds})` : ''}${cut}`;
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
        detail: `A ${formatMetric(cell.metric, cell.a)} -> B ${formatMetric(cell.metric, cell.b)}: ${verdictDetail(cell)}`,
        verdict: cell.verdict,
      })),
    })),
  };
}
