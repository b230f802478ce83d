/**
 * The built-in simulated inference server (docs/simulator.md): `startSimServer` starts it on
 * 127.0.0.1, in this thread or, with `inWorker`, in a worker thread of its own (dist/sim-worker.js)
 * so that a caller doing its own timing (the extension host, a benchmark) does not share a thread
 * with it.
 */
import { join } from 'node:path';
import { startWorkerThread } from '../processes/worker-thread';
import { resolveSimConfig, SimConfigError, type SimConfig, type SimOptionsInput } from './options';
import { startServer } from './server';
import type { RequestTrace } from './trace';
import { WorkerReplySchema, type WorkerCommand, type WorkerReply } from './worker-protocol';

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

/** How long a simulator's thread may take to close its server and end once asked, before it is ended. */
const CLOSE_DEADLINE_MS = 5000;

function startInWorker(options: SimOptionsInput, config: SimConfig, script: string): Promise<SimServer> {
  const waiting = new Map<number, { resolve: (requests: RequestTrace[]) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  /** Why the thread stopped, once it has. */
  let stopped: Error | null = null;

  return new Promise<SimServer>((resolve, reject) => {
    const thread = startWorkerThread<WorkerCommand, WorkerReply>({
      script,
      workerData: options,
      replies: WorkerReplySchema,
      onCrash: (reason) => {
        stopped = new Error(`The simulator worker stopped: ${reason}.`);
        reject(stopped);
        for (const call of waiting.values()) call.reject(stopped);
        waiting.clear();
      },
      onReply: (reply) => {
        if (reply.type === 'error') {
          reject(reply.configError ? new SimConfigError(reply.message) : new Error(reply.message));
          void thread.close();
        } else if (reply.type === 'trace') {
          waiting.get(reply.id)?.resolve(reply.requests);
          waiting.delete(reply.id);
        } else {
          resolve(
            describe(
              reply.port,
              config,
              () =>
                new Promise<RequestTrace[]>((done, fail) => {
                  if (stopped) return fail(stopped);
                  const id = nextId++;
                  waiting.set(id, { resolve: done, reject: fail });
                  thread.send({ type: 'trace', id });
                }),
              async () => {
                await thread.close({ command: { type: 'close' }, deadlineMs: CLOSE_DEADLINE_MS });
                stopped ??= new Error('The simulator was closed.');
                for (const call of waiting.values()) call.reject(stopped);
                waiting.clear();
              },
            ),
          );
        }
      },
    });
  });
}
