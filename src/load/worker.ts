/**
 * Entry point of dist/engine-worker.js: runs runBenchmark in a worker thread on the host's
 * command (see worker-host.ts) and sends back its events and final document.
 */
import { parentPort } from 'node:worker_threads';
import { describeZodError } from '../format/result';
import { BadInputError, messageOf } from '../format/errors';
import { runBenchmark } from './runner';
import { overviewOf, WorkerCommandSchema, type WorkerReply } from './worker-host';

if (!parentPort) throw new Error('engine-worker.js runs only as a worker thread started by runBenchmarkInWorker.');
const port = parentPort;
const cancel = new AbortController();
let started = false;

const reply = (message: WorkerReply): void => port.postMessage(message);

port.on('message', (raw: unknown) => {
  const parsed = WorkerCommandSchema.safeParse(raw);
  if (!parsed.success) {
    reply({ type: 'error', message: `The benchmark worker got an invalid command: ${describeZodError(parsed.error)}` });
    return;
  }
  const command = parsed.data;
  if (command.type === 'cancel') {
    cancel.abort();
    return;
  }
  if (started) return;
  started = true;
  runBenchmark(command.config, {
    signal: cancel.signal,
    apiKey: command.apiKey,
    ...(command.apiKeys ? { apiKeys: command.apiKeys.map((key) => key ?? undefined) } : {}),
    resultPath: command.resultPath,
    ...(command.shard ? { shard: command.shard } : {}),
    // The host gets an overview; the records stay in the file.
    keepRecords: command.resultPath === undefined,
    onEvent: (event) => reply({ type: 'event', event }),
  }).then(
    (document) => reply({ type: 'done', overview: overviewOf(document) }),
    (error: unknown) =>
      reply({ type: 'error', message: messageOf(error), badInput: error instanceof BadInputError }),
  );
});
