/**
 * The token server (test/helpers/cli-server.ts) in a child process, so that it never shares the
 * measured client's event loop: the bench script starts itself again with `--serve OPTIONS` (its
 * main calls `serveIfAsked` first), optionally pinned to some cores with `taskset`. With several
 * `processes`, the child is a cluster primary whose workers share one port (connections dealt out in
 * turn), so that on a machine with many cores the server is not what a client benchmark measures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import cluster from 'node:cluster';
import { createInterface } from 'node:readline';
import { startTokenServer, type TokenServerOptions, type WriteTrace } from '../../helpers/cli-server';

/** Child mode: serve, print `port N`, answer `writes` on stdin with the write traces so far. True when this process is the server. */
export function serveIfAsked(): boolean {
  if (process.argv[2] !== '--serve') return false;
  const { processes = 1, ...options } = JSON.parse(process.argv[3] ?? '{}') as TokenServerOptions & { processes?: number };
  if (processes <= 1) void serve(options);
  else if (cluster.isPrimary) servePrimary(processes);
  else void serveInCluster(options);
  return true;
}

/** A cluster's primary: forks the servers, prints the port they share, stops them when stdin closes. */
function servePrimary(processes: number): void {
  const workers = Array.from({ length: processes }, () => cluster.fork());
  let listening = 0;
  for (const worker of workers) {
    worker.on('message', (message: { port: number }) => {
      if (++listening === processes) process.stdout.write(`port ${message.port}\n`);
    });
  }
  createInterface({ input: process.stdin }).on('close', () => {
    for (const worker of workers) worker.kill();
    process.exit(0);
  });
}

/** One server of a cluster: listen(0) in every worker gives them one port. */
async function serveInCluster(options: TokenServerOptions): Promise<void> {
  const server = await startTokenServer({ keepRequests: false, ...options });
  process.send?.({ port: server.port });
}

async function serve(options: TokenServerOptions): Promise<void> {
  const server = await startTokenServer({ keepRequests: false, traceWrites: true, ...options });
  process.stdout.write(`port ${server.port}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'writes') {
      process.stdout.write(`writes ${JSON.stringify([...server.writes])}\n`);
      server.writes.clear();
    }
  });
  lines.on('close', () => void server.close().then(() => process.exit(0)));
}

export interface ServerProcess {
  baseUrl: string;
  /** Server-side times of the streamed requests since the last call, by prompt. */
  writes(): Promise<Map<string, WriteTrace>>;
  stop(): void;
}

/**
 * Starts the token server in a child process: `processes` of them sharing one port (write traces
 * need one), on the cores `cpus` names (e.g. "1" or "8-15", with taskset).
 */
export async function spawnServer(options: TokenServerOptions & { processes?: number }, cpus?: string): Promise<ServerProcess> {
  // Bundled into each bench script: __filename is that script, which serves when started so.
  const args = [process.execPath, __filename, '--serve', JSON.stringify(options)];
  const [command, ...rest] = cpus === undefined ? args : ['taskset', '-c', cpus, ...args];
  const child: ChildProcess = spawn(command as string, rest, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiters: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiters.shift()?.(line));
  const nextLine = () => new Promise<string>((resolve) => waiters.push(resolve));
  const port = Number((await nextLine()).split(' ')[1]);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    async writes() {
      child.stdin!.write('writes\n');
      return new Map(JSON.parse((await nextLine()).slice('writes '.length)) as Array<[string, WriteTrace]>);
    },
    stop: () => child.stdin!.end(),
  };
}
