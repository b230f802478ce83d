/**
 * Stop guards: a step that has gone past the knee, or whose requests fail too often, ends early
 * with the reason and the figures that decided it (docs/metrics.md, "Stop guards"). Pure rules over
 * samples and counts, fed by the gather (gather.ts): they know nothing of executors or the network.
 *
 * Over-saturation. An open loop sends on its schedule whatever the server does. Below the knee the
 * server completes requests as fast as they come, so the backlog (requests due by the schedule and
 * not ended yet: queued at the client for a free slot, or in flight) stays level around rate x
 * latency; past it the backlog grows by (offered - served) requests every second, without bound.
 * The guard samples the backlog every sampleIntervalMs(window), and the server's waiting requests at each
 * scrape, and ends the step when either rose over a sustained window (`rose`, twice in a row).
 */
import type { StepWarning } from '../format/result';
import { STEP_WARNING_KINDS } from '../format/result';
import { ERROR_RATE_TEXT, fillPlaceholders, OVER_SATURATED_TEXT } from '../format/warning-text';

/** How often the gather samples the backlog, at most. */
const SAMPLE_INTERVAL_MS = 500;
/** Samples per window, at least: each quarter of it then holds three, above MIN_QUARTER_SAMPLES with a timer's jitter. */
const SAMPLES_PER_WINDOW = 12;

/** The backlog's sampling interval for a sustained window of `windowSec`: every 0.5 s, more often for a window under 6 s. */
export function sampleIntervalMs(windowSec: number): number {
  return Math.min(SAMPLE_INTERVAL_MS, (windowSec * 1000) / SAMPLES_PER_WINDOW);
}
/** A rise must exceed this many standard deviations of a Poisson-like level (its square root). */
const NOISE_SIGMAS = 3;
/** ... and this share of the requests due in the window: completions fall 10% short of arrivals. */
const SHORTFALL = 0.1;
/** ... and this many requests, whatever the rate. */
const MIN_RISE = 3;
/** Samples a window needs in each quarter. */
const MIN_QUARTER_SAMPLES = 2;

export interface Sample {
  /** Seconds from the step start. */
  tSec: number;
  value: number;
}

/** A rise over one window: the mean of its last quarter against its first, and what it had to beat. */
export interface Rise {
  from: number;
  to: number;
  threshold: number;
}

/**
 * Whether `samples` rose over the window (fromSec, toSec]: the mean of its last quarter exceeds the
 * mean of its first by at least max(MIN_RISE, SHORTFALL x due, NOISE_SIGMAS x sqrt(first)), `due`
 * being the requests the schedule made due inside the window. Null when the window holds too few
 * samples to tell.
 */
export function riseOver(samples: readonly Sample[], fromSec: number, toSec: number, due: number): Rise | null {
  const quarter = (toSec - fromSec) / 4;
  const first: number[] = [];
  const last: number[] = [];
  for (const s of samples) {
    if (s.tSec > fromSec && s.tSec <= fromSec + quarter) first.push(s.value);
    else if (s.tSec > toSec - quarter && s.tSec <= toSec) last.push(s.value);
  }
  if (first.length < MIN_QUARTER_SAMPLES || last.length < MIN_QUARTER_SAMPLES) return null;
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  const from = mean(first);
  const to = mean(last);
  const threshold = Math.max(MIN_RISE, SHORTFALL * due, NOISE_SIGMAS * Math.sqrt(Math.max(from, 1)));
  return to - from >= threshold ? { from, to, threshold } : null;
}

export interface SaturationOptions {
  /** The sustained window, seconds. */
  windowSec: number;
  /** Requests the step's schedule makes due in (fromSec, toSec]. */
  dueBetween(fromSec: number, toSec: number): number;
}

/**
 * The over-saturation rule, judged at any moment t (seconds from the step start): the step is
 * over-saturated when its backlog, or the server's waiting requests, rose (riseOver) over the
 * window (t - W, t] and over the window half a window earlier, (t - 1.5 W, t - 0.5 W]: a rise
 * sustained for one and a half windows. It is judged only once the step has filled up: from twice
 * the median latency of its first completions, and never before its first completion, so
 * that the backlog's climb to its level (rate x latency) is not taken for a queue.
 */
export class SaturationGuard {
  private readonly backlog: Sample[] = [];
  private readonly waiting: Sample[] = [];
  private lastWaitingSec = -Infinity;

  constructor(private readonly options: SaturationOptions) {}

  addBacklog(tSec: number, value: number): void {
    this.backlog.push({ tSec, value });
    this.forget(this.backlog, tSec);
  }

  /** The server's waiting requests at a scrape (the same scrape is given once). */
  addWaiting(tSec: number, value: number): void {
    if (tSec <= this.lastWaitingSec) return;
    this.lastWaitingSec = tSec;
    this.waiting.push({ tSec, value });
    this.forget(this.waiting, tSec);
  }

  /** Keeps the samples of the last two windows: all a judgement reads. */
  private forget(samples: Sample[], nowSec: number): void {
    const keepFrom = nowSec - 2 * this.options.windowSec;
    let drop = 0;
    while (drop < samples.length && (samples[drop] as Sample).tSec < keepFrom) drop++;
    if (drop > 0) samples.splice(0, drop);
  }

  /**
   * The stop, when the step is over-saturated at `nowSec`; `filledAtSec` is when it counts as filled
   * up (see the class comment). Null otherwise.
   */
  check(nowSec: number, filledAtSec: number): StepWarning | null {
    const w = this.options.windowSec;
    if (nowSec - 1.5 * w < filledAtSec) return null;
    for (const [samples, signal] of [
      [this.backlog, 'backlog'],
      [this.waiting, 'waiting'],
    ] as const) {
      const due = this.options.dueBetween(nowSec - w, nowSec);
      const now = riseOver(samples, nowSec - w, nowSec, due);
      const before = now && riseOver(samples, nowSec - 1.5 * w, nowSec - 0.5 * w, this.options.dueBetween(nowSec - 1.5 * w, nowSec - 0.5 * w));
      if (now && before) return saturationWarning(signal, now, w, due, nowSec);
    }
    return null;
  }
}

function saturationWarning(signal: 'backlog' | 'waiting', rise: Rise, windowSec: number, due: number, atSec: number): StepWarning {
  const perSecond = (rise.to - rise.from) / (0.75 * windowSec);
  return {
    kind: STEP_WARNING_KINDS.overSaturated,
    message: fillPlaceholders(OVER_SATURATED_TEXT[signal], [atSec.toFixed(1), rise.from.toFixed(1), rise.to.toFixed(1), windowSec, perSecond.toFixed(1), (due / windowSec).toFixed(1)]),
    figures: {
      atSec: round(atSec),
      windowSec,
      from: round(rise.from),
      to: round(rise.to),
      threshold: round(rise.threshold),
      offeredPerSecond: round(due / windowSec),
      ...(signal === 'waiting' ? { serverWaiting: round(rise.to) } : { backlog: round(rise.to) }),
    },
  };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * The error-rate guard: once `minEnded` requests of the step have ended (succeeded or failed; not
 * cancelled), a step whose failed share exceeds `maxRate` must end. Returns the warning then.
 */
export function errorRateStop(failed: number, ended: number, maxRate: number, minEnded: number, scope: 'step' | 'run'): StepWarning | null {
  if (ended < minEnded || ended === 0 || failed / ended <= maxRate) return null;
  const share = failed / ended;
  return {
    kind: STEP_WARNING_KINDS.errorRate,
    message: fillPlaceholders(ERROR_RATE_TEXT[scope], [failed, ended, (share * 100).toFixed(1), (maxRate * 100).toFixed(1)]),
    figures: { failed, ended, errorRate: round(share), maxErrorRate: maxRate },
  };
}
