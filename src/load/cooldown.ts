/**
 * Steps start on an idle server. When a step ends, the client cancels what it still has in flight,
 * but a server may go on with what it had queued (llama.cpp does): the next step would begin behind
 * that backlog, its first requests waiting for the previous step's. So before each step the run
 * reads the server's running and waiting gauges and waits until both are 0, at most the cool-down;
 * where it cannot read them, it pauses after a step that cancelled requests for as long as the
 * server would take to finish them at the rate it served that step (at most the cool-down). The
 * wait is recorded with the step, and a step that begins on a busy server carries a warning.
 */
import { performance } from 'node:perf_hooks';
import type { Step, StepWarning } from '../format/result';
import { STEP_WARNING_KINDS } from '../format/result';
import { BUSY_START_TEXT, fillPlaceholders } from '../format/warning-text';
import type { ServerLoad } from '../observe/monitor';
import { waitUntil } from './schedule';

/** Between two readings of the gauges while waiting (llama.cpp renders /metrics through its task queue: not faster). */
export const IDLE_POLL_MS = 500;

/** What the previous step left behind, for the pause when the gauges cannot be read. */
export interface StepLeftovers {
  /** Requests it cancelled in flight (the server may still run or queue them). */
  cancelled: number;
  /** Its completions per second: how fast the server finished requests. */
  requestsPerSecond: number | null;
}

export interface IdleWait {
  startedOn: NonNullable<Step['startedOn']>;
  /** Set when the step begins on a busy server. */
  warning: StepWarning | null;
}

const busy = (load: ServerLoad): boolean => load.running > 0 || load.waiting > 0;
const roundSec = (ms: number): number => Math.round(ms) / 1000;

/**
 * Waits until the server reads idle, at most `cooldownSec` (0: reads once, does not wait). `readLoad`
 * scrapes the gauges now (null: they cannot be read); `previous` is what the step before left
 * behind (null before the first). A stop ends the wait at once.
 */
export async function waitForIdleServer(
  readLoad: () => Promise<ServerLoad | null>,
  cooldownSec: number,
  previous: StepLeftovers | null,
  signal: AbortSignal,
): Promise<IdleWait> {
  const startedMs = performance.now();
  const deadline = startedMs + cooldownSec * 1000;
  let load = await readLoad();
  while (load !== null && busy(load) && performance.now() < deadline && !signal.aborted) {
    await waitUntil(Math.min(deadline, performance.now() + IDLE_POLL_MS), signal);
    if (signal.aborted) break;
    load = (await readLoad()) ?? load;
  }
  if (load === null) {
    // No gauge: a step that cancelled nothing left the server nothing of ours to finish.
    const cancelled = previous?.cancelled ?? 0;
    if (cancelled > 0 && cooldownSec > 0) {
      const rate = previous?.requestsPerSecond ?? null;
      const estimateSec = rate !== null && rate > 0 ? cancelled / rate : cooldownSec;
      await waitUntil(performance.now() + Math.min(cooldownSec, estimateSec) * 1000, signal);
    }
    return { startedOn: { server: 'unknown', waitedSec: roundSec(performance.now() - startedMs), running: null, waiting: null }, warning: null };
  }
  const waitedSec = roundSec(performance.now() - startedMs);
  const startedOn = { server: busy(load) ? ('busy' as const) : ('idle' as const), waitedSec, running: load.running, waiting: load.waiting };
  if (!busy(load)) return { startedOn, warning: null };
  return {
    startedOn,
    warning: {
      kind: STEP_WARNING_KINDS.busyStart,
      message: fillPlaceholders(BUSY_START_TEXT, [load.running, load.waiting, waitedSec.toFixed(1), cooldownSec]),
      figures: { running: load.running, waiting: load.waiting, waitedSec, cooldownSec },
    },
  };
}
