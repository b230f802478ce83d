/**
 * A trace's slice read once before a run starts: it finds a bad row before anything is sent or
 * written (the message names its line), counts the requests the step will replay, and keeps the
 * load the trace asks for over time (requests per second, in up to 200 buckets) for the live panel
 * and the result. Nothing but counts is kept: a million rows scan in constant memory. The step's
 * executors then read the file again as they replay it.
 */
import type { TraceReplay } from '../format/result';
import type { TraceSource } from '../format/trace';
import { openTrace } from './trace';

/** Buckets of the recorded load kept in a result: the same bound as a ramp's target rates. */
export const RECORDED_RATE_POINTS = 200;

/**
 * Reads the slice `source` selects, at most `limit` entries (a step's warm-up and request limit),
 * and says what it holds. Rejects with the reader's TraceError at a bad row (unless the source
 * skips them) and when the slice has no row to replay.
 */
export async function scanTrace(source: TraceSource, limit = Infinity): Promise<TraceReplay> {
  const reader = await openTrace(source);
  /** Entries per second of scaled time from the slice's first entry. */
  const perSecond: number[] = [];
  let requests = 0;
  let firstRecordedMs: number | null = null;
  let lastRecordedMs = 0;
  let lastAtMs = 0;
  for await (const entry of reader.entries()) {
    if (requests >= limit) break;
    requests++;
    firstRecordedMs ??= entry.recordedMs;
    lastRecordedMs = entry.recordedMs;
    lastAtMs = entry.atMs;
    const second = Math.floor(entry.atMs / 1000);
    while (perSecond.length <= second) perSecond.push(0);
    perSecond[second] = (perSecond[second] ?? 0) + 1;
  }
  const stats = reader.stats;
  return {
    path: source.path,
    format: reader.format,
    timeScale: source.timeScale,
    ...(source.window !== undefined ? { window: source.window } : {}),
    ...(source.maxRequests !== undefined ? { maxRequests: source.maxRequests } : {}),
    rows: stats.rows,
    requests,
    skipped: Object.fromEntries(Object.entries(stats.skipped)),
    failedRequests: stats.failedRequests,
    beforeWindow: stats.beforeWindow,
    recordedSpanSec: (lastRecordedMs - (firstRecordedMs ?? 0)) / 1000,
    scaledSpanSec: lastAtMs / 1000,
    recordedRates: recordedRates(perSecond),
  };
}

/**
 * Requests per second over even buckets of whole seconds (as few seconds each as keep at most
 * RECORDED_RATE_POINTS buckets), each point at its bucket's start.
 */
export function recordedRates(perSecond: readonly number[], points = RECORDED_RATE_POINTS): { atSec: number; rate: number }[] {
  const width = Math.max(1, Math.ceil(perSecond.length / points));
  const out: { atSec: number; rate: number }[] = [];
  for (let start = 0; start < perSecond.length; start += width) {
    let count = 0;
    const end = Math.min(perSecond.length, start + width);
    for (let s = start; s < end; s++) count += perSecond[s] ?? 0;
    out.push({ atSec: start, rate: count / (end - start) });
  }
  return out;
}
