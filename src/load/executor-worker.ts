/**
 * Entry point of dist/executor-worker.js: one executor of a run in a worker thread of its own
 * (executors.ts's ThreadExecutors starts it), serving its commands (executor-service.ts).
 */
import { parentPort } from 'node:worker_threads';
import { buildExecutorBase, serveExecutor } from './executor-service';

if (!parentPort) throw new Error('executor-worker.js runs only as a worker thread started by a run with --workers.');
const port = parentPort;

port.on(
  'message',
  serveExecutor({
    reply: (message) => port.postMessage(message),
    base: buildExecutorBase,
    clockShiftMs: 0,
    close: () => process.exit(0),
  }),
);
