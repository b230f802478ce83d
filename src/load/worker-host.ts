/**
 * Runs a benchmark in a worker thread (dist/engine-worker.js), so that what the calling thread
 * does (drawing a UI, other extensions) cannot delay the timestamps of streamed tokens. The
 * worker runs the same runBenchmark; its events and final document come back as messages and
 * are parsed here like any outside input.
 */
import * as z from 'zod';
import { ShardRoleSchema } from './shard-protocol';
import { RunConfigSchema, type RunConfig } from '../format/config';
import { RunEventSchema } from '../format/events';
import { ResultDocumentSchema, StepSchema, type ResultDocument } from '../format/result';
import { BadInputError } from '../format/errors';
import { fillPlaceholders, RUNNER_THREAD_TEXT } from '../format/warning-text';
import { startWorkerThread } from '../processes/worker-thread';
import type { RunOptions } from './types';
import { finalizeInterruptedFile } from '../results/writer';

/** Host -> worker. */
export const WorkerCommandSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    config: RunConfigSchema,
    apiKey: z.string().optional(),
    /** Each endpoint's key (null: none) for a run over several endpoints. */
    apiKeys: z.array(z.string().nullable()).optional(),
    resultPath: z.string().optional(),
    shard: ShardRoleSchema.optional(),
  }),
  z.object({ type: z.literal('cancel') }),
]);
export type WorkerCommand = z.input<typeof WorkerCommandSchema>;

/**
 * How a finished run comes back: the document without its request records, which stay in the
 * result file (sending and re-validating 10,000 of them took the calling thread about 190 ms, on
 * the thread the worker exists to keep free). Each step's summary counts what it measured.
 */
export const RunOverviewSchema = ResultDocumentSchema.omit({ steps: true }).extend({
  steps: z.array(StepSchema.omit({ requests: true })),
});
export type RunOverview = z.infer<typeof RunOverviewSchema>;

export function overviewOf(doc: ResultDocument): RunOverview {
  return { ...doc, steps: doc.steps.map(({ requests, ...step }) => step) };
}

/** Worker -> host. */
export const WorkerReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('event'), event: RunEventSchema }),
  z.object({ type: z.literal('done'), overview: RunOverviewSchema }),
  /** runBenchmark rejected: bad configuration, unreadable dataset, a result file that cannot be written. */
  z.object({ type: z.literal('error'), message: z.string(), badInput: z.boolean().default(false) }),
]);
export type WorkerReply = z.input<typeof WorkerReplySchema>;

/**
 * runBenchmark run in a worker thread from `workerScript`, resolving with the run's overview (the
 * result file holds the records). Cancelling `options.signal` asks the worker to cancel (the run
 * comes back `partial`). If the worker
 * dies, the promise rejects with the reason, and the result file is marked partial, keeping
 * every request it recorded.
 */
export function runBenchmarkInWorker(config: RunConfig, options: RunOptions & { workerScript: string }): Promise<RunOverview> {
  return new Promise<RunOverview>((resolve, reject) => {
    let settled = false;
    let runEnded = false;

    const cancel = (): void => worker.send({ type: 'cancel' });
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', cancel);
      outcome();
      void worker.close();
    };
    const worker = startWorkerThread<WorkerCommand, z.output<typeof WorkerReplySchema>>({
      script: options.workerScript,
      replies: WorkerReplySchema,
      onReply: (reply) => {
        if (reply.type === 'event') {
          if (reply.event.type === 'run-end') runEnded = true;
          options.onEvent?.(reply.event);
        } else if (reply.type === 'done') {
          settle(() => resolve(reply.overview));
        } else {
          settle(() => reject(reply.badInput ? new BadInputError(reply.message) : new Error(reply.message)));
        }
      },
      onCrash: (reason) => {
        if (settled) return;
        let message = fillPlaceholders(RUNNER_THREAD_TEXT.plain, [reason]);
        if (options.resultPath !== undefined) {
          const doc = finalizeInterruptedFile(options.resultPath, fillPlaceholders(RUNNER_THREAD_TEXT.file, [reason]));
          if (doc) message = fillPlaceholders(RUNNER_THREAD_TEXT.kept, [reason, options.resultPath, doc.steps.reduce((n, s) => n + s.requests.length, 0)]);
        }
        if (!runEnded) {
          options.onEvent?.({ type: 'log', level: 'error', message });
          options.onEvent?.({ type: 'run-end', status: 'partial', reason: message, resultPath: options.resultPath ?? null });
        }
        settle(() => reject(new Error(message)));
      },
    });

    options.signal?.addEventListener('abort', cancel, { once: true });
    worker.send({
      type: 'start',
      config,
      apiKey: options.apiKey,
      ...(options.apiKeys ? { apiKeys: options.apiKeys.map((key) => key ?? null) } : {}),
      resultPath: options.resultPath,
      ...(options.shard ? { shard: options.shard } : {}),
    });
    if (options.signal?.aborted) cancel();
  });
}
