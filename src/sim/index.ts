/**
 * The built-in simulated inference server (docs/simulator.md): `startSimServer` starts it on
 * 127.0.0.1, in this thread or, with `inWorker`, in a worker thread of its own (dist/sim-worker.js)
 * so that a caller doing its own timing (the extension host, a benchmark) does not share a thread
 * with it.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { resolveSimConfig, SimConfigError, type SimConfig, type SimOptionsInput } from './options';
import { startServer } from './server';
import type { RequestTrace } from './trace';
import { WorkerReplySchema, type WorkerCommand } from './worker-protocol';

export { resolveSimConfig, SimConfigError, type SimConfig, type SimOptionsInput } from './options';
export { PRESETS, PRESET_NAMES, DEFAULT_PRESET, type PresetName } from './presets';
export { tokenLateness, type RequestTrace } from './trace';

export interface SimServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  port: number;
  /** The served model name, to put in requests. */
  model: string;
  config: SimConfig;
  /** Finished requests' server-side times (also at GET /sim/trace). */
  trace(): Promise<RequestTrace[]>;
  close(): Promise<void>;
}

export type StartSimOptions = SimOptionsInput & {
  /** Run the server in a worker thread of its own. */
  inWorker?: boolean;
  /** The worker bundle; by default sim-worker.js beside the running bundle (dist/). */
  workerScript?: string;
};

/** Starts a simulator; throws SimConfigError for a configuration the simulated engine refuses. */
export async function startSimServer(options: StartSimOptions = {}): Promise<SimServer> {
  const { inWorker, workerScript, ...simOptions } = options;
  const config = resolveSimConfig(simOptions);
  if (!inWorker) {
    const server = await startServer(config);
    return describe(server.port, config, async () => server.trace(), server.close);
  }
  return startInWorker(simOptions, config, workerScript ?? join(__dirname, 'sim-worker.js'));
}

function describe(port: number, config: SimConfig, trace: () => Promise<RequestTrace[]>, close: () => Promise<void>): SimServer {
  return { baseUrl: `http://127.0.0.1:${port}/v1`, port, model: config.model, config, trace, close };
}

function startInWorker(options: SimOptionsInput, config: SimConfig, script: string): Promise<SimServer> {
  const worker = new Worker(script, { workerData: options });
  const waiting = new Map<number, (requests: RequestTrace[]) => void>();
  let nextId = 0;
  let closing: Promise<void> | null = null;
  const send = (command: WorkerCommand): void => worker.postMessage(command);

  return new Promise<SimServer>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The simulator worker exited (code ${code}) before it was ready.`)));
    worker.on('message', (message: unknown) => {
      const parsed = WorkerReplySchema.safeParse(message);
      if (!parsed.success) return; // not ours to act on; the worker only sends these shapes
      const reply = parsed.data;
      if (reply.type === 'error') {
        reject(reply.configError ? new SimConfigError(reply.message) : new Error(reply.message));
      } else if (reply.type === 'trace') {
        waiting.get(reply.id)?.(reply.requests);
        waiting.delete(reply.id);
      } else if (reply.type === 'ready') {
        resolve(
          describe(
            reply.port,
            config,
            () =>
              new Promise<RequestTrace[]>((done) => {
                const id = nextId++;
                waiting.set(id, done);
                send({ type: 'trace', id });
              }),
            () =>
              (closing ??= new Promise<void>((done) => {
                worker.once('exit', () => done());
                send({ type: 'close' });
              })),
          ),
        );
      }
    });
  });
}
