/**
 * Runs a benchmark in a worker thread (dist/engine-worker.js), so that what the calling thread
 * does (drawing a UI, other extensions) cannot delay the timestamps of streamed tokens. The
 * worker runs the same runBenchmark; its events and final document come back as messages and
 * are parsed here like any outside input.
 */
import { Worker } from 'node:worker_threads';
import * as z from 'zod';
import { RunConfigSchema, type RunConfig } from '../format/config';
import { RunEventSchema } from '../format/events';
import { describeZodError, ResultDocumentSchema, StepSchema, type ResultDocument } from '../format/result';
import { BadInputError } from '../format/errors';
import type { RunOptions } from './types';
import { finalizeInterruptedFile } from '../results/writer';

/** Host -> worker. */
export const WorkerCommandSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    config: RunConfigSchema,
    apiKey: z.string().optional(),
    resultPath: z.string().optional(),
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
    const worker = new Worker(options.workerScript);
    let settled = false;
    let runEnded = false;

    const cancel = (): void => worker.postMessage({ type: 'cancel' } satisfies WorkerCommand);
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', cancel);
      outcome();
      void worker.terminate();
    };
    const crash = (reason: string): void => {
      if (settled) return;
      let where = '';
      if (options.resultPath !== undefined) {
        const doc = finalizeInterruptedFile(options.resultPath, `The benchmark worker stopped: ${reason}`);
        const kept = doc ? doc.steps.reduce((n, s) => n + s.requests.length, 0) : 0;
        where = doc ? ` The result file ${options.resultPath} keeps the ${kept} requests recorded before (status partial).` : '';
      }
      const message = `The benchmark worker stopped unexpectedly: ${reason}.${where}`;
      if (!runEnded) {
        options.onEvent?.({ type: 'log', level: 'error', message });
        options.onEvent?.({ type: 'run-end', status: 'partial', reason: message, resultPath: options.resultPath ?? null });
      }
      settle(() => reject(new Error(message)));
    };

    worker.on('message', (raw: unknown) => {
      const parsed = WorkerReplySchema.safeParse(raw);
      if (!parsed.success) {
        crash(`it sent a message that does not fit the protocol (${describeZodError(parsed.error)})`);
        return;
      }
      const reply = parsed.data;
      if (reply.type === 'event') {
        if (reply.event.type === 'run-end') runEnded = true;
        options.onEvent?.(reply.event);
      } else if (reply.type === 'done') {
        settle(() => resolve(reply.overview));
      } else {
        settle(() => reject(reply.badInput ? new BadInputError(reply.message) : new Error(reply.message)));
      }
    });
    worker.on('error', (error) => crash(error.message));
    worker.on('exit', (code) => crash(`the worker thread exited with code ${code}`));

    options.signal?.addEventListener('abort', cancel, { once: true });
    const start: WorkerCommand = { type: 'start', config, apiKey: options.apiKey, resultPath: options.resultPath };
    worker.postMessage(start);
    if (options.signal?.aborted) cancel();
  });
}
