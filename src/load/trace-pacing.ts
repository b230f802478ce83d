/**
 * One executor's part of a trace step: it reads the trace file itself (src/workload/trace.ts),
 * keeps the entries the partition gives it (entry k when k mod N is its own), builds their prompts
 * a little ahead of their send times in a bounded queue, and sends each at its scaled recorded
 * time. Nothing of the trace is held beyond the queue: a trace of a million rows costs what a
 * hundred prompts cost.
 *
 * Building a prompt takes the event loop (tens of microseconds with the estimate, more with a
 * tokenizer), so the builder never starts one when a send is due within BUILD_GUARD_MS, and yields
 * to the event loop after each. A prompt that was still not built when its entry was due is sent
 * as soon as it is, and its record says so (`trace.promptLate`): that lateness is the client's.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { RunConfig } from '../format/config';
import { openTrace, type TraceEntry } from '../workload/trace';
import { createTracePromptBuilder } from '../workload/trace-prompts';
import { countPrompt, promptFor } from '../workload/prompt';
import type { PreparedRequest, TokenCounter } from '../workload/types';
import { executorOf, type ExecutorPart, type Pacing } from './plan';
import { waitUntil } from './schedule';

/** Prompts built ahead of their send times, at most: about 0.3 MB each for the longest Mooncake rows. */
export const LOOKAHEAD_REQUESTS = 128;
/** No prompt is started when a send is due within this many milliseconds: a build could make it late. */
export const BUILD_GUARD_MS = 2;

/** What a trace request's record carries of its row. */
export interface TraceRowMark {
  line: number;
  recordedMs: number;
  promptLate?: boolean;
}

/** Sends one request of the step; resolves once it ended. */
export type TraceSend = (prepared: PreparedRequest, index: number, scheduledMs: number, row: TraceRowMark) => Promise<unknown>;

/** A slot under the step's in-flight cap (execute.ts's Slots): false when the step stopped first. */
export interface SlotGate {
  acquire(signal: AbortSignal): Promise<boolean>;
  release(): void;
}

interface Ready {
  entry: TraceEntry;
  prepared: PreparedRequest;
  /** Built after the entry was due. */
  late: boolean;
}

/**
 * One executor's replay of a trace step: opened (the file, the prompt builder, the first prompts
 * built) before the step starts, so that the first requests, due at the step's start, are ready,
 * then run from the step's start instant.
 */
export class TraceReplayer {
  private readonly queue: Ready[] = [];

  private constructor(
    private readonly part: ExecutorPart,
    private readonly entries: AsyncIterator<TraceEntry, void, undefined>,
    private readonly prepare: (entry: TraceEntry) => PreparedRequest,
  ) {}

  private get pacing(): Extract<Pacing, { kind: 'trace' }> {
    return this.part.step.pacing as Extract<Pacing, { kind: 'trace' }>;
  }

  /**
   * Opens the trace for this executor's part and builds its first LOOKAHEAD_REQUESTS prompts.
   * Rejects with the reader's TraceError when the file no longer reads as when the run was planned.
   */
  static async open(part: ExecutorPart, env: { config: RunConfig; tokenCounter: TokenCounter }): Promise<TraceReplayer> {
    const pacing = part.step.pacing as Extract<Pacing, { kind: 'trace' }>;
    const { config, tokenCounter } = env;
    const workload = config.workload.kind === 'synthetic' ? config.workload : undefined;
    const builder = createTracePromptBuilder({
      seed: config.seed,
      counter: tokenCounter,
      blockTokens: pacing.source.blockTokens,
      sharedPrefixTokens: workload?.sharedPrefixTokens ?? 0,
      prefixCount: workload?.prefixCount ?? 1,
    });
    const chat = config.endpoint.api === 'chat';
    const prepare = (entry: TraceEntry): PreparedRequest => {
      const built = builder.prompt(entry);
      const prompt = promptFor(built.text, chat);
      return { prompt, maxTokens: entry.outputTokens, inputTokens: { count: typeof prompt === 'string' ? built.tokens : countPrompt(prompt, tokenCounter), source: tokenCounter.source } };
    };
    const reader = await openTrace(pacing.source);
    const replayer = new TraceReplayer(part, reader.entries()[Symbol.asyncIterator](), prepare);
    try {
      while (replayer.queue.length < LOOKAHEAD_REQUESTS) {
        const entry = await replayer.nextOwned();
        if (entry === null) break;
        replayer.queue.push({ entry, prepared: prepare(entry), late: false });
      }
    } catch (error) {
      await replayer.close();
      throw error;
    }
    return replayer;
  }

  /** The next entry of this executor's part, or null at the slice's end. */
  private async nextOwned(): Promise<TraceEntry | null> {
    const { step, executors, executor } = this.part;
    for (;;) {
      const next = await this.entries.next();
      if (next.done === true || next.value.index >= this.pacing.count) return null;
      if (executorOf(step, executors, next.value.index) === executor) return next.value;
    }
  }

  /** Stops reading the file (the reader closes it). */
  async close(): Promise<void> {
    await this.entries.return?.();
  }

  /**
   * Replays this executor's entries from `startMs` (performance.now()) until the slice ends or the
   * step stops (`signals.stop`) or drains (`signals.drain`); resolves once every request it sent
   * has ended. Rejects with the reader's TraceError when a row no longer reads as when the run was planned.
   */
  async run(startMs: number, signals: { stop: AbortSignal; drain: AbortSignal }, slots: SlotGate | undefined, send: TraceSend): Promise<void> {
    const { stop, drain } = signals;
    const queue = this.queue;
    const ended = (): boolean => stop.aborted || drain.aborted;
    let readingDone = false;
    let readingError: unknown = null;
    /** When the sender's next send is due (performance.now()), while it waits for it. */
    let dueMs: number | null = null;
    let wakeSender: (() => void) | null = null;
    let wakeBuilder: (() => void) | null = null;
    const wake = (which: 'sender' | 'builder'): void => {
      const resume = which === 'sender' ? wakeSender : wakeBuilder;
      if (which === 'sender') wakeSender = null;
      else wakeBuilder = null;
      resume?.();
    };
    const onEnd = (): void => {
      wake('sender');
      wake('builder');
    };
    stop.addEventListener('abort', onEnd, { once: true });
    drain.addEventListener('abort', onEnd, { once: true });

    const build = async (): Promise<void> => {
      for (;;) {
        // A full queue waits for a send; a send about to happen is left alone.
        while (!ended() && (queue.length >= LOOKAHEAD_REQUESTS || (queue.length > 0 && dueMs !== null && dueMs - performance.now() < BUILD_GUARD_MS))) {
          await new Promise<void>((resolve) => (wakeBuilder = resolve));
        }
        if (ended()) return;
        const entry = await this.nextOwned();
        if (entry === null || ended()) return;
        queue.push({ entry, prepared: this.prepare(entry), late: performance.now() > startMs + entry.atMs });
        wake('sender');
        // Lets the sender's timers run between two builds.
        await yieldToEventLoop();
      }
    };
    const building = build().then(
      () => {
        readingDone = true;
        wake('sender');
      },
      (error: unknown) => {
        readingError = error;
        readingDone = true;
        wake('sender');
      },
    );

    const pending = new Set<Promise<unknown>>();
    try {
      for (;;) {
        while (queue.length === 0 && !readingDone && !ended()) await new Promise<void>((resolve) => (wakeSender = resolve));
        const ready = queue.shift();
        if (ready === undefined || ended()) break;
        wake('builder');
        const scheduledMs = ready.entry.atMs;
        dueMs = startMs + scheduledMs;
        await waitUntil(dueMs, stop);
        dueMs = null;
        wake('builder');
        if (ended()) break;
        if (slots && !(await slots.acquire(stop))) break;
        const row: TraceRowMark = { line: ready.entry.line, recordedMs: ready.entry.recordedMs, ...(ready.late ? { promptLate: true } : {}) };
        const sent = send(ready.prepared, ready.entry.index, scheduledMs, row).finally(() => {
          slots?.release();
          pending.delete(sent);
        });
        pending.add(sent);
      }
    } finally {
      // The builder stops before its next entry; a build under way finishes first.
      onEnd();
      stop.removeEventListener('abort', onEnd);
      drain.removeEventListener('abort', onEnd);
      await building;
      queue.length = 0;
      await this.close();
      await Promise.all(pending);
    }
    if (readingError !== null && !ended()) throw readingError;
  }
}
