/**
 * Entry point of dist/executor-worker.js: one executor of a run in a worker thread of its own
 * (executors.ts's ThreadExecutors starts it). It builds its workload from the run's config and seed
 * once, then for each step opens a connection pool for its part, begins at the step's start instant
 * and sends its records back in batches (executor-protocol.ts).
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { BadInputError } from '../format/errors';
import { describeZodError, type FailoverEvent, type LoadFigures, type RequestRecord } from '../format/result';
import { createWorkload } from '../workload/sources';
import { createTokenCounter } from '../workload/tokenizer';
import { discardPrepared, preparePart, type ExecutorEnv, type ExecutorSink } from './execute';
import { ExecutorCommandSchema, type ExecutorReply } from './executor-protocol';
import { runPart, type ExecutorBase } from './executors';
import type { ExecutorPart } from './plan';
import { waitUntil } from './schedule';

if (!parentPort) throw new Error('executor-worker.js runs only as a worker thread started by a run with --workers.');
const port = parentPort;

/** Records wait at most this long before they go to the gather, and at most this many go together. */
const BATCH_MS = 10;
const BATCH_RECORDS = 256;

const reply = (message: ExecutorReply): void => port.postMessage(message);
const failure = (error: unknown): ExecutorReply => ({ type: 'failed', message: error instanceof Error ? error.message : String(error), badInput: error instanceof BadInputError });

/**
 * Tests only: `LLMBENCH_TEST_WORKER_FAULT=W:N:crash|hang` makes worker W, after sending N records
 * back, throw (its thread dies) or block its event loop for good (it stops answering).
 */
function faultHook(): ((sent: number) => void) | null {
  const [worker, records, kind] = (process.env['LLMBENCH_TEST_WORKER_FAULT'] ?? '').split(':');
  if (worker === undefined || records === undefined || (kind !== 'crash' && kind !== 'hang')) return null;
  return (sent) => {
    if (Number(worker) !== executorIndex || sent < Number(records)) return;
    setImmediate(() => {
      if (kind === 'crash') throw new Error('lost on purpose (LLMBENCH_TEST_WORKER_FAULT)');
      for (;;);
    });
  };
}

let base: ExecutorBase | null = null;
let executorIndex = -1;
/** The part armed or running: its own stop and drain, which the gather's commands abort. */
let current: { part: ExecutorPart; prepared: Pick<ExecutorEnv, 'trace'>; stop: AbortController; drain: AbortController } | null = null;
const fault = faultHook();
let recordsSent = 0;

/** The sink of a part: records and in-flight counts go back in batches. */
function batchingSink(): { sink: ExecutorSink; flush(): void } {
  let records: RequestRecord[] = [];
  let inFlight = 0;
  let lateness: LoadFigures | null | undefined;
  let failovers: FailoverEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    reply({ type: 'batch', records, inFlight, ...(lateness !== undefined ? { lateness } : {}), ...(failovers.length > 0 ? { failovers } : {}) });
    recordsSent += records.length;
    records = [];
    lateness = undefined;
    failovers = [];
    fault?.(recordsSent);
  };
  const later = (): void => {
    timer ??= setTimeout(flush, BATCH_MS);
  };
  return {
    sink: {
      inFlight(count) {
        inFlight = count;
        later();
      },
      record(record) {
        records.push(record);
        if (records.length >= BATCH_RECORDS) flush();
        else later();
      },
      lateness(recent) {
        lateness = recent;
        later();
      },
      failover(event) {
        failovers.push(event);
        later();
      },
    },
    flush,
  };
}

async function start(atMs: number): Promise<void> {
  const part = current;
  if (part === null || base === null) {
    reply({ type: 'failed', message: 'The executor was told to start without a part.', badInput: false });
    return;
  }
  // The start instant on this thread's clock.
  const startMs = atMs - performance.timeOrigin;
  await waitUntil(startMs);
  const startLateMs = performance.now() - startMs;
  const { sink, flush } = batchingSink();
  try {
    const { usage, load } = await runPart(part.part, startMs, base, { stop: part.stop.signal, drain: part.drain.signal }, sink, part.prepared);
    flush();
    reply({ type: 'done', usage, load, startLateMs });
  } catch (error) {
    flush();
    reply(failure(error));
  }
}

port.on('message', (raw: unknown) => {
  const parsed = ExecutorCommandSchema.safeParse(raw);
  if (!parsed.success) {
    reply({ type: 'failed', message: `The executor got an invalid command: ${describeZodError(parsed.error)}`, badInput: false });
    return;
  }
  const command = parsed.data;
  switch (command.type) {
    case 'init': {
      const { config, apiKey, apiKeys } = command;
      void (async () => {
        const tokenCounter = await createTokenCounter(config.tokenizer);
        const workload = await createWorkload(config, tokenCounter);
        base = { config, apiKey, ...(apiKeys !== undefined ? { apiKeys } : {}), workload, tokenCounter };
      })().then(
        () => reply({ type: 'ready' }),
        (error: unknown) => reply(failure(error)),
      );
      return;
    }
    case 'part': {
      executorIndex = command.part.executor;
      const part = command.part;
      if (base === null) {
        reply({ type: 'failed', message: 'The executor was given a part before its init.', badInput: false });
        return;
      }
      const ready = base;
      void (async () => {
        // Readied before the start instant (a trace's first prompts built), so that its first sends are on time.
        if (current !== null) await discardPrepared(current.prepared);
        current = { part, prepared: await preparePart(part, ready), stop: new AbortController(), drain: new AbortController() };
      })().then(
        () => reply({ type: 'armed' }),
        (error: unknown) => reply(failure(error)),
      );
      return;
    }
    case 'start':
      void start(command.atMs);
      return;
    case 'stop':
      // Before its start or while it runs: a part told to stop before it starts sends nothing.
      current?.stop.abort();
      return;
    case 'drain':
      current?.drain.abort();
      return;
    case 'close':
      process.exit(0);
  }
});
