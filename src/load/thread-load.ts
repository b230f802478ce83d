/**
 * What the thread that stamps a step's tokens goes through while it runs the step: how late its
 * event loop ran timers (a token read waits as long before it is stamped), how much of the step it
 * was working and on a core, how late it handed requests to the client against their send times,
 * and what it received. gather.ts judges from these whether the client was the limit
 * (client-bound.ts); docs/metrics.md defines each figure.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { LoadFigures, ThreadLoad } from '../format/result';
import { quantileOfSorted } from '../results/stats';
import { Column } from '../results/window';
import { spinningMs } from './schedule';

/** The event-loop delay timer's period: 200 samples a second. */
const LOOP_DELAY_RESOLUTION_MS = 5;

interface CoreTime {
  /** Nanoseconds the thread ran on a core. */
  runNs: number;
  /** Nanoseconds it was ready to run and waited for a core. */
  waitNs: number;
}

/**
 * The calling thread's time on a core and waiting for one, from Linux's /proc/thread-self/schedstat
 * (read by the thread itself, so it names that thread); null where it cannot be read.
 */
function coreTime(): CoreTime | null {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
    const runNs = Number(run);
    const waitNs = Number(wait);
    return Number.isFinite(runNs) && Number.isFinite(waitNs) ? { runNs, waitNs } : null;
  } catch {
    return null;
  }
}

const round = (value: number, decimals: number): number => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** p50, p99 and max of values (sorted here); null for none. */
export function loadFigures(values: Float64Array): LoadFigures | null {
  if (values.length === 0) return null;
  const sorted = values.sort();
  return { p50: quantileOfSorted(sorted, 0.5), p99: quantileOfSorted(sorted, 0.99), max: sorted[sorted.length - 1] as number };
}

/**
 * One step's load on the calling thread, from its construction to `finish()`. The executor notes
 * each dispatch's lateness, every received byte and each record's chunks; the rest it reads from
 * the thread itself.
 */
export class ThreadLoadMeter {
  private readonly delay: IntervalHistogram;
  private readonly startMs: number;
  private readonly startUtilization: EventLoopUtilization;
  private readonly startSpinMs: number;
  private readonly startCore: CoreTime | null;
  private readonly lateness = new Column();
  private reported = 0;
  private chunks = 0;
  private finished: ThreadLoad | undefined;
  /** Bytes of response bodies received; the client adds to it per socket read. */
  bytes = 0;

  constructor() {
    this.delay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    this.delay.enable();
    this.startMs = performance.now();
    this.startUtilization = performance.eventLoopUtilization();
    this.startSpinMs = spinningMs();
    this.startCore = coreTime();
  }

  /** A request went to the client `latenessMs` after it was due. */
  dispatched(latenessMs: number): void {
    this.lateness.push(Math.max(0, latenessMs));
  }

  /** A request ended with this many content chunks. */
  recorded(chunks: number): void {
    this.chunks += chunks;
  }

  /** The send lateness since the previous call, for the live panel. */
  recentLateness(): LoadFigures | null {
    const recent = this.lateness.slice(this.reported);
    this.reported = this.lateness.length;
    return loadFigures(recent);
  }

  /** The step's figures; the meter stops (the first call's figures, on every call). */
  finish(): ThreadLoad {
    this.finished ??= this.measure();
    return this.finished;
  }

  private measure(): ThreadLoad {
    this.delay.disable();
    const wallMs = Math.max(performance.now() - this.startMs, 1e-3);
    const utilization = performance.eventLoopUtilization(this.startUtilization);
    const spunMs = spinningMs() - this.startSpinMs;
    const end = coreTime();
    const start = this.startCore;
    const share = (ms: number): number => round(ms / wallMs, 4);
    // The histogram holds whole periods (resolution plus delay), in nanoseconds.
    const delayMs = (ns: number): number => round(Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS), 3);
    const lateness = loadFigures(this.lateness.slice());
    return {
      loopDelayMs: this.delay.count === 0 ? null : { p50: delayMs(this.delay.percentile(50)), p99: delayMs(this.delay.percentile(99)), max: delayMs(this.delay.max) },
      busy: share(Math.max(0, utilization.active - spunMs)),
      cpuShare: end && start ? share((end.runNs - start.runNs) / 1e6) : null,
      coreWaitShare: end && start ? share((end.waitNs - start.waitNs) / 1e6) : null,
      sendLatenessMs: lateness === null ? null : { p50: round(lateness.p50, 3), p99: round(lateness.p99, 3), max: round(lateness.max, 3) },
      chunksPerSecond: round((this.chunks * 1000) / wallMs, 1),
      bytesPerSecond: round((this.bytes * 1000) / wallMs, 1),
    };
  }
}
