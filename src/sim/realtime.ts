/**
 * Runs the scheduler against the wall clock. Model time is kept apart from when this thread
 * happens to wake up: a step that starts at model time T ends at exactly T + its modelled
 * duration, whatever the timers do, and the next step starts there. Only the writes are real; how
 * late they are against model time is what the trace measures.
 *
 * Node timers fire up to a millisecond or two late, so a wait ends in three phases: a timer to
 * shortly before the deadline, then setImmediate turns (which still let sockets be served), then a
 * short spin over the last fraction of a millisecond.
 */
import { performance } from 'node:perf_hooks';
import type { Scheduler, Sequence, StepOutcome, StepPlan } from './scheduler';

/** Timer phase ends this long before the deadline (timers fire up to ~1.5 ms late). */
const TIMER_MARGIN_MS = 2;
/** Spin (blocking) only over the last stretch before the deadline. */
const SPIN_MS = 0.15;

export interface EngineListener {
  /** A step begins at model time `atMs` (performance.now() milliseconds). */
  onStepStart(plan: StepPlan, atMs: number): void;
  /** A step ended at model time `atMs`: tokens sampled, sequences finished. */
  onStepEnd(outcome: StepOutcome, atMs: number): void;
}

export class RealtimeEngine {
  private readonly pending: { sequence: Sequence; readyAtMs: number }[] = [];
  private stepping = false;
  private wakeTimer: NodeJS.Timeout | NodeJS.Immediate | null = null;
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
    if (!this.stepping && this.wakeTimer === null) this.waitUntil(readyAtMs, () => this.step(readyAtMs));
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
    this.clearWake();
  }

  private step(startMs: number): void {
    this.wakeTimer = null;
    if (this.closed) return;
    while (this.pending.length > 0 && (this.pending[0] as { readyAtMs: number }).readyAtMs <= startMs) {
      this.scheduler.add((this.pending.shift() as { sequence: Sequence }).sequence);
    }
    const plan = this.scheduler.plan();
    if (plan.scheduled.length === 0) {
      this.stepping = false;
      const next = this.pending[0];
      if (next) this.waitUntil(next.readyAtMs, () => this.step(next.readyAtMs));
      return;
    }
    this.stepping = true;
    this.listener.onStepStart(plan, startMs);
    const endMs = startMs + this.scheduler.stepDurationMs(plan) / this.speedup;
    this.waitUntil(endMs, () => {
      this.wakeTimer = null;
      if (this.closed) return;
      this.listener.onStepEnd(this.scheduler.finish(plan), endMs);
      this.step(endMs);
    });
  }

  private waitUntil(deadlineMs: number, then: () => void): void {
    if (deadlineMs <= performance.now()) {
      // Already due (running behind, or a zero-length step): yield one turn so that sockets are
      // served and a run of due steps cannot recurse without end.
      this.wakeTimer = setImmediate(then);
      return;
    }
    const check = (): void => {
      const remaining = deadlineMs - performance.now();
      if (remaining > TIMER_MARGIN_MS) {
        this.wakeTimer = setTimeout(check, remaining - TIMER_MARGIN_MS);
      } else if (remaining > SPIN_MS) {
        this.wakeTimer = setImmediate(check);
      } else {
        while (performance.now() < deadlineMs) {
          // spin: less than SPIN_MS left, shorter than any timer can wait
        }
        then();
      }
    };
    check();
  }

  private clearWake(): void {
    if (this.wakeTimer === null) return;
    clearTimeout(this.wakeTimer as NodeJS.Timeout);
    clearImmediate(this.wakeTimer as NodeJS.Immediate);
    this.wakeTimer = null;
  }
}
