/**
 * Whether the client itself was the limit of a step: a thread that stamps tokens and had no time to
 * spare reads each token late, and the latencies it records grow with the client's load, not the
 * server's. The rule and its thresholds are docs/metrics.md's ("Is the client the limit?"), measured
 * with `npm run bench:scale` (docs/performance.md).
 */
import { STEP_WARNING_KINDS, type ClientLoad, type StepWarning, type ThreadLoad } from '../format/result';
import { CLIENT_BOUND_TEXT, fillPlaceholders } from '../format/warning-text';

/** A worker whose event loop worked this share of the step (waits for send times left out) had no time to spare. */
export const BUSY_LIMIT = 0.9;
/** Event-loop delay p99 (ms) past which token stamps are late by as much, whatever held the loop up. */
export const LOOP_DELAY_LIMIT_MS = 10;
/** Send lateness p99 (ms) past which the client did not keep its schedule. */
export const SEND_LATENESS_LIMIT_MS = 10;
/** With this busy share the thread's own work is what held it up: more workers help. */
const OWN_WORK_BUSY = 0.5;
/** A thread that waited for a core this share of the step was held up by the machine, not by its own work. */
const CORE_WAIT_LIMIT = 0.25;
/** Workers are added until each would be this busy. */
const BUSY_TARGET = 0.5;

const percent = (share: number): string => `${Math.round(share * 100)}%`;

/** The first figure of a thread that crossed its threshold, or null. */
function crossed(thread: ThreadLoad): { figure: string; value: number; threshold: number } | null {
  const busy = thread.busy ?? 0;
  if (busy >= BUSY_LIMIT) return { figure: 'busy', value: busy, threshold: BUSY_LIMIT };
  const delay = thread.loopDelayMs?.p99 ?? 0;
  if (delay >= LOOP_DELAY_LIMIT_MS) return { figure: 'loopDelayMs.p99', value: delay, threshold: LOOP_DELAY_LIMIT_MS };
  const late = thread.sendLatenessMs?.p99 ?? 0;
  if (late >= SEND_LATENESS_LIMIT_MS) return { figure: 'sendLatenessMs.p99', value: late, threshold: SEND_LATENESS_LIMIT_MS };
  return null;
}

/**
 * The workers (or shards) that would keep each one at BUSY_TARGET, never more than `maxWorkers`: what to suggest.
 */
function workersNeeded(load: ClientLoad, maxWorkers: number): number {
  const busy = load.threads.reduce((sum, t) => sum + (t.busy ?? 0), 0);
  return Math.min(maxWorkers, Math.max(load.workers + 1, Math.ceil(busy / BUSY_TARGET)));
}

/**
 * The step's client-bound warning, if any of its workers crossed a threshold: the worst one's figure,
 * what it means and what to do. `maxWorkers`: the most workers this machine allows (cores - 1).
 * `sender`: what the load's threads are; in a shard run each is a shard (a process, maybe on
 * another machine), which more shards relieve, not more workers.
 */
export function clientBoundWarnings(load: ClientLoad, maxWorkers: number, sender: 'worker' | 'shard' = 'worker'): StepWarning[] {
  let worst: { worker: number; thread: ThreadLoad; figure: string; value: number; threshold: number } | null = null;
  for (const thread of load.threads) {
    const over = crossed(thread);
    if (over !== null && (worst === null || over.value / over.threshold > worst.value / worst.threshold)) worst = { worker: thread.worker, thread, ...over };
  }
  if (worst === null) return [];
  const { worker, thread, figure, value, threshold } = worst;
  const who =
    load.workers === 1 ? CLIENT_BOUND_TEXT.who.client : fillPlaceholders(sender === 'shard' ? CLIENT_BOUND_TEXT.who.shard : CLIENT_BOUND_TEXT.who.worker, [worker, load.workers]);
  const busy = thread.busy ?? 0;
  const what =
    figure === 'busy'
      ? fillPlaceholders(CLIENT_BOUND_TEXT.what.busy, [who, percent(value), percent(threshold)])
      : figure === 'loopDelayMs.p99'
        ? fillPlaceholders(CLIENT_BOUND_TEXT.what.loopDelay, [who, value.toFixed(1), threshold])
        : fillPlaceholders(CLIENT_BOUND_TEXT.what.sendLateness, [who, value.toFixed(1), threshold]);
  const waited = thread.coreWaitShare ?? 0;
  let advice: string;
  if (waited >= CORE_WAIT_LIMIT) {
    advice = fillPlaceholders(sender === 'shard' ? CLIENT_BOUND_TEXT.advice.coreWaitShards : CLIENT_BOUND_TEXT.advice.coreWaitWorkers, [percent(waited)]);
  } else if (sender === 'shard' && (busy >= OWN_WORK_BUSY || figure === 'busy')) {
    // Shards run on as many machines as the launcher gives: no one machine's cores bound them.
    advice = fillPlaceholders(CLIENT_BOUND_TEXT.advice.moreShards, [workersNeeded(load, Number.POSITIVE_INFINITY)]);
  } else if (busy >= OWN_WORK_BUSY || figure === 'busy') {
    const needed = workersNeeded(load, maxWorkers);
    advice = needed > load.workers ? fillPlaceholders(CLIENT_BOUND_TEXT.advice.moreWorkers, [needed]) : CLIENT_BOUND_TEXT.advice.noCore;
  } else {
    advice = fillPlaceholders(CLIENT_BOUND_TEXT.advice.heldUp, [percent(busy)]);
  }
  // The figure that crossed is named by its key, e.g. { 'loopDelayMs.p99': 14.2, threshold: 10 }.
  return [{ kind: STEP_WARNING_KINDS.clientBound, message: fillPlaceholders(CLIENT_BOUND_TEXT.joined, [what, advice]), figures: { [figure]: value, threshold, worker, workers: load.workers } }];
}

/** Figures of a client-bound warning beside the one that crossed. */
const CONTEXT_FIGURES = new Set(['threshold', 'worker', 'workers']);

/** A client-bound warning's crossed figure (its name, e.g. `loopDelayMs.p99`), its value and threshold; null for any other warning. */
export function crossedFigure(warning: StepWarning): { figure: string; value: number; threshold: number } | null {
  if (warning.kind !== STEP_WARNING_KINDS.clientBound) return null;
  const crossed = Object.entries(warning.figures).find(([name]) => !CONTEXT_FIGURES.has(name));
  const threshold = warning.figures['threshold'];
  return crossed === undefined || threshold === undefined ? null : { figure: crossed[0], value: crossed[1], threshold };
}
