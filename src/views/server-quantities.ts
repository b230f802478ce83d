/**
 * The server's own metrics as the views show them: whole-run series from a result file (or from
 * live events), mapped from any engine's names to the common quantities (running and waiting
 * requests, KV-cache usage, preemptions, prefix-cache hit rate, generated and prompt tokens/s,
 * queue and prefill time), and their figures over one step. Rates are derived here from the raw
 * counters the file keeps. Pure: used by the host, the command line and the webviews.
 */
import type { ResultDocument } from '../format/result';
import {
  COMMON_SERVER_METRICS,
  ENDPOINT_LABEL,
  recogniseEngine,
  SERVER_METRIC_NAMES,
  SGLANG_GENERATION_THROUGHPUT,
  seriesKey,
  type CommonServerMetric,
  type MetricSample,
  type MetricSeries,
  type MetricSource,
  type ServerEngine,
} from '../format/server-metrics';

export { COMMON_SERVER_METRICS, type CommonServerMetric, type MetricSeries, type ServerEngine };

/** A point of a common series: milliseconds on the run's clock, and the value in COMMON_UNITS. */
export interface ServerPoint {
  tMs: number;
  value: number;
}

/** The unit each common series is in. */
export const COMMON_UNITS: Record<CommonServerMetric, string> = {
  runningRequests: 'requests',
  waitingRequests: 'requests',
  kvCacheUsage: 'fraction (0..1)',
  preemptions: 'preemptions/s',
  prefixCacheHitRate: 'fraction (0..1)',
  generatedTokens: 'tokens/s',
  promptTokens: 'tokens/s',
  queueTime: 'ms (mean per interval)',
  prefillTime: 'ms (mean per interval)',
};

/**
 * Appends `more`'s samples to the series of `into` with the same source, name and labels (new
 * series are added, copied): how live events and a file's per-step chunks become whole-run series.
 * Samples are expected in time order, chunk after chunk.
 */
export function mergeSeries(into: MetricSeries[], more: readonly MetricSeries[]): MetricSeries[] {
  const index = new Map(into.map((s) => [seriesKey(s), s]));
  for (const s of more) {
    const known = index.get(seriesKey(s));
    if (known) known.samples.push(...s.samples);
    else {
      const copy = { ...s, samples: [...s.samples] };
      index.set(seriesKey(s), copy);
      into.push(copy);
    }
  }
  return into;
}

/** Every server and GPU series of a run, whole: its steps' chunks and the samples after the last step. */
export function runSeries(doc: Pick<ResultDocument, 'steps' | 'sampledAfterSteps'>): MetricSeries[] {
  const all: MetricSeries[] = [];
  for (const step of doc.steps) if (step.sampled) mergeSeries(all, step.sampled);
  if (doc.sampledAfterSteps) mergeSeries(all, doc.sampledAfterSteps);
  return all;
}

/**
 * A run over several endpoints: its server series split by endpoint (ENDPOINT_LABEL), each
 * endpoint's own, in the endpoints' order; the label is left on. Empty when no series carries it.
 */
export function seriesByEndpoint(series: readonly MetricSeries[]): { endpoint: string; series: MetricSeries[] }[] {
  const groups = new Map<string, MetricSeries[]>();
  for (const s of series) {
    const endpoint = s.source === 'server' ? s.labels[ENDPOINT_LABEL] : undefined;
    if (endpoint === undefined) continue;
    (groups.get(endpoint) ?? groups.set(endpoint, []).get(endpoint)!).push(s);
  }
  return [...groups].sort(([a], [b]) => Number(a) - Number(b)).map(([endpoint, own]) => ({ endpoint, series: own }));
}

/** The engine of a run: as recorded when scraping started, else as its series' names show. */
export function engineOf(doc: Pick<ResultDocument, 'serverMetrics'>, series: readonly MetricSeries[]): ServerEngine {
  const recorded = doc.serverMetrics?.engine;
  if (recorded !== undefined && recorded !== 'unknown') return recorded;
  return recogniseEngine(series.filter((s) => s.source === 'server').map((s) => s.name));
}

/** A step's span on the run's clock, when the file has one (our own runs since server metrics). */
export function stepWindow(step: { startMs?: number; endMs?: number }): { startMs: number; endMs: number } | null {
  return step.startMs !== undefined && step.endMs !== undefined ? { startMs: step.startMs, endMs: step.endMs } : null;
}

const labelsMatch = (labels: Record<string, string>, wanted: Record<string, string> | undefined): boolean =>
  wanted === undefined || Object.entries(wanted).every(([k, v]) => labels[k] === v);

function serverSeriesNamed(series: readonly MetricSeries[], name: string, labels?: Record<string, string>): MetricSeries[] {
  return series.filter((s) => s.source === 'server' && s.name === name && labelsMatch(s.labels, labels));
}

/** Finite samples only: NaN and ±Inf are stored as null. */
const finite = (samples: readonly MetricSample[]): [number, number][] => samples.filter((p): p is [number, number] => p[1] !== null);

/** Values at each sample time, combined across series (label sets) by `combine`. */
function combineAtTimes(perSeries: readonly (readonly [number, number])[][], combine: (values: number[]) => number): ServerPoint[] {
  const byTime = new Map<number, number[]>();
  for (const points of perSeries) for (const [t, v] of points) (byTime.get(t) ?? byTime.set(t, []).get(t)!).push(v);
  return [...byTime]
    .sort(([a], [b]) => a - b)
    .map(([tMs, values]) => ({ tMs, value: combine(values) }));
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
const mean = (values: number[]): number => sum(values) / values.length;

/** A counter's increase between consecutive samples, `[t, increase]` at the later sample; a drop is a restart, counted from zero. */
function increases(samples: readonly MetricSample[]): [number, number][] {
  const points = finite(samples);
  const out: [number, number][] = [];
  for (let i = 1; i < points.length; i++) {
    const [t, v] = points[i]!;
    const previous = points[i - 1]![1];
    out.push([t, v >= previous ? v - previous : v]);
  }
  return out;
}

/** Sum of the increases of every series per sample time, with the interval each covers. */
function summedIncreases(series: readonly MetricSeries[]): { tMs: number; increase: number; spanMs: number }[] {
  const times = new Map<number, { increase: number; spanMs: number }>();
  for (const s of series) {
    const points = finite(s.samples);
    const steps = increases(s.samples);
    steps.forEach(([t, increase], i) => {
      const spanMs = t - points[i]![0];
      const known = times.get(t);
      if (known) known.increase += increase;
      else times.set(t, { increase, spanMs });
    });
  }
  return [...times].sort(([a], [b]) => a - b).map(([tMs, v]) => ({ tMs, ...v }));
}

function perSecond(series: readonly MetricSeries[]): ServerPoint[] {
  return summedIncreases(series)
    .filter((p) => p.spanMs > 0)
    .map((p) => ({ tMs: p.tMs, value: (p.increase * 1000) / p.spanMs }));
}

/** Increase of `numerator` over increase of `denominator` per interval; intervals where the denominator did not grow are left out. */
function ratioOfIncreases(numerator: readonly MetricSeries[], denominator: readonly MetricSeries[], scale = 1): ServerPoint[] {
  const top = new Map(summedIncreases(numerator).map((p) => [p.tMs, p.increase]));
  return summedIncreases(denominator)
    .filter((p) => p.increase > 0 && top.has(p.tMs))
    .map((p) => ({ tMs: p.tMs, value: ((top.get(p.tMs) ?? 0) / p.increase) * scale }));
}

/** The server series of every name listed (a counter's `plus`, a ratio's `queriesPlus`); none for none. */
const seriesOfAll = (series: readonly MetricSeries[], names: readonly string[] | undefined): MetricSeries[] => (names ?? []).flatMap((name) => serverSeriesNamed(series, name));

/** The series of one source, or null when the run has none of its names. */
function fromSource(series: readonly MetricSeries[], source: MetricSource): ServerPoint[] | null {
  switch (source.kind) {
    case 'gauge': {
      const found = serverSeriesNamed(series, source.family);
      return found.length === 0 ? null : combineAtTimes(found.map((s) => finite(s.samples)), source.across === 'sum' ? sum : mean);
    }
    case 'counter': {
      const found = serverSeriesNamed(series, source.sample);
      return found.length === 0 ? null : perSecond([...found, ...seriesOfAll(series, source.plus)]);
    }
    case 'ratio': {
      const hits = serverSeriesNamed(series, source.hits);
      const queries = serverSeriesNamed(series, source.queries);
      return hits.length === 0 || queries.length === 0 ? null : ratioOfIncreases(hits, [...queries, ...seriesOfAll(series, source.queriesPlus)]);
    }
    case 'histogram': {
      const sums = serverSeriesNamed(series, `${source.family}_sum`, source.labels);
      const counts = serverSeriesNamed(series, `${source.family}_count`, source.labels);
      return sums.length === 0 || counts.length === 0 ? null : ratioOfIncreases(sums, counts, 1000);
    }
  }
}

/** The sources of a common quantity for an engine (SGLang's throughput gauge after its token counter). */
function sourcesOf(engine: ServerEngine, metric: CommonServerMetric): MetricSource[] {
  const engines = engine === 'unknown' ? Object.values(SERVER_METRIC_NAMES) : [SERVER_METRIC_NAMES[engine]];
  const sources = engines.flatMap((names) => names[metric] ?? []);
  if (metric === 'generatedTokens' && (engine === 'sglang' || engine === 'unknown')) sources.push({ kind: 'gauge', family: SGLANG_GENERATION_THROUGHPUT, across: 'sum' });
  return sources;
}

/** The common series of a run: each quantity the engine exposes, from the first of its names that has samples. */
export type CommonSeries = Partial<Record<CommonServerMetric, ServerPoint[]>>;

export function commonSeries(series: readonly MetricSeries[], engine: ServerEngine = recogniseEngine(series.map((s) => s.name))): CommonSeries {
  const out: CommonSeries = {};
  for (const metric of COMMON_SERVER_METRICS) {
    for (const source of sourcesOf(engine, metric)) {
      const points = fromSource(series, source);
      if (points !== null && points.length > 0) {
        out[metric] = points;
        break;
      }
    }
  }
  return out;
}

/** What a step's server figures are: none of them is invented when the engine lacks the name. */
export interface StepServerFigures {
  runningMean: number | null;
  runningMax: number | null;
  waitingMean: number | null;
  waitingMax: number | null;
  kvCacheUsageMean: number | null;
  kvCacheUsageMax: number | null;
  /** Preemptions counted by the server during the step. */
  preemptions: number | null;
  prefixCacheHitRate: number | null;
  generatedTokensPerSecond: number | null;
  promptTokensPerSecond: number | null;
  queueTimeMeanMs: number | null;
  prefillTimeMeanMs: number | null;
}

/** Points of a series inside a window (its end included). */
const within = (points: readonly ServerPoint[] | undefined, window: { startMs: number; endMs: number }): ServerPoint[] =>
  (points ?? []).filter((p) => p.tMs >= window.startMs && p.tMs <= window.endMs);

const meanOf = (points: readonly ServerPoint[]): number | null => (points.length === 0 ? null : mean(points.map((p) => p.value)));
const maxOf = (points: readonly ServerPoint[]): number | null => (points.length === 0 ? null : Math.max(...points.map((p) => p.value)));

/**
 * The increase of counters over a window: each series from its last sample at or before the
 * window's start (else its first inside) to its last inside, restarts counted from zero. Null when
 * no series has two samples there.
 */
function increaseOver(series: readonly MetricSeries[], window: { startMs: number; endMs: number }): { increase: number; spanMs: number } | null {
  let total = 0;
  let spanMs = 0;
  let any = false;
  for (const s of series) {
    const points = finite(s.samples);
    const before = points.filter(([t]) => t <= window.startMs).at(-1);
    const inside = points.filter(([t]) => t > window.startMs && t <= window.endMs);
    const span = before ? [before, ...inside] : inside;
    if (span.length < 2) continue;
    any = true;
    total += sum(increases(span).map(([, v]) => v));
    spanMs = Math.max(spanMs, span.at(-1)![0] - span[0]![0]);
  }
  return any ? { increase: total, spanMs } : null;
}

/** Counter increase per second over the window. */
function rateOver(series: readonly MetricSeries[], window: { startMs: number; endMs: number }): number | null {
  const over = increaseOver(series, window);
  return over === null || over.spanMs <= 0 ? null : (over.increase * 1000) / over.spanMs;
}

function ratioOver(numerator: readonly MetricSeries[], denominator: readonly MetricSeries[], window: { startMs: number; endMs: number }, scale = 1): number | null {
  const top = increaseOver(numerator, window);
  const bottom = increaseOver(denominator, window);
  return top === null || bottom === null || bottom.increase <= 0 ? null : (top.increase / bottom.increase) * scale;
}

/** A quantity over a window from the first source that has series (counters and histograms from raw counts, not averaged rates). */
function overWindow(series: readonly MetricSeries[], engine: ServerEngine, metric: CommonServerMetric, window: { startMs: number; endMs: number }, gaugeMean: boolean): number | null {
  for (const source of sourcesOf(engine, metric)) {
    let value: number | null | undefined;
    if (source.kind === 'counter') {
      const found = serverSeriesNamed(series, source.sample);
      if (found.length === 0) continue;
      const all = [...found, ...seriesOfAll(series, source.plus)];
      value = metric === 'preemptions' ? (increaseOver(all, window)?.increase ?? null) : rateOver(all, window);
    } else if (source.kind === 'ratio') {
      const hits = serverSeriesNamed(series, source.hits);
      const queries = serverSeriesNamed(series, source.queries);
      if (hits.length === 0 || queries.length === 0) continue;
      value = ratioOver(hits, [...queries, ...seriesOfAll(series, source.queriesPlus)], window);
    } else if (source.kind === 'histogram') {
      const sums = serverSeriesNamed(series, `${source.family}_sum`, source.labels);
      const counts = serverSeriesNamed(series, `${source.family}_count`, source.labels);
      if (sums.length === 0 || counts.length === 0) continue;
      value = ratioOver(sums, counts, window, 1000);
    } else {
      const points = fromSource(series, source);
      if (points === null) continue;
      const inside = within(points, window);
      value = gaugeMean ? meanOf(inside) : maxOf(inside);
    }
    return value;
  }
  return null;
}

/** A step's server figures over its window on the run's clock (see stepWindow). */
export function stepServerFigures(series: readonly MetricSeries[], window: { startMs: number; endMs: number }, engine: ServerEngine = recogniseEngine(series.map((s) => s.name))): StepServerFigures {
  const at = (metric: CommonServerMetric, gaugeMean = true): number | null => overWindow(series, engine, metric, window, gaugeMean);
  return {
    runningMean: at('runningRequests'),
    runningMax: at('runningRequests', false),
    waitingMean: at('waitingRequests'),
    waitingMax: at('waitingRequests', false),
    kvCacheUsageMean: at('kvCacheUsage'),
    kvCacheUsageMax: at('kvCacheUsage', false),
    preemptions: at('preemptions'),
    prefixCacheHitRate: at('prefixCacheHitRate'),
    generatedTokensPerSecond: at('generatedTokens'),
    promptTokensPerSecond: at('promptTokens'),
    queueTimeMeanMs: at('queueTime'),
    prefillTimeMeanMs: at('prefillTime'),
  };
}

/** The first time a series reaches `threshold` (e.g. KV-cache usage 0.95), or null. */
export function firstReached(points: readonly ServerPoint[] | undefined, threshold: number): number | null {
  return (points ?? []).find((p) => p.value >= threshold)?.tMs ?? null;
}

/**
 * The start of the first stretch where a series stayed above `threshold` for at least `minMs`
 * (e.g. waiting requests above zero for two seconds), or null; a stretch still open at the last
 * sample counts when it lasted `minMs`.
 */
export function firstSustainedAbove(points: readonly ServerPoint[] | undefined, threshold: number, minMs: number): number | null {
  let since: number | null = null;
  for (const p of points ?? []) {
    if (p.value > threshold) {
      since ??= p.tMs;
      if (p.tMs - since >= minMs) return since;
    } else since = null;
  }
  return null;
}

/** A step on the run's clock for marks: which step holds a time (steps ordered, windows from stepWindow). */
export function stepAt(steps: readonly { startMs?: number; endMs?: number }[], tMs: number): number | null {
  const index = steps.findIndex((s) => {
    const window = stepWindow(s);
    return window !== null && tMs >= window.startMs && tMs <= window.endMs;
  });
  return index < 0 ? null : index;
}

/** GPU series of a run by quantity, one per GPU index (`gpu:memory_used_mib`, `gpu:utilization_percent`, `gpu:power_watts`, ...). */
export function gpuSeries(series: readonly MetricSeries[], name: string): { gpu: string; points: ServerPoint[] }[] {
  return series
    .filter((s) => s.source === 'gpu' && s.name === name)
    .map((s) => ({ gpu: s.labels['gpu'] ?? '', points: finite(s.samples).map(([tMs, value]) => ({ tMs, value })) }));
}
