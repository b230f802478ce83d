/**
 * The result and compare views' tables as text: the step table, the run's summary items, the table
 * across repeats and compare's delta table, from the view model (src/views/result.ts, compare.ts).
 * The webview only puts the cells on screen; tested without a browser (test/unit/result-view.test.ts).
 */
import { rowsEmbedded, rowsReasoned, type DeltaCell, type DeltaRow, type RepeatRow, type RunSummary, type StepRow } from '../format/messages/result';
import { DEFAULT_TABLE_COLUMNS, type TableColumns } from '../format/messages/from-views';
import { METRICS, metricUnit, type MetricKey } from '../format/metrics';
import { ttfoStatsOf, type Stats, type StepSummary } from '../format/result';
import type { TableColumn } from './chart-spec';
import { formatDuration, formatLocalTime, formatMetric, formatPercentChange, NOT_AVAILABLE } from './number-format';
import { verdictDetail, verdictReason } from './noise';
import { stepLabel } from '../format/step-name';
import { markedName, NO_BREAK, sayWarning } from './step-warnings';
import { english, statusWord, type Translate } from './l10n';

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
export function stepTable(rows: StepRow[], columns: TableColumns = DEFAULT_TABLE_COLUMNS, t: Translate = english): StepTable {
  const benchmark: ColumnGroup = { label: 'Benchmark', unit: '', definition: 'The step: its load profile (synchronous, concurrency@N, a rate, throughput).', columns: [''] };
  const name = (row: StepRow): string => (row.partial ? t('{0} (partial)', markedName(stepLabel(row), row.warnings, NO_BREAK)) : markedName(stepLabel(row), row.warnings, NO_BREAK));
  if (rowsEmbedded(rows)) {
    const stat = shownStats(rows, ['latencyMs'], statColumns(columns));
    const rates: MetricKey[] = ['requestsPerSecond', 'embeddingsPerSecond', 'inputTokensPerSecond'];
    return {
      groups: [benchmark, ...rates.map((metric) => group(metric, [''])), group('latencyMs', stat), group('failures', [''])],
      rows: rows.map((row) => [name(row), ...rates.map((metric) => formatMetric(metric, row[metric as 'requestsPerSecond'])), ...statCells('latencyMs', row.latencyMs, stat), failureText(row, t)]),
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
  const stat = shownStats(rows, distributions, statColumns(columns));
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
      failureText(row, t),
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

/** "0 of 40", "3 of 40 (http 3); 2 cancelled by design": a step's failures, in the display language (error kinds are names, kept). */
function failureText(row: StepRow, t: Translate): string {
  if (requestCountsUnknown(row, [row.requestsPerSecond, row.outputTokensPerSecond, row.latencyMs?.mean, row.ttftMs?.mean])) return t('unknown');
  const kinds = row.errors.map(([kind, n]) => `${kind} ${n}`).join(', ');
  const counted = t('{0} of {1}', row.failed, row.total);
  const failures = row.failed > 0 && kinds ? `${counted} (${kinds})` : counted;
  // Requests the run cut on purpose are no failures: said apart, after them.
  return row.cancelledByDesign ? t('{0}; {1} cancelled by design', failures, row.cancelledByDesign) : failures;
}

/**
 * A column of the table of means, and its cell from a finished step's summary; a figure's column
 * also gives its metric and number, so that a repeated step can show the mean of its repeats.
 */
export interface MeansColumn {
  column: TableColumn;
  cell: (summary: StepSummary) => string;
  figure?: { metric: MetricKey; value: (summary: StepSummary) => number | null | undefined };
}

const figureColumn = (column: TableColumn, metric: MetricKey, value: (summary: StepSummary) => number | null | undefined): MeansColumn => ({
  column,
  cell: (summary) => formatMetric(metric, value(summary)),
  figure: { metric, value },
});

const rateColumn = (metric: 'requestsPerSecond' | 'outputTokensPerSecond' | 'embeddingsPerSecond' | 'inputTokensPerSecond'): MeansColumn =>
  figureColumn({ label: METRICS[metric].label, numeric: true, description: METRICS[metric].definition }, metric, (summary) => summary[metric]);

const meanColumn = (metric: 'ttftMs' | 'ttfoMs' | 'tpotMs' | 'latencyMs' | 'reasoningTokens'): MeansColumn =>
  figureColumn(
    { label: METRICS[metric].label, unit: `mean, ${METRICS[metric].unit}`, numeric: true, description: METRICS[metric].definition },
    metric,
    (summary) => (metric === 'ttfoMs' ? ttfoStatsOf(summary) : summary[metric])?.mean,
  );

const REQUESTS_COLUMN: MeansColumn = {
  column: { label: 'requests', unit: 'ok / failed', numeric: true, description: METRICS.failures.definition },
  cell: (summary) => `${summary.requests.completed} / ${summary.requests.failed}`,
};

/**
 * The table of means for these steps (the same names, units and formatting as the step table
 * above): TTFO and the mean reasoning tokens beside TTFT when a step reasoned; for embeddings,
 * their rates and latency, without the stream's figures.
 */
export function meansTable(summaries: readonly (StepSummary | null)[]): { columns: MeansColumn[]; footnote: string } {
  if (summaries.some((s) => s?.embeddingsPerSecond !== undefined)) {
    return {
      columns: [rateColumn('requestsPerSecond'), rateColumn('embeddingsPerSecond'), rateColumn('inputTokensPerSecond'), meanColumn('latencyMs'), REQUESTS_COLUMN],
      footnote: 'Means over successful requests. Embeddings have no stream: no TTFT, TPOT or output tokens.',
    };
  }
  const reasoned = summaries.some((s) => s?.ttfoMs !== undefined);
  return {
    columns: [
      rateColumn('requestsPerSecond'),
      rateColumn('outputTokensPerSecond'),
      meanColumn('ttftMs'),
      ...(reasoned ? [meanColumn('ttfoMs'), meanColumn('reasoningTokens')] : []),
      meanColumn('tpotMs'),
      meanColumn('latencyMs'),
      REQUESTS_COLUMN,
    ],
    footnote: `Means over successful requests. TPOT: time per output token after the first, which GuideLLM and AIPerf call ITL.${reasoned ? ' TTFO: the first answer token, the reasoning left out.' : ''}`,
  };
}

const PLAIN_MEANS = meansTable([]);

/**
 * The table of means a run prints as it goes, one row a step: the live panel's, which knows its
 * columns before any step has ended. The command line (`llmbench run`, `import`) prints
 * `meansTable` of its steps.
 */
export const MEANS_COLUMNS: TableColumn[] = [{ label: 'Benchmark' }, ...PLAIN_MEANS.columns.map((c) => c.column)];

/** What the table of means says under it. */
export const MEANS_FOOTNOTE = PLAIN_MEANS.footnote;

/** A finished step's cells of the live panel's table of means, after its name. */
export function meansCells(summary: StepSummary): string[] {
  return PLAIN_MEANS.columns.map((c) => c.cell(summary));
}

export interface SummaryItem {
  label: string;
  value: string;
}

/**
 * The run's header. Start and finish in the reader's time zone (`offsetMinutes` east of UTC; this
 * machine's by default), the finish with how long the run took.
 */
export function summaryItems(summary: RunSummary, offsetMinutes?: number, t: Translate = english): SummaryItem[] {
  // The status word in the display language; the reason worded again where LLM Bench wrote it from a template (the error it quotes stays as it was).
  const word = statusWord(summary.status, t);
  const status = summary.statusReason ? `${word}: ${sayWarning(summary.statusReason, t)}` : word;
  const took = summary.finishedAt === null || summary.createdAt === null ? Number.NaN : (Date.parse(summary.finishedAt) - Date.parse(summary.createdAt)) / 1000;
  const items: SummaryItem[] = [
    { label: 'Model', value: summary.model },
    { label: 'Endpoint', value: summary.baseUrl ? `${summary.baseUrl} (${summary.api})` : t('not recorded in the file') },
    { label: 'Status', value: status },
    // A time the file does not know is "unknown", never 1970-01-01.
    { label: 'Started', value: summary.createdAt === null ? t('unknown') : formatLocalTime(summary.createdAt, offsetMinutes) },
    {
      label: 'Finished',
      value: summary.finishedAt === null ? t(summary.status === 'running' ? 'not yet' : 'unknown') : took >= 0 ? t('{0}, after {1}', formatLocalTime(summary.finishedAt, offsetMinutes), formatDuration(took, t)) : formatLocalTime(summary.finishedAt, offsetMinutes),
    },
    { label: 'Tool', value: summary.tool },
  ];
  if (summary.workers !== null) items.push({ label: 'Workers', value: summary.workers });
  if (summary.importedFrom) items.push({ label: 'Imported from', value: summary.importedFrom });
  return items;
}

export interface DeltaTableCell {
  /** B's figure, its change against A and the verdict's mark in one line: "58.0 (-42%) ≈". */
  text: string;
  /** The same, apart, for a layout of its own: B's figure, its change ("from 0" when A is 0), the mark. */
  value: string;
  change: string;
  mark: string;
  /** Why the verdict, short, shown under the value (the interval that decided it). */
  reason: string;
  /** The same in a sentence, on hover. */
  detail: string;
  verdict: DeltaCell['verdict'];
}

export interface DeltaTable {
  columns: { label: string; definition: string }[];
  rows: { step: string; cells: DeltaTableCell[] }[];
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
  /** Columns left out because they say nothing for this run, each with why (said under the table). */
  omitted: string[];
}

/**
 * Each step name across the run's repeats: every figure as mean ± the half-width of its 95%
 * interval; failures only when a request failed in some repeat (a column of zeros pushed the
 * table past a 1000 px window).
 */
export function repeatTable(repeats: RepeatRow[], t: Translate = english): RepeatTable {
  const heads = repeats[0]?.cells ?? [];
  const noFailures = heads.some((c) => c.metric === 'failures') && repeats.every((row) => row.cells.every((cell) => cell.metric !== 'failures' || cell.mean === 0 || cell.mean === null));
  const shown = heads.flatMap((cell, i) => (noFailures && cell.metric === 'failures' ? [] : [i]));
  return {
    columns: figureColumns(shown.map((i) => heads[i]!)),
    rows: repeats.map((row) => ({
      step: t('{0} ({1} repeats)', row.name, row.repeats),
      cells: shown.map((i) => row.cells[i]!).map((cell) => ({
        mean: cell.mean === null ? NOT_AVAILABLE : formatMetric(cell.metric, cell.mean),
        spread: cell.mean === null ? '' : cell.halfWidth === null ? `n=${cell.n}` : `± ${formatMetric(cell.metric, cell.halfWidth)}`,
      })),
    })),
    omitted: noFailures ? [t('failures: no request failed in any repeat')] : [],
  };
}

/** B against A for each paired step: B's value and its change in percent, coloured by verdict. */
export function deltaTable(deltas: DeltaRow[], t: Translate = english): DeltaTable {
  return {
    columns: figureColumns(deltas[0]?.cells ?? []),
    rows: deltas.map((row) => ({
      step: row.stepA === row.stepB ? row.stepA : `${row.stepA} / ${row.stepB}`,
      cells: row.cells.map((cell) => {
        const value = formatMetric(cell.metric, cell.b);
        const change = cell.percent === null && cell.a === 0 ? t('from 0') : formatPercentChange(cell.percent);
        const mark = VERDICT_MARK[cell.verdict].trim();
        return {
          text: `${value} (${change})${VERDICT_MARK[cell.verdict]}`,
          value,
          change,
          mark,
          reason: verdictReason(cell, t),
          detail: `A ${formatMetric(cell.metric, cell.a)} -> B ${formatMetric(cell.metric, cell.b)}: ${verdictDetail(cell, t)}`,
          verdict: cell.verdict,
        };
      }),
    })),
  };
}

/** A column of compare's table as shown: a metric, and the statistics its cells stack, top to bottom. */
export interface StackedColumn {
  label: string;
  /** The unit and the stacked statistics: "ms, p50 over p99"; empty for a figure whose label says its unit. */
  unit: string;
  definition: string;
}

/** Compare's table as shown (`stackedDeltaTable`). */
export interface StackedDeltaTable {
  columns: StackedColumn[];
  /** Each cell: its lines, one a statistic (p50 over p99), each B's figure, its change and its mark. */
  rows: { step: string; cells: (DeltaTableCell & { statistic: string | null })[][] }[];
  /** Columns left out because they say nothing for these runs, each with why (said under the table). */
  omitted: string[];
}

/** ITL is shown beside TPOT only where it differs from it by more than this share: one token a chunk makes them the same figure. */
export const ITL_LIKE_TPOT = 0.1;

/**
 * Compare's table laid out to fit a narrow editor: one column a metric (its p50 and p99 stacked in
 * one cell), and no column that says nothing for these runs: failures when no request failed in
 * either, ITL when it is TPOT within ITL_LIKE_TPOT in every step of both (a chunk a token). The
 * table it lays out is `deltaTable`'s, cell for cell.
 */
export function stackedDeltaTable(deltas: DeltaRow[], t: Translate = english): StackedDeltaTable {
  const flat = deltaTable(deltas, t);
  const heads = deltas[0]?.cells ?? [];
  const omitted = new Map<MetricKey, string>();
  // A metric the table has, whose every cell passes `test`.
  const all = (metric: MetricKey, test: (cell: DeltaCell, row: DeltaRow) => boolean) =>
    heads.some((c) => c.metric === metric) && deltas.every((row) => row.cells.every((cell) => cell.metric !== metric || test(cell, row)));
  if (all('failures', (c) => c.a === 0 && c.b === 0)) omitted.set('failures', t('failures: no request failed in either run'));
  const tpotOf = (row: DeltaRow, statistic: DeltaCell['statistic']) => row.cells.find((c) => c.metric === 'tpotMs' && c.statistic === statistic);
  const near = (itl: number | null, tpot: number | null | undefined) => itl === null || (tpot != null && Math.abs(itl - tpot) <= ITL_LIKE_TPOT * tpot);
  if (all('itlMs', (c, row) => near(c.a, tpotOf(row, c.statistic)?.a) && near(c.b, tpotOf(row, c.statistic)?.b))) {
    omitted.set('itlMs', t('ITL (per chunk): within {0}% of TPOT in every step of both runs (a token a chunk)', ITL_LIKE_TPOT * 100));
  }
  const metrics = [...new Set(heads.map((c) => c.metric))].filter((metric) => !omitted.has(metric));
  const indexes = (metric: MetricKey) => heads.flatMap((c, i) => (c.metric === metric ? [i] : []));
  return {
    columns: metrics.map((metric) => {
      const m = METRICS[metric];
      const statistics = indexes(metric).flatMap((i) => (heads[i]?.statistic ? [heads[i]!.statistic!] : []));
      const unit = metricUnit(metric) === '' ? '' : t(metricUnit(metric));
      return {
        label: m.label,
        // The stacked statistics top to bottom: "p50 over p99".
        unit: [unit, statistics.length > 1 ? statistics.slice(1).reduce<string>((above, below) => t('{0} over {1}', above, below), statistics[0]!) : (statistics[0] ?? '')].filter(Boolean).join(', '),
        definition: `${m.definition} ${m.better === 'higher' ? 'Higher' : 'Lower'} is better.`,
      };
    }),
    rows: flat.rows.map((row) => ({
      step: row.step,
      cells: metrics.map((metric) => indexes(metric).map((i) => ({ ...row.cells[i]!, statistic: heads[i]?.statistic ?? null }))),
    })),
    omitted: [...omitted.values()],
  };
}
