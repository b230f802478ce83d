/**
 * When open-loop requests go out. Send times are computed before a step starts, as absolute
 * offsets from the step start, and the pacer waits for each absolute time: relative sleeps add
 * every timer's lateness to all later requests and drift well below the target rate.
 */
import { performance } from 'node:perf_hooks';
import type { Arrival } from '../format/config';
import { createRandom } from '../workload/random';

/** Send time of each request in seconds from the step start, ascending. */
export type ArrivalSchedule = Float64Array;

export type RampStrategy = 'linear' | 'exponential';

/** A target rate that moves over a step's requests, as vLLM's `--ramp-up-strategy` moves it. */
export interface RampRates {
  strategy: RampStrategy;
  startRate: number;
  endRate: number;
}

export interface ArrivalOptions {
  count: number;
  /** Requests per second: one rate, or a ramp from a start rate to an end rate. */
  rate: number | RampRates;
  arrival: Arrival;
  /** Gamma shape (vLLM's `--burstiness`): 1 is Poisson, below 1 burstier, above 1 smoother. */
  burstiness?: number;
  seed: number;
}

/**
 * The target rate of request `index` of `count` in a ramp, as vLLM's `--ramp-up-strategy` sets
 * it: with progress p = index / (count - 1), start + (end - start) * p (linear) or
 * start * (end / start)^p (exponential).
 */
export function rampRate(index: number, count: number, strategy: RampStrategy, startRate: number, endRate: number): number {
  const progress = index / Math.max(count - 1, 1);
  return strategy === 'linear' ? startRate + (endRate - startRate) * progress : startRate * Math.pow(endRate / startRate, progress);
}

/**
 * `count` send times, in seconds from the step start, ascending: request 0 at 0, and the gap
 * before request i of mean 1 / rate(i), where rate(i) is the one rate or, in a ramp, request i's
 * target rate (rampRate). Gaps are exactly that mean (constant arrivals), exponential with it
 * (Poisson) or gamma with shape = burstiness and that mean (vLLM's definition: variance
 * 1 / (burstiness * rate^2)). The drawn gaps are then rescaled so that the last request goes out
 * exactly when the mean gaps would send it, (count - 1) / rate at one rate: `count` requests keep
 * their rate however the draws fell (unscaled, a short random schedule misses it by several
 * percent). A ramp whose start and end rates are equal is that one rate.
 */
export function arrivalSchedule(options: ArrivalOptions): ArrivalSchedule {
  const { count, rate, arrival, seed } = options;
  if (!Number.isInteger(count) || count < 0) throw new Error(`A schedule needs a whole number of requests, got ${count}.`);
  const rates = typeof rate === 'number' ? [rate] : [rate.startRate, rate.endRate];
  for (const r of rates) if (!(r > 0) || !Number.isFinite(r)) throw new Error(`A schedule needs a positive finite rate, got ${r}.`);
  const ramp = typeof rate === 'number' || rate.startRate === rate.endRate ? null : rate;
  const oneRate = typeof rate === 'number' ? rate : rate.startRate;
  const meanGap = (i: number): number => 1 / (ramp === null ? oneRate : rampRate(i, count, ramp.strategy, ramp.startRate, ramp.endRate));
  // When the mean gaps send request i: at one rate exactly i / rate, not a sum of rounded gaps.
  const meanTimes = new Float64Array(count);
  for (let i = 1; i < count; i++) meanTimes[i] = ramp === null ? i / oneRate : (meanTimes[i - 1] ?? 0) + meanGap(i);
  if (arrival === 'constant') return meanTimes;
  const random = createRandom(seed);
  const burstiness = options.burstiness ?? 1;
  const times = new Float64Array(count);
  // times[i] holds the unscaled sum of the first i gaps until the rescale below.
  for (let i = 1; i < count; i++) {
    const mean = meanGap(i);
    times[i] = (times[i - 1] ?? 0) + (arrival === 'poisson' ? random.exponential(mean) : random.gamma(burstiness, mean / burstiness));
  }
  const last = times[count - 1] ?? 0;
  if (last > 0) {
    const scale = (meanTimes[count - 1] ?? 0) / last;
    for (let i = 1; i < count - 1; i++) times[i] = (times[i] ?? 0) * scale;
    times[count - 1] = meanTimes[count - 1] ?? 0;
  }
  return times;
}

/** Points of a ramp's target rate over the step, at most `limit` of them (evenly by request), for the result and the charts. */
export function rampTargets(schedule: ArrivalSchedule, { strategy, startRate, endRate }: RampRates, limit = 200): { atSec: number; rate: number }[] {
  const count = schedule.length;
  const every = Math.max(1, Math.ceil(count / limit));
  const points: { atSec: number; rate: number }[] = [];
  for (let i = 0; i < count; i += every) points.push({ atSec: schedule[i] ?? 0, rate: rampRate(i, count, strategy, startRate, endRate) });
  if (count > 0 && (count - 1) % every !== 0) points.push({ atSec: schedule[count - 1] ?? 0, rate: endRate });
  return points;
}

/**
 * A user-given absolute schedule (profile kind `schedule`), taken as is. Times must be finite,
 * non-negative and ascending: the error names the first one that is not.
 */
export function absoluteSchedule(times: readonly number[]): ArrivalSchedule {
  const out = new Float64Array(times.length);
  let previous = 0;
  times.forEach((t, i) => {
    if (!Number.isFinite(t) || t < 0) throw new Error(`profile.times[${i}] = ${t}: send times must be non-negative seconds.`);
    if (t < previous) {
      throw new Error(`profile.times must be ascending: times[${i}] = ${t} comes after times[${i - 1}] = ${previous}.`);
    }
    out[i] = t;
    previous = t;
  });
  return out;
}

/** Timers fire up to ~1 ms late; the pacer wakes this much early and covers the rest itself. */
const TIMER_MARGIN_MS = 1.5;
/** At most this long is covered by yielding loops (which keep a core busy); longer goes to a timer. */
const SPIN_LIMIT_MS = 2;

/**
 * Time this thread spent in the yielding turns of `waitUntil` (any number of waits at once counts
 * once): its event loop is busy then without work to do, which the client's busy share leaves out
 * (thread-load.ts).
 */
const spin = { waits: 0, since: 0, totalMs: 0 };

function beginSpin(): void {
  if (spin.waits++ === 0) spin.since = performance.now();
}

function endSpin(): void {
  if (--spin.waits === 0) spin.totalMs += performance.now() - spin.since;
}

/** Milliseconds this thread has spent waiting out send times in yielding turns, so far. */
export function spinningMs(): number {
  return spin.totalMs + (spin.waits > 0 ? performance.now() - spin.since : 0);
}

/**
 * Resolves at (not before) the absolute `performance.now()` time `targetMs`, or as soon as
 * `signal` aborts. A timer covers all but the last 1.5-2 ms; the rest is covered by `setImmediate`
 * turns, which keep the event loop serving sockets while they wait. Lateness never accumulates
 * because every wait aims at an absolute time.
 */
export function waitUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    let timer: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    let spinning = false;
    const finish = (): void => {
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      if (spinning) endSpin();
      spinning = false;
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    signal?.addEventListener('abort', finish, { once: true });
    const step = (): void => {
      timer = undefined;
      immediate = undefined;
      const remaining = targetMs - performance.now();
      if (remaining <= 0) return finish();
      if (remaining > SPIN_LIMIT_MS) timer = setTimeout(step, remaining - TIMER_MARGIN_MS);
      else {
        if (!spinning) beginSpin();
        spinning = true;
        immediate = setImmediate(step);
      }
    };
    step();
  });
}
