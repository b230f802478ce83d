/**
 * One lifecycle for the worker threads we start (the benchmark engine's, the simulator's). Every
 * message from the thread is parsed like any outside input; one that does not fit the protocol,
 * an error, or an exit nobody asked for is a crash, reported once with its reason, after which the
 * thread is ended and nothing more is heard from it. Closing asks the thread to end and gives it a
 * deadline, after which it is terminated: a thread that does not end by itself never holds up its
 * caller.
 */
import { Worker } from 'node:worker_threads';
import type * as z from 'zod';
import { describeZodError } from '../format/result';
import { EXECUTOR_LOST_TEXT, fillPlaceholders } from '../format/warning-text';

/** How long a thread whose uncaught error is ending it may take to exit before it is terminated. */
const DYING_DEADLINE_MS = 1000;

export interface WorkerThreadOptions<Reply> {
  script: string;
  workerData?: unknown;
  /** The protocol of the thread's messages. */
  replies: z.ZodType<Reply>;
  onReply: (reply: Reply) => void;
  /** Called at most once, and never after close() began, with why the thread stopped (a clause: "the worker thread exited with code 1"). */
  onCrash: (reason: string) => void;
}

export interface WorkerThread<Command> {
  send(command: Command): void;
  /**
   * Ends the thread: with `ask`, sends its command and waits up to `deadlineMs` for the thread to
   * exit by itself before terminating it; without, terminates it now. Resolves once it has exited.
   */
  close(ask?: { command: Command; deadlineMs: number }): Promise<void>;
  /** Set once the thread has exited, by a close or a crash. */
  readonly exited: boolean;
}

export function startWorkerThread<Command, Reply>(options: WorkerThreadOptions<Reply>): WorkerThread<Command> {
  const worker = new Worker(options.script, options.workerData === undefined ? {} : { workerData: options.workerData });
  let exited = false;
  let closing: Promise<void> | null = null;
  let crashed = false;
  /** The uncaught error that is ending the thread: reported at its exit, once its messages are in. */
  let dying: string | null = null;
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      exited = true;
      crash(dying ?? fillPlaceholders(EXECUTOR_LOST_TEXT.why.threadExited, [code]));
      resolve();
    }),
  );

  const crash = (reason: string): void => {
    if (crashed || closing) return;
    crashed = true;
    options.onCrash(reason);
    void worker.terminate();
  };

  worker.on('message', (raw: unknown) => {
    if (crashed || closing) return;
    const parsed = options.replies.safeParse(raw);
    if (!parsed.success) {
      crash(fillPlaceholders(EXECUTOR_LOST_TEXT.why.offProtocolWhy, [describeZodError(parsed.error)]));
      return;
    }
    options.onReply(parsed.data);
  });
  // An uncaught error ends the thread, but what it posted before may still be on its way: Node
  // delivers those messages before 'exit' (not before 'error'), so the crash is reported there. A
  // thread that has not exited a second later is ended.
  worker.on('error', (error) => {
    if (dying !== null) return;
    dying = error.message;
    setTimeout(() => crash(error.message), DYING_DEADLINE_MS).unref();
  });

  return {
    send(command) {
      if (!exited && !crashed) worker.postMessage(command);
    },
    close(ask) {
      closing ??= (async () => {
        if (exited) return;
        if (ask && !crashed) {
          worker.postMessage(ask.command);
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ask.deadlineMs)));
          const outcome = await Promise.race([exit, late]);
          clearTimeout(timer);
          if (outcome !== 'late') return;
        }
        await worker.terminate();
        await exit;
      })();
      return closing;
    },
    get exited() {
      return exited;
    },
  };
}
