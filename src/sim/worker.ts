/**
 * Entry of dist/sim-worker.js: the simulator in a worker thread. Options come as workerData;
 * the thread answers trace requests and ends when told to close.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { resolveSimConfig, SimConfigError } from './options';
import { startServer } from './server';
import { WorkerCommandSchema, type WorkerReply } from './worker-protocol';
import { messageOf } from '../format/errors';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('sim-worker.js runs as a worker thread (see startSimServer with inWorker).');
  const reply = (message: WorkerReply): void => port.postMessage(message);
  let server;
  try {
    server = await startServer(resolveSimConfig(workerData));
  } catch (e) {
    reply({ type: 'error', message: messageOf(e), configError: e instanceof SimConfigError });
    port.close();
    return;
  }
  const running = server;
  port.on('message', (message: unknown) => {
    const parsed = WorkerCommandSchema.safeParse(message);
    if (!parsed.success) return;
    const command = parsed.data;
    if (command.type === 'trace') {
      reply({ type: 'trace', id: command.id, requests: running.trace() });
    } else {
      void running.close().then(() => port.close());
    }
  });
  reply({ type: 'ready', port: running.port });
}

void main();
