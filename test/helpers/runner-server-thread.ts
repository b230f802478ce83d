/**
 * The runner tests' loopback server (runner-server.ts) in a thread of its own. A test that compares
 * timings between a run whose client is this thread (one worker) and one whose clients are worker
 * threads needs it: with the server in this thread, the one-worker client and the server take turns
 * on one event loop, so a burst's TTFT carries the client's own work there and not in the other run
 * (seen on 2 cores: 19.3 vs 8.5 ms for the same 24 requests at once). Here both runs meet the same
 * server, on its own loop.
 *
 * Answers are data, not a function (a function cannot cross to a thread): every answer is `answer`,
 * its usage tagged with its arrival number plus one, and with `echoLastUser` its one piece is
 * `re: ` and the first N characters of the request's last message.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { startRunnerServer, type Answer } from './runner-server';

export interface ThreadAnswer {
  answer?: Answer;
  echoLastUser?: number;
}

interface ServerState {
  bodies: Record<string, unknown>[];
  maxInFlight: number;
}

export interface ThreadedRunnerServer {
  baseUrl: string;
  /** Every request's body in arrival order, as of the last `sync`. */
  readonly bodies: Record<string, unknown>[];
  /** Most requests in flight at once, as of the last `sync`. */
  readonly maxInFlight: number;
  /** Brings the server's counts and bodies to this thread; call it after the requests asked for have finished. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

const THREAD_FLAG = 'llmbench-runner-server-thread';

export async function startRunnerServerThread(spec: ThreadAnswer): Promise<ThreadedRunnerServer> {
  const worker = new Worker(__filename, { workerData: { [THREAD_FLAG]: spec } });
  let state: ServerState = { bodies: [], maxInFlight: 0 };
  let pending: ((s: ServerState) => void) | null = null;
  const baseUrl = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m: { baseUrl: string }) => resolve(m.baseUrl));
  });
  worker.on('message', (m: { state?: ServerState }) => {
    if (m.state !== undefined) pending?.(m.state);
  });
  return {
    baseUrl,
    get bodies() {
      return state.bodies;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    sync: async () => {
      state = await new Promise<ServerState>((resolve) => {
        pending = resolve;
        worker.postMessage('sync');
      });
      pending = null;
    },
    close: async () => {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

/** The thread's side: starts the server, reports its URL, answers `sync` with its state and `close` by stopping. */
async function serveInThread(spec: ThreadAnswer, port: NonNullable<typeof parentPort>): Promise<void> {
  const server = await startRunnerServer((arrival, body) => {
    const answer: Answer = { ...spec.answer, completionTokens: arrival + 1 };
    if (spec.echoLastUser === undefined) return answer;
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    const last = messages.at(-1)?.content;
    return { ...answer, pieces: [`re: ${(typeof last === 'string' ? last : '').slice(0, spec.echoLastUser)}`] };
  });
  port.postMessage({ baseUrl: server.baseUrl });
  port.on('message', (message: string) => {
    if (message === 'sync') port.postMessage({ state: { bodies: server.bodies, maxInFlight: server.maxInFlight } });
    else if (message === 'close') void server.close().then(() => port.close());
  });
}

if (!isMainThread && parentPort !== null && (workerData as Record<string, unknown> | null)?.[THREAD_FLAG] !== undefined) {
  void serveInThread((workerData as Record<string, ThreadAnswer>)[THREAD_FLAG]!, parentPort);
}
