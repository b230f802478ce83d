/**
 * Runs that repeat their profile (`repeat` in the config): the steps of one name, one per repeat,
 * become one figure each, the mean across repeats with its 95% confidence interval by Student's t
 * (AIPerf's multi-run confidence intervals); two runs' figures differ beyond noise only when their
 * intervals do not overlap (src/views/noise.ts). Pure: unit tested against values computed by hand.
 */
import { ttfoStatsOf } from '../format/result';
import { rowsEmbedded, rowsReasoned, type RepeatRow, type StepRow } from '../format/messages/result';
import type { MetricKey } from '../format/metrics';

// The interval across repeats is the results room's (src/results/stats.ts), which the tuner's
// re-measurement uses too: one Student's t interval for every figure repeated.
import { groupByName, meanInterval } from '../results/stats';
export { groupByName, meanInterval, tQuantile975, type MeanInterval } from '../results/stats';


/** Whether a run repeated its profile: some step name occurs more than once, and the steps carry a repeat index. */
export function hasRepeats(steps: readonly { name: string; repeat?: number | undefined }[]): boolean {
  return steps.some((s) => s.repeat !== undefined) && groupByName(steps).some(([, group]) => group.length > 1);
}

/** One figure of the repeat table: which metric (and statistic) and how to read it from a step's row. */
export interface RepeatFigure {
  metric: MetricKey;
  statistic?: 'p50' | 'p99';
  value: (row: StepRow) => number | null | undefined;
}

/** The figures every step is judged by, in the result table's order: in the repeat table and in compare's delta table. */
export const STEP_FIGURES: RepeatFigure[] = [
  { metric: 'requestsPerSecond', value: (r) => r.requestsPerSecond },
  { metric: 'outputTokensPerSecond', value: (r) => r.outputTokensPerSecond },
  { metric: 'ttftMs', statistic: 'p50', value: (r) => r.ttftMs?.p50 },
  { metric: 'ttftMs', statistic: 'p99', value: (r) => r.ttftMs?.p99 },
  { metric: 'tpotMs', statistic: 'p50', value: (r) => r.tpotMs?.p50 },
  { metric: 'tpotMs', statistic: 'p99', value: (r) => r.tpotMs?.p99 },
  { metric: 'latencyMs', statistic: 'p50', value: (r) => r.latencyMs?.p50 },
  { metric: 'latencyMs', statistic: 'p99', value: (r) => r.latencyMs?.p99 },
  { metric: 'itlMs', statistic: 'p50', value: (r) => r.itlMs?.p50 },
  { metric: 'failures', value: (r) => r.failed },
];

/** Steps that reasoned are judged by TTFO too, beside TTFT; a step without reasoning has its TTFT as TTFO (a run compared with a reasoning one). */
const TTFO_FIGURES: RepeatFigure[] = [
  { metric: 'ttfoMs', statistic: 'p50', value: (r) => ttfoStatsOf(r)?.p50 },
  { metric: 'ttfoMs', statistic: 'p99', value: (r) => ttfoStatsOf(r)?.p99 },
];

/** Embeddings are judged by what they do: vectors and input tokens per second, latency, failures (no stream figures). */
const EMBEDDING_FIGURES: RepeatFigure[] = [
  { metric: 'requestsPerSecond', value: (r) => r.requestsPerSecond },
  { metric: 'embeddingsPerSecond', value: (r) => r.embeddingsPerSecond },
  { metric: 'inputTokensPerSecond', value: (r) => r.inputTokensPerSecond },
  { metric: 'latencyMs', statistic: 'p50', value: (r) => r.latencyMs?.p50 },
  { metric: 'latencyMs', statistic: 'p99', value: (r) => r.latencyMs?.p99 },
  { metric: 'failures', value: (r) => r.failed },
];

/** The figures steps are judged by: STEP_FIGURES, with TTFO after TTFT when they reasoned; EMBEDDING_FIGURES for embeddings. */
export function stepFigures(rows: readonly StepRow[]): RepeatFigure[] {
  if (rowsEmbedded(rows)) return EMBEDDING_FIGURES;
  if (!rowsReasoned(rows)) return STEP_FIGURES;
  const afterTtft = STEP_FIGURES.findIndex((figure) => figure.metric === 'tpotMs');
  return [...STEP_FIGURES.slice(0, afterTtft), ...TTFO_FIGURES, ...STEP_FIGURES.slice(afterTtft)];
}

/** The figures across repeats: the result table's default columns (ITL is an optional one there), so that the table fits where that one does. */
export const repeatFigures = (rows: readonly StepRow[]): RepeatFigure[] => stepFigures(rows).filter((figure) => figure.metric !== 'itlMs');

/** Each step name's figures across its repeats, in `repeatFigures` order (a repeat without a value is left out of that figure). */
export function repeatRows(rows: readonly StepRow[]): RepeatRow[] {
  const figures = repeatFigures(rows);
  return groupByName(rows).map(([name, group]) => ({
    name,
    repeats: group.length,
    cells: figures.map(({ metric, statistic, value }) => {
      const values = group.flatMap((row) => {
        const v = value(row);
        return typeof v === 'number' && Number.isFinite(v) ? [v] : [];
      });
      const interval = meanInterval(values);
      return { metric, ...(statistic ? { statistic } : {}), n: values.length, mean: interval?.mean ?? null, halfWidth: interval?.halfWidth ?? null };
    }),
  }));
}
