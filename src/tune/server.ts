/**
 * One trial's server: a free port, a launch as its own process group (argv, never a shell) with
 * its output kept in a log file, a readiness check, and a stop of the whole group (SIGTERM, a grace
 * period, SIGKILL) after which the port must be free again. Every group still running when this
 * process exits, or is ended by SIGINT/SIGTERM, is killed.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { isAlive, onThisHost, type RecordedProcess } from '../processes/alive';

/** A port nobody listens on at this moment (the kernel's choice on 127.0.0.1). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a listener can take the port on 127.0.0.1 now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Process groups started here and not yet stopped: killed when this process ends. */
const liveGroups = new Set<number>();
let exitHooksInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  });
  // Where nobody else handles the signal (a caller that cancels the tune on it does, stopping the
  // server gracefully), it would end this process without 'exit' handlers: kill the groups, then
  // end as the signal asks.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) return;
      for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
}

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Spawning failed (no such program, not executable). */
  error?: string;
}

export interface LaunchedServer {
  pid: number | undefined;
  /** Settles when the server's main process has ended. */
  exited: Promise<ServerExit>;
  /** The last line the server wrote that reads like an error (else its last line), for a trial's reason. */
  lastErrorLine(): string | null;
  /** Stops the whole process group: SIGTERM, up to graceMs, then SIGKILL; resolves once the main process is gone. */
  stop(graceMs: number): Promise<void>;
}

export interface LaunchOptions {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  logPath: string;
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
}

const ERROR_LINE = /error|refus|fail|invalid|must|cannot|can't|not supported|exception|traceback|denied|unable/i;
const KEPT_LINES = 50;

export function launchServer(argv: readonly string[], options: LaunchOptions): LaunchedServer {
  installExitHooks();
  const log = createWriteStream(options.logPath, { flags: 'a' });
  log.write(`$ ${JSON.stringify(argv)}\n`);
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid !== undefined) liveGroups.add(pid);
  const recent: string[] = [];
  let spawnError: string | undefined;
  const streamsDone: Promise<void>[] = [];
  for (const stream of ['stdout', 'stderr'] as const) {
    const source = child[stream];
    if (!source) continue;
    const lines = createInterface({ input: source, crlfDelay: Infinity });
    lines.on('line', (line) => {
      log.write(`${line}\n`);
      recent.push(line);
      if (recent.length > KEPT_LINES) recent.shift();
      options.onLine?.(stream, line);
    });
    streamsDone.push(new Promise((resolve) => lines.once('close', () => resolve())));
  }
  const exited = new Promise<ServerExit>((resolve) => {
    child.once('error', (error) => {
      spawnError = error.message;
      resolve({ code: null, signal: null, error: error.message });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).then(async (exit) => {
    // The output a dying server wrote last is its reason: wait for the pipes to drain (bounded, a grandchild may hold them open).
    await Promise.race([Promise.all(streamsDone), new Promise((r) => setTimeout(r, 1000).unref())]);
    log.write(`[exited: ${exit.error ?? (exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`)}]\n`);
    return exit;
  });

  return {
    pid,
    exited,
    lastErrorLine: () => {
      if (spawnError) return `could not start ${argv[0]}: ${spawnError}`;
      const lines = recent.map((l) => l.trim()).filter((l) => l !== '');
      return [...lines].reverse().find((l) => ERROR_LINE.test(l)) ?? lines.at(-1) ?? null;
    },
    async stop(graceMs) {
      if (pid === undefined) return;
      const gone = exited.then(() => undefined);
      if (killGroup(pid, 'SIGTERM')) {
        const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
        if ((await Promise.race([gone, timer])) === 'late') killGroup(pid, 'SIGKILL');
      }
      await gone;
      // Children of the server in its group outlive it unless killed too.
      if (isAlive(onThisHost(pid), { group: true })) killGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
      await new Promise<void>((resolve) => log.end(() => resolve()));
    },
  };
}

/** Kills a process group left by an earlier tuner that crashed (recorded in the tune file), if it runs on this host. */
export function killLeftoverGroup(group: RecordedProcess): boolean {
  return isAlive(group, { group: true }) && killGroup(group.pid, 'SIGKILL');
}

export type Readiness = { ready: true; afterSec: number } | { ready: false; reason: string };

/**
 * Polls `url` until it answers 200, the server exits, the timeout passes or the signal aborts.
 * A server that exits is reported with its own last error line.
 */
export async function waitReady(url: string, server: LaunchedServer, timeoutMs: number, signal?: AbortSignal): Promise<Readiness> {
  const started = performance.now();
  let exit: ServerExit | undefined;
  void server.exited.then((e) => (exit = e));
  for (;;) {
    if (signal?.aborted) return { ready: false, reason: 'cancelled' };
    if (exit) {
      const how = exit.error ? '' : exit.signal ? ` (killed by ${exit.signal})` : ` (exit code ${exit.code})`;
      return { ready: false, reason: `${server.lastErrorLine() ?? 'the server exited without a word'}${how}` };
    }
    const elapsed = performance.now() - started;
    if (elapsed > timeoutMs) {
      const last = server.lastErrorLine();
      return { ready: false, reason: `not ready after ${Math.round(timeoutMs / 1000)} s (startTimeoutSec)${last ? `; its last line: ${last}` : ''}` };
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return { ready: true, afterSec: (performance.now() - started) / 1000 };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits (up to timeoutMs) until the port can be taken again. */
export async function waitPortFree(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await isPortFree(port)) return true;
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
