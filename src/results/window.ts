/**
 * A step's steady window (docs/metrics.md, "The steady window"): the span its rates are taken
 * over, and what happened inside it. The window opens at the later of the end of warm-up (the first
 * measured send) and the end of the step's fill-up: once every request sent before the first
 * completion has ended, the step has served its first cohort, and completions come as fast as the
 * server delivers them rather than as fast as the first requests happen to finish. It closes at the
 * last send (after it, the load the step offered is no longer there). Inside it, requests/s counts completions, output tokens/s every token received,
 * of requests still in flight at its end as well. Only the records are needed: the same numbers
 * come out in the run, from a file cut short, and after a merge of several executors' records.
 */
import type { RateWindow, RequestRecord, StepWarning } from '../format/result';
import { STEP_WARNING_KINDS } from '../format/result';
import { fillPlaceholders, TOO_SHORT_TEXT } from '../format/warning-text';

/** A column of numbers that grows by doubling: 8 bytes a value, with no object per value. */
export class Column {
  private data = new Float64Array(64);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  at(index: number): number {
    return this.data[index] as number;
  }

  /** A copy of the values from index `from` on. */
  slice(from = 0): Float64Array {
    return this.data.slice(from, this.length);
  }

  /** The values that are numbers (NaN stands for "none" in a column). */
  present(): Float64Array {
    return this.data.subarray(0, this.length).filter((v) => !Number.isNaN(v));
  }
}

/** What the window counted, for the step's rates. */
export interface WindowCounts {
  window: RateWindow;
  /** Milliseconds the rates divide by. */
  lengthMs: number;
  /** Input tokens of the requests whose prefill ended inside the window (their first content chunk, or a whole body's end). */
  inputTokens: number;
  /** Completions inside the window that met every SLO. */
  meetingSlo: number;
  /** Embedding vectors returned by the completions inside the window (api embeddings). */
  embeddings: number;
  /** Sum over all requests of their time in flight inside the window: the mean in flight is this over the length (Little's law). */
  busyMs: number;
}

/** A steady window with fewer completions than this has no rate to give: the span is used instead. */
export const MIN_WINDOW_COMPLETIONS = 2;

/** Token sources that are not the server's count or a tokenizer's. */
const ESTIMATED_SOURCES = new Set(['estimate', 'chunks']);

/**
 * Every record of a step, warm-up, failed and cancelled ones included, kept as columns (about 90
 * bytes a record and 8 a content chunk): the window's ends are known only once the last record is in.
 */
export class WindowCollector {
  private readonly sent = new Column();
  private readonly end = new Column();
  private readonly firstToken = new Column();
  /** 1 for a successful request, 0 otherwise. */
  private readonly ok = new Column();
  private readonly outputTokens = new Column();
  private readonly inputTokens = new Column();
  /** Embedding vectors returned (NaN: not an embeddings request). */
  private readonly embeddings = new Column();
  /** 1 when its output count is an estimate. */
  private readonly estimated = new Column();
  /** 1 when it met every SLO. */
  private readonly slo = new Column();
  /** 1 when measured (not warm-up, not cancelled). */
  private readonly measured = new Column();
  private readonly firstChunk = new Column();
  private readonly chunkCount = new Column();
  /** Every content chunk's arrival, record after record. */
  readonly chunks = new Column();
  private firstMeasuredSendMs = Infinity;
  private spanEndMs = -Infinity;

  /**
   * Adds a record; `measured` (not warm-up, not cancelled), `succeeded` and `metSlo` as the step's
   * statistics judged it. Returns where its chunks start in `chunks`.
   */
  add(r: RequestRecord, measured: boolean, succeeded: boolean, metSlo: boolean): number {
    const start = this.chunks.length;
    this.sent.push(r.sentMs);
    this.end.push(r.endMs ?? Number.NaN);
    this.firstToken.push(r.firstTokenMs ?? Number.NaN);
    this.ok.push(succeeded ? 1 : 0);
    this.outputTokens.push(r.outputTokens ?? Number.NaN);
    this.inputTokens.push(r.inputTokens ?? Number.NaN);
    this.embeddings.push(r.embeddings ?? Number.NaN);
    this.estimated.push(r.outputTokensSource !== null && ESTIMATED_SOURCES.has(r.outputTokensSource) ? 1 : 0);
    this.slo.push(metSlo ? 1 : 0);
    this.measured.push(measured ? 1 : 0);
    this.firstChunk.push(start);
    this.chunkCount.push(r.chunkMs.length);
    for (const t of r.chunkMs) this.chunks.push(t);
    if (measured) {
      this.firstMeasuredSendMs = Math.min(this.firstMeasuredSendMs, r.sentMs);
      if (r.endMs !== null) this.spanEndMs = Math.max(this.spanEndMs, r.endMs);
    }
    return start;
  }

  /** The step's last send (ms from its start), or null before any record. */
  lastSendMs(): number | null {
    let last = -Infinity;
    for (let i = 0; i < this.sent.length; i++) last = Math.max(last, this.sent.at(i));
    return Number.isFinite(last) ? last : null;
  }

  /**
   * The window and what it holds; null without a measured request. A step whose last send comes no
   * later than its window's opening (everything sent before anything completed, one request), or
   * whose window holds fewer than MIN_WINDOW_COMPLETIONS completions, has no steady window: its rates
   * fall back to the span from the first measured send to the last measured end, as they are for
   * `definition` span.
   */
  counts(definition: RateWindow['definition'] = 'steady'): WindowCounts | null {
    if (!Number.isFinite(this.firstMeasuredSendMs)) return null;
    const spanMs = this.spanEndMs > this.firstMeasuredSendMs ? this.spanEndMs - this.firstMeasuredSendMs : null;
    const filledUp = this.fillUpEndMs();
    const lastSend = this.lastSendMs() ?? -Infinity;
    const opensAtFillUp = filledUp > this.firstMeasuredSendMs;
    const steadyStart = opensAtFillUp ? filledUp : this.firstMeasuredSendMs;
    if (definition === 'steady' && Number.isFinite(steadyStart) && lastSend > steadyStart) {
      const steady = this.within(steadyStart, lastSend, { definition: 'steady', opensAt: opensAtFillUp ? 'fill-up' : 'warm-up', spanMs });
      if (steady.window.completed >= MIN_WINDOW_COMPLETIONS) return steady;
    }
    if (spanMs === null) return null;
    return this.within(this.firstMeasuredSendMs, this.spanEndMs, { definition: 'span', opensAt: 'warm-up', spanMs });
  }

  /**
   * The end of the step's fill-up: the latest end among the requests sent before its first completion
   * (its first cohort: a closed loop's first round, an open loop's sends until something came back).
   * Infinity when nothing completed.
   */
  private fillUpEndMs(): number {
    let firstCompletion = Infinity;
    for (let i = 0; i < this.sent.length; i++) if (this.ok.at(i) === 1) firstCompletion = Math.min(firstCompletion, this.end.at(i));
    if (!Number.isFinite(firstCompletion)) return Infinity;
    let cohortEnd = firstCompletion;
    for (let i = 0; i < this.sent.length; i++) {
      if (this.sent.at(i) >= firstCompletion) continue;
      const end = this.end.at(i);
      cohortEnd = Math.max(cohortEnd, Number.isNaN(end) ? Infinity : end);
    }
    return cohortEnd;
  }

  /**
   * Counts inside (startMs, endMs] of a steady window: an instant on its opening edge belongs to
   * what came before. The span counts, as before steady windows, the measured requests only, each
   * whole: those that succeeded, with all their tokens.
   */
  private within(startMs: number, endMs: number, how: { definition: RateWindow['definition']; opensAt: RateWindow['opensAt']; spanMs: number | null }): WindowCounts {
    const span = how.definition === 'span';
    const inside = span ? (t: number): boolean => t >= startMs && t <= endMs : (t: number): boolean => t > startMs && t <= endMs;
    let completed = 0;
    let meetingSlo = 0;
    let embeddings = 0;
    let outputTokens = 0;
    let inputTokens = 0;
    let tokensEstimated = false;
    let busyMs = 0;
    for (let i = 0; i < this.sent.length; i++) {
      if (span && this.measured.at(i) === 0) continue;
      const sent = this.sent.at(i);
      const end = this.end.at(i);
      const ok = this.ok.at(i) === 1;
      if (ok && inside(end)) {
        completed++;
        if (this.slo.at(i) === 1) meetingSlo++;
        const vectors = this.embeddings.at(i);
        if (!Number.isNaN(vectors)) embeddings += vectors;
      }
      // A record without an end (an import's) is in flight for an unknown time: it adds none.
      if (!Number.isNaN(end)) busyMs += Math.max(0, Math.min(end, endMs) - Math.max(sent, startMs));
      const tokens = this.outputTokens.at(i);
      const count = this.chunkCount.at(i);
      let received = 0;
      if (!Number.isNaN(tokens) && tokens > 0) {
        if (count === 0 || span) {
          // A whole body: its tokens arrive with it, and only a completed one was received.
          if (ok && inside(end)) received = tokens;
        } else {
          const first = this.firstChunk.at(i);
          let chunksInside = 0;
          for (let c = first; c < first + count; c++) if (inside(this.chunks.at(c))) chunksInside++;
          received = (tokens * chunksInside) / count;
        }
      }
      if (received > 0) {
        outputTokens += received;
        if (this.estimated.at(i) === 1) tokensEstimated = true;
      }
      const prefilled = span ? (ok ? end : Number.NaN) : count > 0 ? this.firstToken.at(i) : ok ? end : Number.NaN;
      const input = this.inputTokens.at(i);
      if (!Number.isNaN(input) && inside(prefilled)) inputTokens += input;
    }
    const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;
    const lengthMs = endMs - startMs;
    return {
      window: {
        definition: how.definition,
        startMs: roundMs(startMs),
        endMs: roundMs(endMs),
        opensAt: how.opensAt,
        completed,
        outputTokens: Math.round(outputTokens * 1000) / 1000,
        tokensEstimated,
        spanSec: how.spanMs === null ? null : how.spanMs / 1000,
      },
      lengthMs,
      inputTokens,
      meetingSlo,
      embeddings,
      busyMs,
    };
  }
}

/** A step that sent for less than this many times its median latency gets the too-short warning. */
export const TOO_SHORT_LATENCIES = 3;

/** How a step's span is worded: what it sent for (TOO_SHORT_TEXT.sentFor), or from its first send to its last completion (ranFor). */
const SENT_FOR = 'sent';
export const RAN_FROM_FIRST_SEND = 'ran';
/** Sends spread over less than this (s) went out together. */
const AT_ONCE_SEC = 0.05;

/**
 * The too-short warning of a step that offered load for `sendingSec` (from its start to its last
 * send) while its median request took `medianLatencyMs`: null when it is long enough, or either
 * is unknown. `ran` words the span measured, for a file that has another.
 */
export function tooShortWarning(sendingSec: number | null, medianLatencyMs: number | null | undefined, ran: typeof SENT_FOR | typeof RAN_FROM_FIRST_SEND = SENT_FOR): StepWarning | null {
  if (sendingSec === null || medianLatencyMs === null || medianLatencyMs === undefined || !(medianLatencyMs > 0)) return null;
  const latencySec = medianLatencyMs / 1000;
  if (sendingSec >= TOO_SHORT_LATENCIES * latencySec) return null;
  // A closed loop at least as wide as its requests sends them all in a few ms: "0.0 s" would read as a fault.
  const median = latencySec.toFixed(2);
  const message =
    ran === SENT_FOR && sendingSec < AT_ONCE_SEC
      ? fillPlaceholders(TOO_SHORT_TEXT.sentAtOnce, [median, TOO_SHORT_LATENCIES])
      : fillPlaceholders(ran === SENT_FOR ? TOO_SHORT_TEXT.sentFor : TOO_SHORT_TEXT.ranFor, [sendingSec.toFixed(1), median, TOO_SHORT_LATENCIES]);
  return {
    kind: STEP_WARNING_KINDS.tooShort,
    message,
    figures: { sendingSec: Math.round(sendingSec * 1000) / 1000, medianLatencyMs: Math.round(medianLatencyMs * 1000) / 1000 },
  };
}
