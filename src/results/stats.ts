/**
 * From request records to the numbers a step reports. Pure functions: the runner summarizes
 * each finished step with them, and the viewers summarize a step whose file was cut short
 * (summary null). Every definition here is spelled out in docs/metrics.md.
 */
import type { SloConfig } from '../format/config';
import { PERCENTILES, type RequestRecord, type SourceCounts, type Stats, type StepProfile, type StepSummary, type StepWarning } from '../format/result';
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
 * Time to the first answer token (AIPerf's TTFO): the first chunk with answer text, reasoning left
 * out. A response without reasoning has its TTFT; one that reasoned but never answered has none.
 */
export function ttfoOf(r: RequestRecord): number | null {
  if (r.reasoning === undefined) return ttftOf(r);
  return r.reasoning.answerFirstMs === null ? null : r.reasoning.answerFirstMs - r.sentMs;
}

/** Answer tokens: the whole output of a response without reasoning. */
const answerTokensOf = (r: RequestRecord): number | null => (r.reasoning === undefined ? r.outputTokens : r.reasoning.answerTokens);
/** Reasoning tokens: 0 for a response without reasoning (when its output was counted). */
const reasoningTokensOf = (r: RequestRecord): number | null => (r.reasoning === undefined ? (r.outputTokens === null ? null : 0) : r.reasoning.tokens);

/**
 * TPOT of the reasoning: its duration (first reasoning token to first answer token, i.e. one gap
 * per reasoning token) over its tokens; when no answer came, from the first to the last reasoning
 * chunk over the tokens less one. Null without streamed reasoning.
 */
export function reasoningTpotOf(r: RequestRecord): number | null {
  const reasoning = r.reasoning;
  if (reasoning === undefined || reasoning.durationMs === null || reasoning.tokens === null) return null;
  if (reasoning.answerFirstMs !== null) return reasoning.tokens > 0 ? reasoning.durationMs / reasoning.tokens : null;
  return reasoning.tokens > 1 ? reasoning.durationMs / (reasoning.tokens - 1) : null;
}

/** TPOT of the answer: (end - first answer token) / (answer tokens - 1); a response without reasoning has its TPOT. */
export function answerTpotOf(r: RequestRecord): number | null {
  if (r.reasoning === undefined) return tpotOf(r);
  const first = r.reasoning.answerFirstMs;
  const tokens = r.reasoning.answerTokens;
  if (first === null || r.endMs === null || tokens === null || tokens <= 1) return null;
  return (r.endMs - first) / (tokens - 1);
}

/**
 * Whether a successful request met every SLO. TPOT counts as 0 for a response of at most one
 * token (vLLM's rule). A TTFT, TTFO or TPOT objective cannot be judged without streaming; the caller
 * reports no goodput at all then rather than guessing.
 */
function meetsSlo(r: RequestRecord, slo: SloConfig): boolean {
  const latency = latencyOf(r);
  if (slo.e2eMs !== undefined && (latency === null || latency > slo.e2eMs)) return false;
  const ttft = ttftOf(r);
  if (slo.ttftMs !== undefined && (ttft === null || ttft > slo.ttftMs)) return false;
  if (slo.ttfoMs !== undefined) {
    const ttfo = ttfoOf(r);
    if (ttfo === null || ttfo > slo.ttfoMs) return false;
  }
  if (slo.tpotMs !== undefined) {
    const tpot = r.outputTokens !== null && r.outputTokens <= 1 ? 0 : tpotOf(r);
    if (tpot === null || tpot > slo.tpotMs) return false;
  }
  return true;
}

const hasSlo = (slo: SloConfig | undefined): slo is SloConfig =>
  slo !== undefined && (slo.ttftMs !== undefined || slo.ttfoMs !== undefined || slo.tpotMs !== undefined || slo.e2eMs !== undefined);

/** Whether the run cut this request on purpose (`cancel` in the config). */
export const cancelledByDesign = (r: RequestRecord): boolean => r.error?.kind === 'cancelled' && r.cancelAfterMs !== undefined;

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
export function latencySamples(requests: readonly RequestRecord[]): { ttft: number[]; itl: number[]; latency: number[]; tpot: number[]; ttfo: number[] } {
  const ttft: number[] = [];
  const itl: number[] = [];
  const latency: number[] = [];
  const tpot: number[] = [];
  const ttfo: number[] = [];
  for (const r of requests) {
    if (!isMeasured(r) || !succeeded(r)) continue;
    const first = ttftOf(r);
    if (first !== null) ttft.push(first);
    const answer = ttfoOf(r);
    if (answer !== null) ttfo.push(answer);
    const whole = latencyOf(r);
    if (whole !== null) latency.push(whole);
    const perToken = tpotOf(r);
    if (perToken !== null) tpot.push(perToken);
    const chunks = r.chunkMs;
    for (let i = 1; i < chunks.length; i++) itl.push((chunks[i] as number) - (chunks[i - 1] as number));
  }
  return { ttft, itl, latency, tpot, ttfo };
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
 * typed columns (about 150 bytes per successful request, 90 per record for its steady window and
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
  /** Successful requests whose output was counted (embeddings have no output count). */
  private outputCounted = 0;
  /** Completed requests per source of their input and output counts. */
  private readonly sources: { input: SourceCounts; output: SourceCounts } = { input: {}, output: {} };
  /** Successful measured requests that reasoned; whether any request returned embedding vectors. */
  private reasoned = 0;
  private embedded = false;
  /** Requests the run chose to cancel (warm-up aside), those it cut, and their output tokens by then. */
  private chosenToCancel = 0;
  private cancelled = { requests: 0, outputTokens: 0 };
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
  // Reasoning: TTFO, the reasoning's duration, both token counts and both phases' TPOT; each
  // request's reasoning-phase chunks and first answer chunk (NaN: none).
  private readonly ttfo = new Column();
  private readonly reasoningMs = new Column();
  private readonly reasoningTokens = new Column();
  private readonly answerTokens = new Column();
  private readonly reasoningTpot = new Column();
  private readonly answerTpot = new Column();
  private readonly reasoningChunks = new Column();
  private readonly answerChunk = new Column();
  /** Every record, for the window the rates are taken over; it holds the chunk times. */
  private readonly window = new WindowCollector();

  constructor(
    private readonly profile: StepProfile,
    private readonly slo?: SloConfig,
    private readonly rates: RateDefinition = 'steady',
  ) {}

  add(r: RequestRecord): void {
    if (!r.warmup && r.error !== null) this.errors[r.error.kind] = (this.errors[r.error.kind] ?? 0) + 1;
    if (!r.warmup && r.cancelAfterMs !== undefined) {
      this.chosenToCancel++;
      if (cancelledByDesign(r)) {
        this.cancelled.requests++;
        this.cancelled.outputTokens += r.outputTokens ?? 0;
      }
    }
    const measured = isMeasured(r);
    const ok = succeeded(r);
    const chunksAt = this.window.add(r, measured, ok, ok && hasSlo(this.slo) && meetsSlo(r, this.slo));
    if (!measured) return;
    this.total++;
    this.firstSendMs = Math.min(this.firstSendMs, r.sentMs);
    this.lastSendMs = Math.max(this.lastSendMs, r.sentMs);
    if (r.error !== null) this.failed++;
    if (!ok) return;
    if (r.outputTokens !== null) this.outputCounted++;
    if (r.embeddings !== undefined) this.embedded = true;
    const reasoning = r.reasoning;
    if (reasoning !== undefined) this.reasoned++;
    this.ttfo.push(orNaN(ttfoOf(r)));
    this.reasoningMs.push(orNaN(reasoning?.durationMs ?? null));
    this.reasoningTokens.push(orNaN(reasoningTokensOf(r)));
    this.answerTokens.push(orNaN(answerTokensOf(r)));
    this.reasoningTpot.push(orNaN(reasoningTpotOf(r)));
    this.answerTpot.push(orNaN(answerTpotOf(r)));
    this.reasoningChunks.push(reasoning?.chunks ?? 0);
    this.answerChunk.push(reasoning === undefined ? 0 : orNaN(reasoning.answerChunk));
    if (r.inputTokensSource !== null) this.sources.input[r.inputTokensSource] = (this.sources.input[r.inputTokensSource] ?? 0) + 1;
    if (r.outputTokensSource !== null) this.sources.output[r.outputTokensSource] = (this.sources.output[r.outputTokensSource] ?? 0) + 1;
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
    const sloNeedsStreaming = hasSlo(slo) && (slo.ttftMs !== undefined || slo.ttfoMs !== undefined || slo.tpotMs !== undefined);
    return {
      requests: { total: this.total, completed, failed: this.failed },
      durationSec: lengthMs === null ? null : lengthMs / 1000,
      requestsPerSecond: counted === null ? null : perSecond(counted.window.completed),
      // Requests that generate nothing (embeddings) have no output rate, not a rate of 0.
      outputTokensPerSecond: counted === null || (completed > 0 && this.outputCounted === 0) ? null : perSecond(counted.window.outputTokens),
      totalTokensPerSecond: counted === null ? null : perSecond(counted.inputTokens + counted.window.outputTokens),
      peakOutputTokensPerSecond: this.peakOutputTokensPerSecond(),
      achievedConcurrency: counted === null || lengthMs === null ? null : counted.busyMs / lengthMs,
      // A ramp's target is its mean over the step; how it moved is in its profile's targetRates.
      targetRate: this.profile.rate ?? this.profile.ramp?.meanRate ?? null,
      achievedRate: this.achievedSendRate(),
      ttftMs: computeStats(ttft),
      itlMs: computeStats(this.chunkGaps()),
      tpotMs: computeStats(this.tpot.present()),
      latencyMs: latency,
      queueMs: computeStats(this.queue.present()),
      inputTokens: computeStats(this.inputTokens.present()),
      outputTokens: computeStats(this.outputTokens.present()),
      tokenSources: { input: { ...this.sources.input }, output: { ...this.sources.output } },
      goodput: counted === null || !hasSlo(slo) || (sloNeedsStreaming && ttft.length === 0) ? null : perSecond(counted.meetingSlo),
      errors: { ...this.errors },
      // Our own runs say what their rates are over; an import's are its tool's.
      ...(this.rates === 'steady' && counted !== null ? { rateWindow: counted.window } : {}),
      ...(this.reasoned > 0 ? this.reasoningFigures() : {}),
      ...(this.embedded ? { embeddingsPerSecond: counted === null ? null : perSecond(counted.embeddings), inputTokensPerSecond: counted === null ? null : perSecond(counted.inputTokens) } : {}),
      ...(this.chosenToCancel > 0 ? { cancelledByDesign: { ...this.cancelled } } : {}),
    };
  }

  /** The reasoning figures, for a step where a measured response reasoned (docs/metrics.md, "Reasoning"). */
  private reasoningFigures(): Partial<StepSummary> {
    const chunks = this.window.chunks;
    const reasoningGaps: number[] = [];
    const answerGaps: number[] = [];
    for (let i = 0; i < this.ttft.length; i++) {
      const first = this.firstChunk.at(i);
      const count = this.chunkCount.at(i);
      const reasoningEnd = first + Math.min(count, this.reasoningChunks.at(i));
      for (let c = first + 1; c < reasoningEnd; c++) reasoningGaps.push(chunks.at(c) - chunks.at(c - 1));
      const answerChunk = this.answerChunk.at(i);
      if (Number.isNaN(answerChunk)) continue;
      for (let c = first + answerChunk + 1; c < first + count; c++) answerGaps.push(chunks.at(c) - chunks.at(c - 1));
    }
    return {
      ttfoMs: computeStats(this.ttfo.present()),
      reasoningMs: computeStats(this.reasoningMs.present()),
      reasoningTokens: computeStats(this.reasoningTokens.present()),
      answerTokens: computeStats(this.answerTokens.present()),
      reasoningItlMs: computeStats(reasoningGaps),
      answerItlMs: computeStats(answerGaps),
      reasoningTpotMs: computeStats(this.reasoningTpot.present()),
      answerTpotMs: computeStats(this.answerTpot.present()),
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

/**
 * A figure measured several times (a run's repeats, a tuner's re-measurements): the mean and the
 * half-width of its 95% interval (null with one value).
 */
export interface MeanInterval {
  n: number;
  mean: number;
  halfWidth: number | null;
}

/** The sample standard deviation (n - 1 in the denominator): how far one measurement of the same thing strays; null below two values. */
export function sampleStdev(values: readonly number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1));
}

/** Mean ± t(0.975, n - 1) · s / √n over the values (s: the sample standard deviation); null without values. */
export function meanInterval(values: readonly number[]): MeanInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  const stdev = sampleStdev(values);
  return { n, mean, halfWidth: stdev === null ? null : (tQuantile975(n - 1) * stdev) / Math.sqrt(n) };
}

/** Steps of each name in order of first appearance: a run with repeats holds one per repeat. */
export function groupByName<T extends { name: string }>(steps: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const step of steps) groups.set(step.name, [...(groups.get(step.name) ?? []), step]);
  return [...groups];
}
