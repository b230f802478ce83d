/**
 * One executor of a run, serving the gather's commands (executor-protocol.ts) over a link: the
 * parent port of a worker thread (executor-worker.ts, `--workers N`) or a shard's connection to its
 * coordinator (shards.ts). It builds its workload once, then for each step opens a connection pool
 * for its part, begins at the step's start instant on its own clock and sends its records back in
 * batches.
 */
import { performance } from 'node:perf_hooks';
import type { RunConfig } from '../format/config';
import { BadInputError, messageOf } from '../format/errors';
import { describeZodError, type FailoverEvent, type LoadFigures, type RequestRecord } from '../format/result';
import { createWorkload } from '../workload/sources';
import { createTokenCounter } from '../workload/tokenizer';
import { discardPrepared, preparePart, type ExecutorEnv, type ExecutorSink } from './execute';
import { ExecutorCommandSchema, type ExecutorReply } from './executor-protocol';
import { runPart, type ExecutorBase } from './executors';
import type { ExecutorPart } from './plan';
import { waitUntil } from './schedule';

/** Records wait at most this long before they go to the gather, and at most this many go together. */
const BATCH_MS = 10;
const BATCH_RECORDS = 256;

/** Where an executor's commands come from and its replies go. */
export interface ExecutorLink {
  reply(message: ExecutorReply): void;
  /**
   * The run's config and keys, as `init` gives them, made into the executor's base. A worker thread
   * builds it from what it is sent; a shard checks the coordinator's config against its own and
   * keeps its own keys (keys never cross the network).
   */
  base(config: RunConfig, apiKey: string | undefined, apiKeys: readonly (string | undefined)[] | undefined): Promise<ExecutorBase>;
  /** This executor's clock minus `performance.timeOrigin + performance.now()` (a shard's test shift; 0 otherwise). */
  clockShiftMs: number;
  /** `close`: the gather is done with this executor. */
  close(): void;
  /** Sees each part, record batch and end (a shard writes its own file from them). */
  observe?: ExecutorObserver;
}

export interface ExecutorObserver {
  part(part: ExecutorPart): void;
  /** Records and failover events as they go back in a batch. */
  records(records: readonly RequestRecord[], failovers: readonly FailoverEvent[]): void;
  done(): void;
}

const failure = (error: unknown): ExecutorReply => ({ type: 'failed', message: messageOf(error), badInput: error instanceof BadInputError });

/**
 * Builds an executor's base from the run's config and seed, as every executor does. `apiKeys`: with
 * `endpoints` in the config, each endpoint's key in their order.
 */
export async function buildExecutorBase(config: RunConfig, apiKey: string | undefined, apiKeys?: readonly (string | undefined)[]): Promise<ExecutorBase> {
  const tokenCounter = await createTokenCounter(config.tokenizer);
  const workload = await createWorkload(config, tokenCounter);
  return { config, apiKey, ...(apiKeys !== undefined ? { apiKeys } : {}), workload, tokenCounter };
}

/**
 * Tests only: `LLMBENCH_TEST_WORKER_FAULT=W:N:crash|hang` makes executor W, after sending N records
 * back, throw (its thread or shard dies) or block its event loop for good (it stops answering).
 */
function faultHook(executorIndex: () => number): ((sent: number) => void) | null {
  const [worker, records, kind] = (process.env['LLMBENCH_TEST_WORKER_FAULT'] ?? '').split(':');
  if (worker === undefined || records === undefined || (kind !== 'crash' && kind !== 'hang')) return null;
  return (sent) => {
    if (Number(worker) !== executorIndex() || sent < Number(records)) return;
    setImmediate(() => {
      if (kind === 'crash') throw new Error('lost on purpose (LLMBENCH_TEST_WORKER_FAULT)');
      for (;;);
    });
  };
}

/** Serves one executor over `link`; returns the handler for each raw command received. */
export function serveExecutor(link: ExecutorLink): (raw: unknown) => void {
  let base: ExecutorBase | null = null;
  let executorIndex = -1;
  /** The part armed or running: its own stop and drain, which the gather's commands abort. */
  let current: { part: ExecutorPart; prepared: Pick<ExecutorEnv, 'trace'>; stop: AbortController; drain: AbortController } | null = null;
  const fault = faultHook(() => executorIndex);
  let recordsSent = 0;
  const reply = link.reply;

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
      link.observe?.records(records, failovers);
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
    const startMs = atMs - link.clockShiftMs - performance.timeOrigin;
    await waitUntil(startMs);
    const startLateMs = performance.now() - startMs;
    const { sink, flush } = batchingSink();
    try {
      const { usage, load } = await runPart(part.part, startMs, base, { stop: part.stop.signal, drain: part.drain.signal }, sink, part.prepared);
      flush();
      link.observe?.done();
      reply({ type: 'done', usage, load, startLateMs });
    } catch (error) {
      flush();
      link.observe?.done();
      reply(failure(error));
    }
  }

  return (raw: unknown) => {
    const parsed = ExecutorCommandSchema.safeParse(raw);
    if (!parsed.success) {
      reply({ type: 'failed', message: `The executor got an invalid command: ${describeZodError(parsed.error)}`, badInput: false });
      return;
    }
    const command = parsed.data;
    switch (command.type) {
      case 'init':
        link.base(command.config, command.apiKey, command.apiKeys).then(
          (built) => {
            base = built;
            reply({ type: 'ready' });
          },
          (error: unknown) => reply(failure(error)),
        );
        return;
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
          link.observe?.part(part);
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
        link.close();
    }
  };
}
