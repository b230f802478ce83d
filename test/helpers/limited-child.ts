/**
 * A child process under shell resource limits (`ulimit -n` open files, `ulimit -f` file size),
 * for the fault tests and the fault benchmark. A child that outlives its time is killed, and
 * says so rather than rejecting, so that a hang is reported like any other outcome.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

/** The checkout: the nearest folder above this file with esbuild.mjs (from out/test/helpers or dist/bench). */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'esbuild.mjs'))) return dir;
    if (dirname(dir) === dir) return resolve(from, '../../..');
  }
}

export const repoRoot = process.env.LLMBENCH_ROOT ?? findRepoRoot(__dirname);
export const cliPath = join(repoRoot, 'dist', 'cli.js');

export interface LimitedOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  /** Killed with SIGKILL at `timeoutMs`. */
  timedOut: boolean;
}

export interface LimitedOptions {
  /** Arguments of `ulimit`, e.g. ['-n', '256'] or ['-f', '64']. */
  ulimit?: string[];
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  timeoutMs: number;
  /** Called with the stderr so far, and the child, on each write (e.g. to send SIGINT). */
  onStderr?: (text: string, signal: (name: NodeJS.Signals) => void) => void;
}

/** Runs `node ...args` in a shell that sets the limits first. */
export function runLimited(args: string[], options: LimitedOptions): Promise<LimitedOutcome> {
  const limit = options.ulimit ? `ulimit ${options.ulimit.join(' ')} && ` : '';
  const started = performance.now();
  const child = spawn('bash', ['-c', `${limit}exec "$@"`, 'bash', process.execPath, ...args], {
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'llmbench-limited-')),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    options.onStderr?.(stderr, (name) => child.kill(name));
  });
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  return new Promise((resolvePromise) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, elapsedMs: performance.now() - started, timedOut });
    });
  });
}

/** Runs `llmbench ...args` (dist/cli.js) under the limits. */
export function runCliLimited(args: string[], options: LimitedOptions): Promise<LimitedOutcome> {
  return runLimited([cliPath, ...args], options);
}

/**
 * Node code run as a child with the engine's compiled modules at hand: `engine` is
 * out/src/load/runner.js. The code's last expression is awaited and printed as JSON.
 */
export function runEngineScript(body: string, options: LimitedOptions): Promise<LimitedOutcome> {
  const runner = join(repoRoot, 'out', 'src', 'load', 'runner.js');
  const script = `const engine = require(${JSON.stringify(runner)});\n(async () => {\n${body}\n})().then((r) => { console.log(JSON.stringify(r)); process.exit(0); }, (e) => { console.error(e && e.stack || e); process.exit(1); });`;
  return runLimited(['-e', script], options);
}
