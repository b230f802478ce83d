/**
 * Runs that repeat their profile (`repeat` in the config): the steps of one name, one per repeat,
 * become one figure each, the mean across repeats with its 95% confidence interval by Student's t
 * (AIPerf's multi-run confidence intervals); two runs' figures differ beyond noise only when their
 * intervals do not overlap (src/views/noise.ts). Pure: unit tested against values computed by hand.
 */
import { ttfoStatsOf } from '../format/result';
import { rowsEmbedded, rowsReasoned, type RepeatRow, type StepRow } from '../format/messages/result';
import type { MetricKey } from '../format/metrics';

/**
 * Student's t 0.975 quantiles (two-sided 95%) for 1 to 30 degrees of freedom, from the standard
 * tables (Abramowitz & Stegun 26.10), to four decimals.
 */
const T_975 = [
  12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.093, 2.086,
  2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
];
/** The standard normal 0.975 quantile. */
const Z_975 = 1.959963984540054;

/**
 * t(0.975, df): the table up to 30 degrees of freedom, beyond it the Cornish-Fisher expansion of t
 * around the normal quantile (Abramowitz & Stegun 26.7.5), within 1e-4 of the exact value there.
 */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new Error(`Degrees of freedom must be a whole number of at least 1, got ${df}.`);
  if (df <= T_975.length) return T_975[df - 1] as number;
  const z = Z_975;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3;
}

/** A figure across repeats: the mean and the half-width of its 95% interval (null with one value). */
export interface MeanInterval {
  n: number;
  mean: number;
  halfWidth: number | null;
}

/** Mean ± t(0.975, n - 1) · s / √n over the values (s: the sample standard deviation); null without values. */
export function meanInterval(values: readonly number[]): MeanInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  if (n === 1) return { n, mean, halfWidth: null };
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1);
  return { n, mean, halfWidth: (tQuantile975(n - 1) * Math.sqrt(variance)) / Math.sqrt(n) };
}

/** Steps of each name in order of first appearance: a run with repeats holds one per repeat. */
export function groupByName<T extends { name: string }>(steps: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const step of steps) groups.set(step.name, [...(groups.get(step.name) ?? []), step]);
  return [...groups];
}

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
