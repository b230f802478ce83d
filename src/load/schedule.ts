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

export interface ArrivalOptions {
  count: number;
  /** Requests per second. */
  rate: number;
  arrival: Arrival;
  /** Gamma shape (vLLM's `--burstiness`): 1 is Poisson, below 1 burstier, above 1 smoother. */
  burstiness?: number;
  seed: number;
}

/**
 * `count` send times at `rate` per second. Gaps are constant (1 / rate), exponential with mean
 * 1 / rate (Poisson arrivals) or gamma with shape = burstiness and mean 1 / rate (vLLM's
 * definition: variance 1 / (burstiness * rate^2)). The drawn gaps are then rescaled so that the
 * schedule keeps the target rate exactly, as a constant one does: the first request at 0, the
 * last at exactly (count - 1) / rate, so that `count` requests span `count / rate`. Unscaled, a
 * short random schedule misses its rate by several percent.
 */
export function arrivalSchedule(options: ArrivalOptions): ArrivalSchedule {
  const { count, rate, arrival, seed } = options;
  if (!Number.isInteger(count) || count < 0) throw new Error(`A schedule needs a whole number of requests, got ${count}.`);
  if (!(rate > 0) || !Number.isFinite(rate)) throw new Error(`A schedule needs a positive finite rate, got ${rate}.`);
  const times = new Float64Array(count);
  if (arrival === 'constant') {
    for (let i = 0; i < count; i++) times[i] = i / rate;
    return times;
  }
  const random = createRandom(seed);
  const meanGap = 1 / rate;
  const burstiness = options.burstiness ?? 1;
  const drawGap =
    arrival === 'poisson' ? () => random.exponential(meanGap) : () => random.gamma(burstiness, meanGap / burstiness);
  // times[i] holds the unscaled sum of the first i gaps until the rescale below.
  for (let i = 1; i < count; i++) times[i] = (times[i - 1] ?? 0) + drawGap();
  const last = times[count - 1] ?? 0;
  if (last > 0) {
    const scale = (count - 1) / rate / last;
    for (let i = 1; i < count - 1; i++) times[i] = (times[i] ?? 0) * scale;
    times[count - 1] = (count - 1) / rate;
  }
  return times;
}

export type RampStrategy = 'linear' | 'exponential';

export interface RampOptions {
  count: number;
  strategy: RampStrategy;
  startRate: number;
  endRate: number;
  arrival: Arrival;
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
 * Send times of a ramp: request 0 at 0, and the gap before request i drawn at request i's target
 * rate (exactly 1 / rate for constant arrivals; exponential or gamma with that mean otherwise).
 * Random gaps are rescaled, as in arrivalSchedule, so that the last request goes out when the
 * mean gaps would send it: the ramp keeps its pace however the draws fell.
 */
export function rampSchedule(options: RampOptions): ArrivalSchedule {
  const { count, strategy, startRate, endRate, arrival, seed } = options;
  if (!Number.isInteger(count) || count < 0) throw new Error(`A ramp needs a whole number of requests, got ${count}.`);
  for (const rate of [startRate, endRate]) if (!(rate > 0) || !Number.isFinite(rate)) throw new Error(`A ramp needs positive finite rates, got ${rate}.`);
  const random = createRandom(seed);
  const burstiness = options.burstiness ?? 1;
  const times = new Float64Array(count);
  let meanTotal = 0;
  for (let i = 1; i < count; i++) {
    const meanGap = 1 / rampRate(i, count, strategy, startRate, endRate);
    meanTotal += meanGap;
    const gap = arrival === 'constant' ? meanGap : arrival === 'poisson' ? random.exponential(meanGap) : random.gamma(burstiness, meanGap / burstiness);
    times[i] = (times[i - 1] ?? 0) + gap;
  }
  const last = times[count - 1] ?? 0;
  if (arrival !== 'constant' && last > 0) for (let i = 1; i < count; i++) times[i] = ((times[i] ?? 0) * meanTotal) / last;
  return times;
}

/** Points of a ramp's target rate over the step, at most `limit` of them (evenly by request), for the result and the charts. */
export function rampTargets(schedule: ArrivalSchedule, strategy: RampStrategy, startRate: number, endRate: number, limit = 200): { atSec: number; rate: number }[] {
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
    const finish = (): void => {
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
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
      else immediate = setImmediate(step);
    };
    step();
  });
}
