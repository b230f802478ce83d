/**
 * From request records to the numbers a step reports. Pure functions: the runner summarizes
 * each finished step with them, and the viewers summarize a step whose file was cut short
 * (summary null). Every definition here is spelled out in docs/metrics.md.
 */
import type { SloConfig } from '../format/config';
import { PERCENTILES, type RequestRecord, type Stats, type StepProfile, type StepSummary } from '../format/result';

/**
 * Count, mean, population standard deviation, min, max and the percentiles of PERCENTILES,
 * interpolated linearly between the two nearest ranks (numpy's default method). Null for no values.
 */
export function computeStats(values: readonly number[]): Stats | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of sorted) squares += (v - mean) * (v - mean);
  const at = (i: number): number => sorted[i] ?? Number.NaN;
  const percentile = (p: number): number => {
    const rank = (p / 100) * (n - 1);
    const below = Math.floor(rank);
    const above = Math.ceil(rank);
    return at(below) + (at(above) - at(below)) * (rank - below);
  };
  const [p50, p66, p75, p80, p90, p95, p98, p99] = PERCENTILES.map(percentile) as [
    number, number, number, number, number, number, number, number,
  ];
  return { count: n, mean, std: Math.sqrt(squares / n), min: at(0), max: at(n - 1), p50, p66, p75, p80, p90, p95, p98, p99 };
}

/** Whether a record counts in statistics: measured (not warm-up) and not cancelled by the run. */
const isMeasured = (r: RequestRecord): boolean => !r.warmup && r.error?.kind !== 'cancelled';
const succeeded = (r: RequestRecord): boolean => r.error === null && r.endMs !== null;

/** End-to-end latency: sent to the last content chunk (or the whole body). */
const latencyOf = (r: RequestRecord): number | null => (r.endMs === null ? null : r.endMs - r.sentMs);
/** Time to first token; only a streamed response has one. */
const ttftOf = (r: RequestRecord): number | null => (r.firstTokenMs === null ? null : r.firstTokenMs - r.sentMs);

/**
 * Time per output token after the first: (latency - TTFT) / (output tokens - 1). Null without
 * a TTFT or a token count, or with a single output token (no time between tokens exists).
 */
export function tpotOf(r: RequestRecord): number | null {
  const latency = latencyOf(r);
  const ttft = ttftOf(r);
  if (latency === null || ttft === null || r.outputTokens === null || r.outputTokens <= 1) return null;
  return (latency - ttft) / (r.outputTokens - 1);
}

/**
 * Whether a successful request met every SLO. TPOT counts as 0 for a response of at most one
 * token (vLLM's rule). A TTFT or TPOT objective cannot be judged without streaming; the caller
 * reports no goodput at all then rather than guessing.
 */
function meetsSlo(r: RequestRecord, slo: SloConfig): boolean {
  const latency = latencyOf(r);
  if (slo.e2eMs !== undefined && (latency === null || latency > slo.e2eMs)) return false;
  const ttft = ttftOf(r);
  if (slo.ttftMs !== undefined && (ttft === null || ttft > slo.ttftMs)) return false;
  if (slo.tpotMs !== undefined) {
    const tpot = r.outputTokens !== null && r.outputTokens <= 1 ? 0 : tpotOf(r);
    if (tpot === null || tpot > slo.tpotMs) return false;
  }
  return true;
}

const hasSlo = (slo: SloConfig | undefined): slo is SloConfig =>
  slo !== undefined && (slo.ttftMs !== undefined || slo.tpotMs !== undefined || slo.e2eMs !== undefined);

const nonNull = <T>(values: (T | null)[]): T[] => values.filter((v): v is T => v !== null);

/**
 * Output tokens per second in consecutive 1-second buckets from `startMs`, highest bucket
 * (vLLM's peak output throughput). A streamed response's tokens are spread evenly over its
 * content chunks (a chunk may carry several); a non-streamed response's land at its end.
 */
function peakOutputTokensPerSecond(records: RequestRecord[], startMs: number): number | null {
  const buckets = new Map<number, number>();
  const add = (atMs: number, tokens: number): void => {
    const bucket = Math.max(0, Math.floor((atMs - startMs) / 1000));
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + tokens);
  };
  for (const r of records) {
    if (r.outputTokens === null || r.endMs === null) continue;
    if (r.chunkMs.length === 0) add(r.endMs, r.outputTokens);
    else for (const t of r.chunkMs) add(t, r.outputTokens / r.chunkMs.length);
  }
  return buckets.size === 0 ? null : Math.max(...buckets.values());
}

/**
 * Requests sent per second: (sends - 1) over the time from the first to the last send, which
 * for a constant schedule equals its rate exactly. Null with fewer than two sends.
 */
function achievedSendRate(records: RequestRecord[]): number | null {
  if (records.length < 2) return null;
  let first = Infinity;
  let last = -Infinity;
  for (const r of records) {
    first = Math.min(first, r.sentMs);
    last = Math.max(last, r.sentMs);
  }
  return last > first ? ((records.length - 1) * 1000) / (last - first) : null;
}

/** Failed requests by error kind, warm-up left out (cancelled ones included, as `cancelled`). */
export function errorCounts(requests: readonly RequestRecord[]): Record<string, number> {
  const errors: Record<string, number> = {};
  for (const r of requests) {
    if (r.warmup || r.error === null) continue;
    errors[r.error.kind] = (errors[r.error.kind] ?? 0) + 1;
  }
  return errors;
}

/**
 * TTFT of every successful measured request that streamed, and ITL: every gap between consecutive
 * content chunks of those requests, pooled (vLLM's definition); each one's latency and TPOT. The
 * viewers' distributions and compare's noise intervals are drawn from these samples.
 */
export function latencySamples(requests: readonly RequestRecord[]): { ttft: number[]; itl: number[]; latency: number[]; tpot: number[] } {
  const ttft: number[] = [];
  const itl: number[] = [];
  const latency: number[] = [];
  const tpot: number[] = [];
  for (const r of requests) {
    if (!isMeasured(r) || !succeeded(r)) continue;
    const first = ttftOf(r);
    if (first !== null) ttft.push(first);
    const whole = latencyOf(r);
    if (whole !== null) latency.push(whole);
    const perToken = tpotOf(r);
    if (perToken !== null) tpot.push(perToken);
    const chunks = r.chunkMs;
    for (let i = 1; i < chunks.length; i++) itl.push((chunks[i] as number) - (chunks[i - 1] as number));
  }
  return { ttft, itl, latency, tpot };
}

/**
 * The summary of one step. Warm-up requests and requests cancelled by the run (duration end,
 * cancel, max errors) are left out of everything but the `cancelled` entry of `errors`;
 * failed requests count in `failed` and `errors` but in no latency or throughput figure.
 */
export function summarizeStep(requests: RequestRecord[], profile: StepProfile, slo?: SloConfig): StepSummary {
  const measured = requests.filter(isMeasured);
  const good = measured.filter(succeeded);
  const failed = measured.filter((r) => r.error !== null);

  const errors = errorCounts(requests);

  // The step's window: first measured send to last measured completion.
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const r of measured) {
    startMs = Math.min(startMs, r.sentMs);
    if (r.endMs !== null) endMs = Math.max(endMs, r.endMs);
  }
  const windowMs = endMs > startMs ? endMs - startMs : null;
  const perSecond = (amount: number): number | null => (windowMs === null ? null : (amount * 1000) / windowMs);

  let outputTokens = 0;
  let inputTokens = 0;
  let busyMs = 0;
  for (const r of good) {
    outputTokens += r.outputTokens ?? 0;
    inputTokens += r.inputTokens ?? 0;
  }
  for (const r of measured) if (r.endMs !== null) busyMs += r.endMs - r.sentMs;

  const { ttft, itl } = latencySamples(requests);
  const sloNeedsStreaming = hasSlo(slo) && (slo.ttftMs !== undefined || slo.tpotMs !== undefined);
  const goodput = !hasSlo(slo) || (sloNeedsStreaming && ttft.length === 0) ? null : perSecond(good.filter((r) => meetsSlo(r, slo)).length);

  return {
    requests: { total: measured.length, completed: good.length, failed: failed.length },
    durationSec: windowMs === null ? null : windowMs / 1000,
    requestsPerSecond: perSecond(good.length),
    outputTokensPerSecond: perSecond(outputTokens),
    totalTokensPerSecond: perSecond(inputTokens + outputTokens),
    peakOutputTokensPerSecond: peakOutputTokensPerSecond(good, startMs),
    achievedConcurrency: windowMs === null ? null : busyMs / windowMs,
    targetRate: profile.rate ?? null,
    achievedRate: achievedSendRate(measured),
    ttftMs: computeStats(ttft),
    itlMs: computeStats(itl),
    tpotMs: computeStats(nonNull(good.map(tpotOf))),
    latencyMs: computeStats(nonNull(good.map(latencyOf))),
    queueMs: computeStats(good.map((r) => r.queueMs)),
    inputTokens: computeStats(nonNull(good.map((r) => r.inputTokens))),
    outputTokens: computeStats(nonNull(good.map((r) => r.outputTokens))),
    goodput,
    errors,
  };
}
