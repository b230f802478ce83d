/**
 * Where a step's executors run: in this thread (one worker, the run's own thread), or each in a
 * worker thread of its own (`--workers N`). Either way a step is executed the same way: every
 * executor with a share of the step gets its part of the plan, all begin at one start instant, the
 * gather's signals stop or drain them, their records and in-flight counts reach the gather's sink for
 * that executor, and each part ends with what it used of the prompts and what its thread went
 * through. Shards (issue 24) are a third pool over the same exchange (executor-protocol.ts).
 */
import { performance } from 'node:perf_hooks';
import type { RunConfig } from '../format/config';
import { BadInputError } from '../format/errors';
import type { ThreadLoad } from '../format/result';
import { CLIENT_BOUND_TEXT, EXECUTOR_LOST_TEXT, fillPlaceholders } from '../format/warning-text';
import { startWorkerThread, type WorkerThread } from '../processes/worker-thread';
import type { TokenCounter, Workload } from '../workload/types';
import { createDispatcher } from './client';
import { executePart, preparePart, type ExecutorEnv, type ExecutorSink, type StepSignals } from './execute';
import { ExecutorReplySchema, type ExecutorCommand, type ExecutorReplyReceived } from './executor-protocol';
import { partConnections, type ExecutorPart, type PartUsage } from './plan';
import { ThreadLoadMeter } from './thread-load';

/** How often an executor reports its recent send lateness (the live panel's refresh). */
export const LATENESS_REPORT_MS = 250;
/**
 * Between telling the worker threads when a step starts and that instant: long enough for the
 * message to reach every thread on a loaded machine, so that they all begin on time.
 */
const START_LEAD_MS = 20;
/** A worker that has not ended its part this long after the step's stop is taken for hung and ended. */
const STOP_DEADLINE_MS = 5000;
/**
 * A worker running a part reports at least every LATENESS_REPORT_MS; one silent this long has a
 * blocked event loop and is taken for hung and ended.
 */
const SILENCE_LIMIT_MS = 10_000;
/** A worker thread that cannot say it is ready within this long (a dataset loads in it) is taken for lost. */
const READY_DEADLINE_MS = 120_000;

/** How an executor's part ended. */
export interface PartOutcome {
  usage: PartUsage;
  load: ThreadLoad;
  /** How late the executor began after the step's start instant (ms). */
  startLateMs: number;
}

/** What a step's gather gives its executors (gather.ts's StepGather). */
export interface StepSide {
  readonly name: string;
  readonly signals: StepSignals;
  sinkFor(executor: number): ExecutorSink;
  /** The executors begin at `startMs` (this thread's performance.now()). */
  start(startMs: number): void;
  /** Ends the step at once: an executor failed. */
  stopNow(): void;
}

export interface ExecutorPool {
  readonly count: number;
  /**
   * Executes a step's parts, part i by executor i, from one start instant. A part without a share
   * of the step (partConnections 0) is skipped and settles null. A part settles with its outcome,
   * or why it failed: WorkerLostError when its worker was lost; any executor's failure stops the
   * step for all of them.
   */
  execute(parts: readonly ExecutorPart[], step: StepSide): Promise<PromiseSettledResult<PartOutcome | null>[]>;
  close(): Promise<void>;
}

/** A worker thread that crashed, exited or stopped answering: the run ends partial with this message. */
export class WorkerLostError extends Error {}

/** What an executor keeps from one step to the next: built once from the run's config and seed. */
export interface ExecutorBase {
  config: RunConfig;
  apiKey: string | undefined;
  /** With `endpoints` in the config: each endpoint's key, in their order (the first is `apiKey`). */
  apiKeys?: readonly (string | undefined)[];
  workload: Workload;
  tokenCounter: TokenCounter;
}

/**
 * Runs one part in the calling thread: its own connection pool and load meter, its lateness
 * reported every LATENESS_REPORT_MS. Shared by the in-thread pool and the worker threads.
 */
export async function runPart(
  part: ExecutorPart,
  startMs: number,
  base: ExecutorBase,
  signals: StepSignals,
  sink: ExecutorSink,
  prepared: Pick<ExecutorEnv, 'trace'> = {},
): Promise<{ usage: PartUsage; load: ThreadLoad }> {
  const dispatcher = createDispatcher(partConnections(part), base.config.request);
  const meter = new ThreadLoadMeter();
  const report = setInterval(() => sink.lateness(meter.recentLateness()), LATENESS_REPORT_MS);
  try {
    const usage = await executePart(part, startMs, { ...base, dispatcher, meter, ...prepared }, signals, sink);
    return { usage, load: meter.finish() };
  } finally {
    clearInterval(report);
    meter.finish();
    // Nothing is in flight any more: close the step's sockets without waiting on them.
    await dispatcher.destroy();
  }
}

/** The executor of a one-worker run: this thread, which gathers too. */
export class InThreadExecutors implements ExecutorPool {
  readonly count = 1;

  constructor(private readonly base: ExecutorBase) {}

  async execute(parts: readonly ExecutorPart[], step: StepSide): Promise<PromiseSettledResult<PartOutcome | null>[]> {
    const active = parts.map((part) => partConnections(part) > 0);
    // Readied before the step starts: a trace's first prompts are built, not timed.
    const prepared = await Promise.all(parts.map((part, i) => (active[i] ? preparePart(part, this.base) : {})));
    const startMs = performance.now();
    step.start(startMs);
    return Promise.allSettled(
      parts.map(async (part, i) => {
        if (!active[i]) return null;
        try {
          return { ...(await runPart(part, startMs, this.base, step.signals, step.sinkFor(i), prepared[i])), startLateMs: 0 };
        } catch (error) {
          step.stopNow();
          throw error;
        }
      }),
    );
  }

  async close(): Promise<void> {}
}

/** What a worker thread is doing for the pool: waiting to say ready or armed, or running a part. */
type Waiter = { resolve: () => void; reject: (error: Error) => void };
interface Running {
  sink: ExecutorSink;
  step: StepSide;
  resolve: (outcome: PartOutcome) => void;
  reject: (error: Error) => void;
  /** The sink failed (the file cannot be written): the part rejects with this once it has ended. */
  error: Error | null;
}

/**
 * How the pool reaches one executor: a worker thread (startWorkerThread), or a shard's connection
 * (shards.ts). Replies are parsed before `onReply`; `onCrash` says once why the executor is gone.
 */
export type OpenExecutorChannel = (onReply: (reply: ExecutorReplyReceived) => void, onCrash: (reason: string) => void) => WorkerThread<ExecutorCommand>;

/** How an executor is named in a message: `Worker 2 of 4`, `Shard 3 of 4 (host node03, pid 812)`. */
export type ExecutorLabel = (index: number, of: number) => string;

const workerLabel: ExecutorLabel = (index, of) => fillPlaceholders(CLIENT_BOUND_TEXT.who.worker, [index, of]);

/** One executor in a worker thread or behind a shard's connection, as the pool sees it. */
class ExecutorThread {
  private readonly thread: WorkerThread<ExecutorCommand>;
  private waiter: Waiter | null = null;
  private running: Running | null = null;
  /** Requests in flight at its last batch, and when that came. */
  private inFlight = 0;
  private reportedAt = performance.now();
  /** When it last said anything. */
  private heardAt = performance.now();
  /** Why it was lost, once it was. */
  lost: string | null = null;

  constructor(
    readonly index: number,
    private readonly of: number,
    open: OpenExecutorChannel,
    private readonly label: ExecutorLabel,
  ) {
    this.thread = open(
      (reply) => this.onReply(reply),
      (reason) => this.onLost(reason),
    );
  }

  /** Sends a command and waits for `ready` or `armed`, or the thread's loss. */
  private ask(command: ExecutorCommand, deadlineMs?: number): Promise<void> {
    if (this.lost !== null) return Promise.reject(new WorkerLostError(this.lostMessage(this.lost, null)));
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => clearTimeout(timer);
      this.waiter = {
        resolve: () => (done(), resolve()),
        reject: (error) => (done(), reject(error)),
      };
      if (deadlineMs !== undefined) timer = setTimeout(() => this.abandon(fillPlaceholders(EXECUTOR_LOST_TEXT.why.notReady, [deadlineMs / 1000])), deadlineMs);
      this.thread.send(command);
    });
  }

  init(config: RunConfig, apiKey: string | undefined, apiKeys: readonly (string | undefined)[] | undefined): Promise<void> {
    return this.ask({ type: 'init', config, ...(apiKey !== undefined ? { apiKey } : {}), ...(apiKeys !== undefined ? { apiKeys: [...apiKeys] } : {}) }, READY_DEADLINE_MS);
  }

  arm(part: ExecutorPart): Promise<void> {
    return this.ask({ type: 'part', part });
  }

  /** Starts the armed part at `atMs` (this process's clock: timeOrigin + now) and resolves when it has ended. */
  run(atMs: number, step: StepSide): Promise<PartOutcome> {
    if (this.lost !== null) return Promise.reject(new WorkerLostError(this.lostMessage(this.lost, step.name)));
    return new Promise<PartOutcome>((resolve, reject) => {
      this.running = { sink: step.sinkFor(this.index), step, resolve, reject, error: null };
      this.inFlight = 0;
      this.reportedAt = performance.now();
      this.heardAt = this.reportedAt;
      this.thread.send({ type: 'start', atMs });
    });
  }

  signal(command: 'stop' | 'drain'): void {
    this.thread.send({ type: command });
  }

  get busy(): boolean {
    return this.running !== null;
  }

  /** How long a running part's worker has said nothing (0 when it runs none). */
  get silentMs(): number {
    return this.running === null ? 0 : performance.now() - this.heardAt;
  }

  /** Ends a worker that does not answer: its part is lost. */
  abandon(why: string): void {
    this.onLost(why);
    void this.thread.close();
  }

  close(): Promise<void> {
    return this.thread.close({ command: { type: 'close' }, deadlineMs: 1000 });
  }

  private onReply(reply: ExecutorReplyReceived): void {
    this.heardAt = performance.now();
    switch (reply.type) {
      case 'ready':
      case 'armed': {
        const waiter = this.waiter;
        this.waiter = null;
        waiter?.resolve();
        return;
      }
      case 'batch': {
        this.inFlight = reply.inFlight;
        this.reportedAt = performance.now();
        const running = this.running;
        if (running === null || running.error !== null) return;
        try {
          for (const record of reply.records) running.sink.record(record);
          running.sink.inFlight(reply.inFlight);
          if (reply.lateness !== undefined) running.sink.lateness(reply.lateness);
          for (const event of reply.failovers ?? []) running.sink.failover?.(event);
        } catch (error) {
          // The file cannot be written: the step stops, and this part fails once it has ended.
          running.error = error instanceof Error ? error : new Error(String(error));
          running.step.stopNow();
        }
        return;
      }
      case 'done': {
        const running = this.running;
        this.running = null;
        if (running === null) return;
        if (running.error !== null) running.reject(running.error);
        else running.resolve({ usage: reply.usage, load: reply.load, startLateMs: reply.startLateMs });
        return;
      }
      case 'failed': {
        const error = reply.badInput ? new BadInputError(reply.message) : new Error(reply.message);
        const waiter = this.waiter;
        this.waiter = null;
        waiter?.reject(error);
        const running = this.running;
        this.running = null;
        running?.reject(error);
        return;
      }
    }
  }

  private lostMessage(reason: string, step: string | null): string {
    const who = this.label(this.index, this.of);
    if (step === null) return fillPlaceholders(EXECUTOR_LOST_TEXT.stopped, [who, reason]);
    if (this.running === null) return fillPlaceholders(EXECUTOR_LOST_TEXT.during, [who, step, reason]);
    const ago = Math.round(performance.now() - this.reportedAt);
    const requests = fillPlaceholders(this.inFlight === 1 ? EXECUTOR_LOST_TEXT.requests.one : EXECUTOR_LOST_TEXT.requests.many, [this.inFlight]);
    return fillPlaceholders(EXECUTOR_LOST_TEXT.inFlight, [who, step, reason, ago, requests]);
  }

  private onLost(reason: string): void {
    if (this.lost !== null) return;
    this.lost = reason;
    const running = this.running;
    const error = new WorkerLostError(this.lostMessage(reason, running?.step.name ?? null));
    this.running = null;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(error);
    running?.reject(error);
  }
}

/** A worker thread running dist/executor-worker.js, as an executor's channel. */
export function executorThreadChannel(script: string): OpenExecutorChannel {
  return (onReply, onCrash) => startWorkerThread<ExecutorCommand, ExecutorReplyReceived>({ script, replies: ExecutorReplySchema, onReply, onCrash });
}

/**
 * Executors each behind a channel of their own: worker threads started from `script`
 * (dist/executor-worker.js), or a shard run's shards (shards.ts), whose start instant needs a
 * longer lead to cross the network.
 */
export class ThreadExecutors implements ExecutorPool {
  private constructor(
    private readonly threads: ExecutorThread[],
    private readonly startLeadMs: number,
  ) {}

  get count(): number {
    return this.threads.length;
  }

  /** Starts `count` worker threads and has each build its workload; rejects (and ends them) if one cannot. */
  static start(count: number, script: string, config: RunConfig, apiKey: string | undefined, apiKeys?: readonly (string | undefined)[]): Promise<ThreadExecutors> {
    return ThreadExecutors.over(Array.from({ length: count }, () => executorThreadChannel(script)), config, { apiKey, ...(apiKeys !== undefined ? { apiKeys } : {}) }, { startLeadMs: START_LEAD_MS, label: workerLabel });
  }

  /**
   * Executors over the given channels, each told to build its workload; rejects (and ends them) if
   * one cannot. `keys`: the run's key and, with `endpoints`, each endpoint's (a shard's channel
   * does not pass them on).
   */
  static async over(
    channels: readonly OpenExecutorChannel[],
    config: RunConfig,
    keys: Pick<ExecutorBase, 'apiKey' | 'apiKeys'>,
    how: { startLeadMs: number; label: ExecutorLabel },
  ): Promise<ThreadExecutors> {
    const threads = channels.map((open, i) => new ExecutorThread(i, channels.length, open, how.label));
    const pool = new ThreadExecutors(threads, how.startLeadMs);
    const ready = await Promise.allSettled(threads.map((t) => t.init(config, keys.apiKey, keys.apiKeys)));
    const failed = ready.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await pool.close();
      throw failed.reason;
    }
    return pool;
  }

  async execute(parts: readonly ExecutorPart[], step: StepSide): Promise<PromiseSettledResult<PartOutcome | null>[]> {
    const active = parts.flatMap((part, i) => (partConnections(part) > 0 ? [i] : []));
    const armed = await Promise.allSettled(active.map((i) => (this.threads[i] as ExecutorThread).arm(parts[i] as ExecutorPart)));
    // A worker lost before the start: the others start stopped, so that the step ends at once.
    if (armed.some((a) => a.status === 'rejected')) step.stopNow();
    const startAt = performance.now() + this.startLeadMs;
    step.start(startAt);
    const running = active.map((i, n) => (armed[n]?.status === 'rejected' ? Promise.reject((armed[n] as PromiseRejectedResult).reason) : (this.threads[i] as ExecutorThread).run(performance.timeOrigin + startAt, step)));

    const signals = step.signals;
    let deadline: NodeJS.Timeout | undefined;
    const forward = (command: 'stop' | 'drain') => (): void => {
      for (const i of active) (this.threads[i] as ExecutorThread).signal(command);
      if (command !== 'stop') return;
      deadline ??= setTimeout(() => {
        for (const i of active) {
          const thread = this.threads[i] as ExecutorThread;
          if (thread.busy) thread.abandon(fillPlaceholders(EXECUTOR_LOST_TEXT.why.notEnded, [STOP_DEADLINE_MS / 1000]));
        }
      }, STOP_DEADLINE_MS);
    };
    const onStop = forward('stop');
    const onDrain = forward('drain');
    const watchdog = setInterval(() => {
      for (const i of active) {
        const thread = this.threads[i] as ExecutorThread;
        if (thread.silentMs > SILENCE_LIMIT_MS) thread.abandon(fillPlaceholders(EXECUTOR_LOST_TEXT.why.silent, [SILENCE_LIMIT_MS / 1000]));
      }
    }, 1000);
    signals.stop.addEventListener('abort', onStop, { once: true });
    signals.drain.addEventListener('abort', onDrain, { once: true });
    if (signals.stop.aborted) onStop();
    else if (signals.drain.aborted) onDrain();
    try {
      const settled = await Promise.allSettled(
        running.map((outcome) =>
          outcome.catch((error: unknown) => {
            // One executor's failure ends the step for all of them.
            step.stopNow();
            throw error;
          }),
        ),
      );
      const byPart: PromiseSettledResult<PartOutcome | null>[] = parts.map(() => ({ status: 'fulfilled', value: null }));
      active.forEach((i, n) => (byPart[i] = settled[n] as PromiseSettledResult<PartOutcome>));
      return byPart;
    } finally {
      clearInterval(watchdog);
      clearTimeout(deadline);
      signals.stop.removeEventListener('abort', onStop);
      signals.drain.removeEventListener('abort', onDrain);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
