/**
 * What the gather watches of a trace step besides its records: how many requests went out over the
 * last second (against the load the trace recorded, for the live panel), how late they went out
 * (send lateness: sent minus due, p50/p99/max so far, in constant memory however long the trace),
 * and the warnings a replay that fell behind its trace earns at the step's end.
 */
import type { StepSummary } from '../format/result';
import { LATE_REPLAY_MS } from '../format/trace';
import { fillPlaceholders, TRACE_REPLAY_TEXT } from '../format/warning-text';

/** Lateness buckets grow by 1% (above 10 µs): p50 and p99 within 1% of the exact figure, in a few hundred counters. */
const BUCKET_GROWTH = Math.log(1.01);
const BUCKET_FLOOR_MS = 0.01;
const SEND_WINDOW_MS = 1000;


export interface SendLateness {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

export class SendCounter {
  private readonly recent: number[] = [];
  private readonly buckets = new Map<number, number>();
  private count = 0;
  private max = 0;

  /** A request went out at `atMs` (performance.now()). */
  sent(atMs: number): void {
    this.recent.push(atMs);
  }

  /** Sends per second over the last second (or the step's `windowSec` so far, when shorter). */
  perSecond(nowMs: number, windowSec: number): number {
    const recent = this.recent;
    let drop = 0;
    while (drop < recent.length && (recent[drop] as number) < nowMs - SEND_WINDOW_MS) drop++;
    recent.splice(0, drop);
    return windowSec > 0 ? recent.length / windowSec : 0;
  }

  /** One request's send lateness (sent minus due, ms; an early send counts as 0). */
  late(ms: number): void {
    const value = Math.max(0, ms);
    const bucket = Math.floor(Math.log1p(value / BUCKET_FLOOR_MS) / BUCKET_GROWTH);
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + 1);
    this.count++;
    this.max = Math.max(this.max, value);
  }

  /** p50, p99 (each its bucket's upper edge, never above the max) and max so far; null before any. */
  lateness(): SendLateness | null {
    if (this.count === 0) return null;
    const ordered = [...this.buckets].sort(([a], [b]) => a - b);
    const at = (q: number): number => {
      const rank = Math.ceil(q * this.count);
      let seen = 0;
      for (const [bucket, n] of ordered) {
        seen += n;
        if (seen >= rank) return Math.min(this.max, BUCKET_FLOOR_MS * Math.expm1((bucket + 1) * BUCKET_GROWTH));
      }
      return this.max;
    };
    return { p50: at(0.5), p99: at(0.99), max: this.max, count: this.count };
  }
}

/** The warnings of a trace step at its end: prompts built too late, and a replay that fell behind its trace. */
export function traceStepWarnings(stepName: string, summary: StepSummary, promptsLate: number): string[] {
  const warnings: string[] = [];
  const sent = summary.requests.total;
  if (promptsLate > 0) {
    warnings.push(
      `${stepName}: ${fillPlaceholders(TRACE_REPLAY_TEXT.promptsLate, [promptsLate, sent])}`,
    );
  }
  const lateness = summary.queueMs;
  if (lateness !== null && lateness.p99 !== null && lateness.p99 > LATE_REPLAY_MS) {
    warnings.push(
      `${stepName}: ${fillPlaceholders(TRACE_REPLAY_TEXT.fellBehind, [lateness.p99.toFixed(1), (lateness.max ?? lateness.p99).toFixed(1)])}`,
    );
  }
  return warnings;
}
