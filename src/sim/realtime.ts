/**
 * Runs the scheduler against the wall clock. Model time is kept apart from when this thread
 * happens to wake up: a step that starts at model time T ends at exactly T + its modelled
 * duration, whatever the timers do, and the next step starts there. The tokens a step sampled
 * are then emitted in batch order, the i-th at T_end + i x outputPerSeqMs (the API server's
 * per-request output work), by a pump that writes each when its time comes. Only the writes are
 * real; how late they are against model time is what the trace measures.
 *
 * Node timers fire up to a millisecond or two late, so a wait ends in three phases: a timer to
 * shortly before the deadline, then short sleeps of the thread (Atomics.wait: a futex with a
 * sub-millisecond timeout) between passes of the event loop, which still let sockets be served,
 * then a spin over the last tenth of a millisecond, because waking from a sleep takes tens of
 * microseconds and sometimes far more (a virtual CPU that went idle). The thread does not spin
 * longer than that: a thread that keeps a core busy is preempted by the kernel when another one
 * (the client's, on a 2-core machine) wants the core, and then writes milliseconds late.
 */
import { performance } from 'node:perf_hooks';
import type { Scheduler, Sequence, StepPlan } from './scheduler';

/** Timer phase ends this long before the deadline (timers fire up to ~1.5 ms late). */
const TIMER_MARGIN_MS = 2;
/** Within the timer margin the thread sleeps at most this long before serving the event loop. */
const SLEEP_SLICE_MS = 0.25;
/** The last stretch before a deadline is spun, not slept. */
const SPIN_MS = 0.1;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread until `deadlineMs` (performance.now() time): asleep, then spinning over the last SPIN_MS. */
function blockUntil(deadlineMs: number): void {
  for (let sleep = deadlineMs - SPIN_MS - performance.now(); sleep > 0; sleep = deadlineMs - SPIN_MS - performance.now()) {
    Atomics.wait(sleeper, 0, 0, sleep);
  }
  while (performance.now() < deadlineMs) {
    // spin: shorter than a wake-up from sleep can be trusted to be
  }
}

export interface EngineListener {
  /** A step begins at model time `atMs` (performance.now() milliseconds). */
  onStepStart(plan: StepPlan, atMs: number): void;
  /** A sampled token leaves the engine; `atMs` is its model time. Called in model-time order. */
  onToken(sequence: Sequence, atMs: number): void;
}

type Wake = { timer: NodeJS.Timeout | null; immediate: NodeJS.Immediate | null };

/** Calls `then` at `deadlineMs` (performance.now() time), as precisely as this thread allows. */
function waitUntil(deadlineMs: number, wake: Wake, then: () => void): void {
  const check = (): void => {
    wake.timer = null;
    wake.immediate = null;
    const remaining = deadlineMs - performance.now();
    if (remaining > TIMER_MARGIN_MS) {
      wake.timer = setTimeout(check, remaining - TIMER_MARGIN_MS);
    } else if (remaining > SLEEP_SLICE_MS) {
      Atomics.wait(sleeper, 0, 0, Math.min(SLEEP_SLICE_MS, remaining - SPIN_MS));
      wake.immediate = setImmediate(check);
    } else {
      blockUntil(deadlineMs);
      then();
    }
  };
  if (deadlineMs <= performance.now()) {
    // Already due (running behind, or a zero-length step): yield one turn so that sockets are
    // served and a run of due steps cannot recurse without end.
    wake.immediate = setImmediate(() => {
      wake.immediate = null;
      then();
    });
  } else {
    check();
  }
}

function cancel(wake: Wake): void {
  if (wake.timer) clearTimeout(wake.timer);
  if (wake.immediate) clearImmediate(wake.immediate);
  wake.timer = null;
  wake.immediate = null;
}

export class RealtimeEngine {
  private readonly pending: { sequence: Sequence; readyAtMs: number }[] = [];
  private stepping = false;
  /** Model time the step in progress ends (meaningful while stepping). */
  private stepEndMs = 0;
  private readonly stepWake: Wake = { timer: null, immediate: null };
  /** Tokens sampled but not yet emitted, in model-time order; `emitted` indexes the next. */
  private emissions: { sequence: Sequence; atMs: number }[] = [];
  private emitted = 0;
  private readonly emitWake: Wake = { timer: null, immediate: null };
  private closed = false;

  constructor(
    readonly scheduler: Scheduler,
    /** Modelled durations are divided by this (1 = real time). */
    private readonly speedup: number,
    private readonly listener: EngineListener,
  ) {}

  /** Sequences that arrived but have not reached the scheduler yet (API overhead). */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Queues a sequence; it reaches the scheduler at `readyAtMs` (arrival + API overhead). */
  submit(sequence: Sequence, readyAtMs: number): void {
    this.pending.push({ sequence, readyAtMs });
    if (!this.stepping && !this.stepWake.timer && !this.stepWake.immediate) {
      waitUntil(readyAtMs, this.stepWake, () => this.step(readyAtMs));
    }
  }

  /** Milliseconds until the engine next has to act (a step end or a token), Infinity when idle. */
  msUntilDue(): number {
    const nextToken = this.emissions[this.emitted]?.atMs ?? Infinity;
    return Math.min(this.stepping ? this.stepEndMs : Infinity, nextToken) - performance.now();
  }

  abort(sequence: Sequence): void {
    const index = this.pending.findIndex((p) => p.sequence === sequence);
    if (index !== -1) {
      this.pending.splice(index, 1);
      sequence.status = 'finished';
    } else {
      this.scheduler.abort(sequence);
    }
  }

  close(): void {
    this.closed = true;
    cancel(this.stepWake);
    cancel(this.emitWake);
  }

  private step(startMs: number): void {
    if (this.closed) return;
    while (this.pending.length > 0 && (this.pending[0] as { readyAtMs: number }).readyAtMs <= startMs) {
      this.scheduler.add((this.pending.shift() as { sequence: Sequence }).sequence);
    }
    const plan = this.scheduler.plan();
    if (plan.scheduled.length === 0) {
      this.stepping = false;
      const next = this.pending[0];
      if (next) waitUntil(next.readyAtMs, this.stepWake, () => this.step(next.readyAtMs));
      return;
    }
    this.stepping = true;
    this.listener.onStepStart(plan, startMs);
    const endMs = startMs + this.scheduler.stepDurationMs(plan) / this.speedup;
    this.stepEndMs = endMs;
    waitUntil(endMs, this.stepWake, () => {
      if (this.closed) return;
      const { sampled } = this.scheduler.finish(plan);
      const spacing = this.scheduler.hardware.outputPerSeqMs / this.speedup;
      sampled.forEach((sequence, i) => this.emissions.push({ sequence, atMs: endMs + i * spacing }));
      this.pump();
      this.step(endMs);
    });
  }

  /** Emits every token whose time has come, then waits for the next one. */
  private pump(): void {
    if (this.closed || this.emitWake.timer || this.emitWake.immediate) return;
    while (this.emitted < this.emissions.length) {
      const next = this.emissions[this.emitted] as { sequence: Sequence; atMs: number };
      if (next.atMs - performance.now() > SLEEP_SLICE_MS) {
        waitUntil(next.atMs, this.emitWake, () => this.pump());
        return;
      }
      blockUntil(next.atMs);
      this.emitted++;
      this.listener.onToken(next.sequence, next.atMs);
    }
    this.emissions = [];
    this.emitted = 0;
  }
}
