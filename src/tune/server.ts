/**
 * One trial's server: a free port, a launch as its own process group (argv, never a shell) with
 * its output kept in a log file, a readiness check that the server answering is the one launched,
 * and a stop of the whole group (SIGTERM, a grace period, SIGKILL), of the processes it started
 * outside the group, and of its container (by name), after which the port must be free again.
 * Every group and container still running when this process exits, or is ended by
 * SIGINT/SIGTERM, is killed.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { isAlive, type RecordedProcess } from '../processes/alive';
import { describeProcess, holdersOf, listeningInodes, portListeners, processTree, readCommandLine, readProcEntry, type ProcEntry } from '../processes/proc';
import { containerPids, containerPublishes, killContainerSync, stopContainer } from './container';
import { fillPlaceholders, PORT_TEXT, TRIAL_REASON_TEXT } from '../format/warning-text';

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

/** Process groups and containers started here and not yet stopped: killed when this process ends. */
const liveGroups = new Set<number>();
const liveContainers = new Map<string, string>();
let exitHooksInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

function killEverythingLeft(): void {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  for (const [name, tool] of liveContainers) killContainerSync(tool, name);
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', killEverythingLeft);
  // Where nobody else handles the signal (a caller that cancels the tune on it does, stopping the
  // server gracefully), it would end this process without 'exit' handlers: kill the groups, then
  // end as the signal asks.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) return;
      killEverythingLeft();
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
  /** The group leader's start time and command line, read at launch (null without /proc). */
  identity: { startTime: string; command: string[] } | null;
  /** The container the command runs, stopped by name. */
  container: { tool: string; name: string } | undefined;
  /** Settles when the server's main process has ended. */
  exited: Promise<ServerExit>;
  /** The last line the server wrote that reads like an error (else its last line), for a trial's reason. */
  lastErrorLine(): string | null;
  /** The server's processes now: its process tree, and its container's (null when they cannot be found). */
  processes(): Promise<number[] | null>;
  /**
   * Stops the whole process group: its container by name first, then SIGTERM, up to graceMs, then
   * SIGKILL; then the processes it started outside its group; resolves once they are gone.
   */
  stop(graceMs: number): Promise<void>;
}

export interface LaunchOptions {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  logPath: string;
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** The container the argv runs (its name already in the argv). */
  container?: { tool: string; name: string };
}

const ERROR_LINE = /error|refus|fail|invalid|must|cannot|can't|not supported|exception|traceback|denied|unable/i;
const KEPT_LINES = 50;
/** How long a group may take to be gone after SIGKILL (its last members reaped). */
const GROUP_GONE_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the group is gone: no process has its id any more, zombies included (a signal 0 to the group fails). */
function groupGone(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

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
  const { container } = options;
  if (container) liveContainers.set(container.name, container.tool);
  const entry = pid === undefined ? null : readProcEntry(pid);
  const identity = entry && pid !== undefined ? { startTime: entry.startTime, command: readCommandLine(pid) ?? [...argv] } : null;
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
    await Promise.race([Promise.all(streamsDone), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    log.write(`[exited: ${exit.error ?? (exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`)}]\n`);
    return exit;
  });

  /** The tree as last seen: its members outside the group are killed after the group, where still the same processes. */
  let lastTree: ProcEntry[] = [];
  const tree = (): ProcEntry[] | null => {
    if (pid === undefined) return [];
    const now = processTree(pid);
    if (now) lastTree = now;
    return now;
  };

  return {
    pid,
    identity,
    container,
    exited,
    lastErrorLine: () => {
      if (spawnError) return `could not start ${argv[0]}: ${spawnError}`;
      const lines = recent.map((l) => l.trim()).filter((l) => l !== '');
      return [...lines].reverse().find((l) => ERROR_LINE.test(l)) ?? lines.at(-1) ?? null;
    },
    async processes() {
      const own = tree();
      const boxed = container ? await containerPids(container.tool, container.name) : [];
      if (own === null) return boxed;
      return [...own.map((p) => p.pid), ...(boxed ?? [])];
    },
    async stop(graceMs) {
      if (pid === undefined) return;
      tree();
      // A container's processes are the engine's, not ours: the engine stops them (SIGTERM, the grace, SIGKILL).
      if (container) {
        await stopContainer(container.tool, container.name, graceMs);
        liveContainers.delete(container.name);
      }
      const gone = exited.then(() => undefined);
      if (killGroup(pid, 'SIGTERM')) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
        if ((await Promise.race([gone.then(() => 'gone' as const), late])) === 'late') killGroup(pid, 'SIGKILL');
        clearTimeout(timer);
      }
      await gone;
      // Members of the group outlive its leader unless killed too; wait until the last is gone, reaped
      // (a killed member whose parent died too is reaped by init, which may take a moment).
      killGroup(pid, 'SIGKILL');
      const deadline = performance.now() + GROUP_GONE_MS;
      while (!groupGone(pid) && performance.now() < deadline) await sleep(20);
      // Processes it started outside its group (a daemon's setsid), still the same processes: killed too.
      for (const left of lastTree) {
        if (left.pgid !== pid && readProcEntry(left.pid)?.startTime === left.startTime) {
          try {
            process.kill(left.pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
      }
      liveGroups.delete(pid);
      await new Promise<void>((resolve) => log.end(() => resolve()));
    },
  };
}

/**
 * A process group recorded in a tune file by a tuner that crashed (`runningServer`), checked to be
 * that server before anything is killed: on this host, and, where the file recorded them, the
 * leader's start time and command line the same as at launch (another process may have its pid
 * now). A group whose leader is gone but whose members remain is the server's: its pid cannot have
 * been given to another process while the group still uses it.
 */
export type LeftoverCheck = { stopped: true } | { stopped: false; reason: string | null };

export function stopLeftoverGroup(trial: number, group: RecordedProcess & { command?: string[] }, container?: { tool: string; name: string }): LeftoverCheck {
  if (container) killContainerSync(container.tool, container.name);
  if (!isAlive(group, { group: true })) return { stopped: false, reason: null };
  const leader = readProcEntry(group.pid);
  const command = leader ? readCommandLine(group.pid) : null;
  const running = command ? `: it runs \`${command.join(' ').slice(0, 120)}\`` : '';
  const notIt = `process ${group.pid} is not the server of trial ${trial}`;
  if (leader && group.startTime !== undefined && leader.startTime !== group.startTime) {
    return { stopped: false, reason: `${notIt}: it started at another time than that server (its pid was given to another process since)${running}. It was left alone.` };
  }
  if (leader && command && group.command && command.join('\0') !== group.command.join('\0')) {
    return { stopped: false, reason: `${notIt}: it runs another command line than \`${group.command.join(' ').slice(0, 120)}\`${running}. It was left alone.` };
  }
  if (leader && leader.pgid !== group.pid) return { stopped: false, reason: `${notIt}: it no longer leads its own process group${running}. It was left alone.` };
  return killGroup(group.pid, 'SIGKILL') ? { stopped: true } : { stopped: false, reason: null };
}

/** `foreign`: another process answered on the port (it will still hold it once the server stopped). */
export type Readiness = { ready: true; afterSec: number } | { ready: false; reason: string; foreign?: true };

/**
 * Whether what listens on `port` is the launched server: its listening socket is held by one of the
 * server's processes, or (a container) the container publishes the port. Null when it is so; else
 * why not. Where /proc cannot tell (not Linux), the answer is null with nothing checked.
 */
async function foreignListener(port: number, server: LaunchedServer): Promise<string | null> {
  const inodes = listeningInodes(port);
  if (inodes === null || inodes.size === 0) return null;
  const own = await server.processes();
  if (own === null || holdersOf(inodes, own).length > 0) return null;
  if (server.container && (await containerPublishes(server.container.tool, server.container.name, port)) === true) return null;
  return fillPlaceholders(PORT_TEXT.foreign, [port, holderText(portListeners(port) ?? [])]);
}

/**
 * Polls `url` until it answers 200 from the launched server, the server exits, the timeout passes
 * or the signal aborts. A server that exits is reported with its own last error line; a 200 from
 * a process that is not the server ends the wait too, saying whose it is.
 */
export async function waitReady(url: string, port: number, server: LaunchedServer, timeoutMs: number, signal?: AbortSignal): Promise<Readiness> {
  const started = performance.now();
  let exit: ServerExit | undefined;
  void server.exited.then((e) => (exit = e));
  for (;;) {
    if (signal?.aborted) return { ready: false, reason: 'cancelled' };
    if (exit) {
      const said = server.lastErrorLine();
      const reason = exit.error
        ? (said ?? TRIAL_REASON_TEXT.silent)
        : said === null
          ? fillPlaceholders(exit.signal ? TRIAL_REASON_TEXT.silentKilled : TRIAL_REASON_TEXT.silentExitCode, [exit.signal ?? String(exit.code)])
          : fillPlaceholders(exit.signal ? TRIAL_REASON_TEXT.killed : TRIAL_REASON_TEXT.exitCode, [said, exit.signal ?? String(exit.code)]);
      return { ready: false, reason };
    }
    const elapsed = performance.now() - started;
    if (elapsed > timeoutMs) {
      const last = server.lastErrorLine();
      const afterSec = Math.round(timeoutMs / 1000);
      return { ready: false, reason: last ? fillPlaceholders(TRIAL_REASON_TEXT.notReadyLast, [afterSec, last]) : fillPlaceholders(TRIAL_REASON_TEXT.notReady, [afterSec]) };
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) {
        const foreign = await foreignListener(port, server);
        if (foreign) return { ready: false, reason: foreign, foreign: true };
        return { ready: true, afterSec: (performance.now() - started) / 1000 };
      }
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
}

/** Waits (up to timeoutMs) until the port can be taken again. */
export async function waitPortFree(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await isPortFree(port)) return true;
    if (performance.now() > deadline) return false;
    await sleep(100);
  }
}

/** Who still holds a port: "process 4242 (`...`)", or why that is not known. */
export function portHolderText(port: number): string {
  const holders = portListeners(port);
  return holders === null ? PORT_TEXT.holder.unnamed : holderText(holders);
}

const holderText = (holders: readonly number[]): string => (holders.length > 0 ? fillPlaceholders(PORT_TEXT.holder.process, [holders.map(describeProcess).join(', ')]) : PORT_TEXT.holder.unseen);
