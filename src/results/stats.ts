/**
 * From request records to the numbers a step reports. Pure functions: the runner summarizes
 * each finished step with them, and the viewers summarize a step whose file was cut short
 * (summary null). Every definition here is spelled out in docs/metrics.md.
 */
import type { SloConfig } from '../format/config';
import { PERCENTILES, type RequestRecord, type Stats, type StepProfile, type StepSummary, type StepWarning } from '../format/result';
import { Column, tooShortWarning, WindowCollector } from './window';

/**
 * The ranks a q-quantile (0 to 1) of n values lies between, and how far past the lower one:
 * rank q·(n - 1), interpolated linearly between its two neighbours (numpy's default method).
 */
export function quantileRanks(n: number, q: number): { below: number; above: number; fraction: number } {
  const rank = q * (n - 1);
  const below = Math.floor(rank);
  return { below, above: Math.ceil(rank), fraction: rank - below };
}

/**
 * The q-quantile (0 to 1) of values in ascending order, by `quantileRanks`: the one percentile rule
 * of every figure, curve and interval LLM Bench reports. It reads only the two ranks around q, so
 * values with just those ranks in place (after a selection rather than a sort) serve as well.
 */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const { below, above, fraction } = quantileRanks(sorted.length, q);
  const low = sorted[below] ?? Number.NaN;
  return low + ((sorted[above] ?? Number.NaN) - low) * fraction;
}

/**
 * Count, mean, population standard deviation, min, max and the percentiles of PERCENTILES
 * (`quantileOfSorted`). Null for no values.
 */
export function computeStats(values: ArrayLike<number>): Stats | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of sorted) squares += (v - mean) * (v - mean);
  const at = (i: number): number => sorted[i] ?? Number.NaN;
  const [p50, p66, p75, p80, p90, p95, p98, p99] = PERCENTILES.map((p) => quantileOfSorted(sorted, p / 100)) as [
    number, number, number, number, number, number, number, number,
  ];
  return { count: n, mean, std: Math.sqrt(squares / n), min: at(0), max: at(n - 1), p50, p66, p75, p80, p90, p95, p98, p99 };
}

/** Whether a record counts in statistics: measured (not warm-up) and not cancelled by the run. */
export const isMeasured = (r: RequestRecord): boolean => !r.warmup && r.error?.kind !== 'cancelled';
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

const orNaN = (value: number | null): number => value ?? Number.NaN;

/**
 * How a step's rates are taken: as our runs take them (an open loop over its steady window, a
 * closed loop over its span), or over its span (a tool's records imported as that tool defined them).
 */
export type RateDefinition = 'steady' | 'span';

/**
 * A closed loop (synchronous, concurrency, throughput) keeps its load until its last request ends:
 * each lane sends its next request as the previous one ends, and a step that starts its lanes
 * together completes them in rounds. Its rates are over its span, first measured send to last
 * measured end, which the drain lets hold every round whole; a window closing at the last send
 * would cut a round in two (docs/metrics.md, "The steady window").
 */
export const isClosedLoop = (profile: StepProfile): boolean => profile.kind === 'synchronous' || profile.kind === 'concurrency' || profile.kind === 'throughput';

/**
 * A step's summary, built one request record at a time: what the step's numbers need is kept in
 * typed columns (about 80 bytes per successful request, 80 per record for its steady window and
 * 8 per content chunk), never the records themselves, so a run of millions of requests keeps its
 * memory flat while its file holds every record. Every definition is that of docs/metrics.md;
 * `summarizeStep` gives the same numbers from records.
 */
export class StepAccumulator {
  private total = 0;
  private failed = 0;
  private readonly errors: Record<string, number> = {};
  private firstSendMs = Infinity;
  private lastSendMs = -Infinity;
  // One entry per successful measured request.
  private readonly ttft = new Column();
  private readonly latency = new Column();
  private readonly tpot = new Column();
  private readonly queue = new Column();
  private readonly inputTokens = new Column();
  private readonly outputTokens = new Column();
  private readonly ends = new Column();
  private readonly firstChunk = new Column();
  private readonly chunkCount = new Column();
  /** Every record, for the window the rates are taken over; it holds the chunk times. */
  private readonly window = new WindowCollector();

  constructor(
    private readonly profile: StepProfile,
    private readonly slo?: SloConfig,
    private readonly rates: RateDefinition = 'steady',
  ) {}

  add(r: RequestRecord): void {
    if (!r.warmup && r.error !== null) this.errors[r.error.kind] = (this.errors[r.error.kind] ?? 0) + 1;
    const measured = isMeasured(r);
    const ok = succeeded(r);
    const chunksAt = this.window.add(r, measured, ok, ok && hasSlo(this.slo) && meetsSlo(r, this.slo));
    if (!measured) return;
    this.total++;
    this.firstSendMs = Math.min(this.firstSendMs, r.sentMs);
    this.lastSendMs = Math.max(this.lastSendMs, r.sentMs);
    if (r.error !== null) this.failed++;
    if (!ok) return;
    this.ttft.push(orNaN(ttftOf(r)));
    this.latency.push(orNaN(latencyOf(r)));
    this.tpot.push(orNaN(tpotOf(r)));
    this.queue.push(r.queueMs);
    this.inputTokens.push(orNaN(r.inputTokens));
    this.outputTokens.push(orNaN(r.outputTokens));
    this.ends.push(orNaN(r.endMs));
    this.firstChunk.push(chunksAt);
    this.chunkCount.push(r.chunkMs.length);
  }

  summary(): StepSummary {
    const completed = this.ttft.length;
    const counted = this.window.counts(this.rates === 'steady' && !isClosedLoop(this.profile) ? 'steady' : 'span');
    const lengthMs = counted === null || !(counted.lengthMs > 0) ? null : counted.lengthMs;
    const perSecond = (amount: number): number | null => (lengthMs === null ? null : (amount * 1000) / lengthMs);
    const ttft = this.ttft.present();
    const latency = computeStats(this.latency.present());
    const slo = this.slo;
    const sloNeedsStreaming = hasSlo(slo) && (slo.ttftMs !== undefined || slo.tpotMs !== undefined);
    return {
      requests: { total: this.total, completed, failed: this.failed },
      durationSec: lengthMs === null ? null : lengthMs / 1000,
      requestsPerSecond: counted === null ? null : perSecond(counted.window.completed),
      outputTokensPerSecond: counted === null ? null : perSecond(counted.window.outputTokens),
      totalTokensPerSecond: counted === null ? null : perSecond(counted.inputTokens + counted.window.outputTokens),
      peakOutputTokensPerSecond: this.peakOutputTokensPerSecond(),
      achievedConcurrency: counted === null || lengthMs === null ? null : counted.busyMs / lengthMs,
      targetRate: this.profile.rate ?? null,
      achievedRate: this.achievedSendRate(),
      ttftMs: computeStats(ttft),
      itlMs: computeStats(this.chunkGaps()),
      tpotMs: computeStats(this.tpot.present()),
      latencyMs: latency,
      queueMs: computeStats(this.queue.present()),
      inputTokens: computeStats(this.inputTokens.present()),
      outputTokens: computeStats(this.outputTokens.present()),
      goodput: counted === null || !hasSlo(slo) || (sloNeedsStreaming && ttft.length === 0) ? null : perSecond(counted.meetingSlo),
      errors: { ...this.errors },
      // Our own runs say what their rates are over; an import's are its tool's.
      ...(this.rates === 'steady' && counted !== null ? { rateWindow: counted.window } : {}),
    };
  }

  /**
   * The too-short warning of the step a run just ended (window.ts): it sent from its start to its
   * last send. Said by the run, not by a reader re-summarizing a step cut short (marked partial).
   */
  tooShort(summary: StepSummary): StepWarning | null {
    const lastSend = this.window.lastSendMs();
    return tooShortWarning(lastSend === null ? null : lastSend / 1000, summary.latencyMs?.p50);
  }

  /** ITL: every gap between consecutive content chunks of one request, pooled (vLLM's definition). */
  private chunkGaps(): Float64Array {
    const chunks = this.window.chunks;
    const gaps = new Float64Array(chunks.length);
    let n = 0;
    for (let i = 0; i < this.ttft.length; i++) {
      const first = this.firstChunk.at(i);
      const count = this.chunkCount.at(i);
      for (let c = first + 1; c < first + count; c++) gaps[n++] = chunks.at(c) - chunks.at(c - 1);
    }
    return gaps.subarray(0, n);
  }

  /**
   * Output tokens per second in consecutive 1-second buckets from the step's first send, highest
   * bucket (vLLM's peak output throughput). A streamed response's tokens are spread evenly over its
   * content chunks (a chunk may carry several); a non-streamed response's land at its end.
   */
  private peakOutputTokensPerSecond(): number | null {
    const chunks = this.window.chunks;
    const buckets = new Map<number, number>();
    const add = (atMs: number, tokens: number): void => {
      const bucket = Math.max(0, Math.floor((atMs - this.firstSendMs) / 1000));
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + tokens);
    };
    for (let i = 0; i < this.ttft.length; i++) {
      const tokens = this.outputTokens.at(i);
      const end = this.ends.at(i);
      if (Number.isNaN(tokens) || Number.isNaN(end)) continue;
      const first = this.firstChunk.at(i);
      const count = this.chunkCount.at(i);
      if (count === 0) add(end, tokens);
      else for (let c = first; c < first + count; c++) add(chunks.at(c), tokens / count);
    }
    return buckets.size === 0 ? null : Math.max(...buckets.values());
  }

  /**
   * Requests sent per second: (sends - 1) over the time from the first to the last send, which for
   * a constant schedule equals its rate exactly. Null with fewer than two sends.
   */
  private achievedSendRate(): number | null {
    if (this.total < 2 || !(this.lastSendMs > this.firstSendMs)) return null;
    return ((this.total - 1) * 1000) / (this.lastSendMs - this.firstSendMs);
  }
}

/** A step's summary from its records (a file cut short, an import): the accumulator's numbers. */
export function summarizeStep(requests: readonly RequestRecord[], profile: StepProfile, slo?: SloConfig, rates: RateDefinition = 'steady'): StepSummary {
  const accumulator = new StepAccumulator(profile, slo, rates);
  for (const r of requests) accumulator.add(r);
  return accumulator.summary();
}
