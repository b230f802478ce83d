/**
 * What the tuner's tests share: a vLLM-like tune of the simulator launched through this
 * checkout's CLI (`llmbench sim` at a high --speedup), a temporary folder, the tune file read back,
 * the simulators still alive (by their command line and a marker in their environment), and
 * `llmbench tune` run as a child process.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTuneFile, TuneConfigSchema, type TuneConfigInput, type TuneFile } from '../../src/format/tune';
import { runTune, type TuneOptions } from '../../src/tune/index';
import { isAlive, onThisHost } from '../../src/processes/alive';
import { cliPath, repoRoot } from './limited-child';
import { simulatorVllmSpace } from './tune-documents';

export const llmbenchCommand = [process.execPath, cliPath];
export const engineWorkerScript = join(repoRoot, 'dist', 'engine-worker.js');
export const SIM = ['llmbench', 'sim', '--preset', 'tiny', '--speedup', '50', '--port', '{port}'];

/** The simulator's vLLM flags tuned within the vllm rules, a short benchmark, three trials. */
export function vllmLikeConfig(overrides: Partial<TuneConfigInput> = {}): TuneConfigInput {
  return {
    server: {
      command: [...SIM, '--max-num-seqs', '{max_num_seqs}', '--max-num-batched-tokens', '{max_num_batched_tokens}', '--max-model-len', '4096', '{enable_chunked_prefill}'],
      readyPath: '/v1/models',
      startTimeoutSec: 30,
      stopGraceSec: 5,
    },
    space: simulatorVllmSpace(64),
    constraints: ['vllm'],
    benchmark: { profile: { kind: 'concurrency', levels: [8] }, limits: { requests: 16 }, workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 16 } },
    objective: { maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': 2000 } },
    budget: { trials: 3 },
    ...overrides,
  };
}

/** A space half of which breaks vllm/batched-tokens-cover-model-len, searched at random: the search meets refusals. */
export const REFUSING_SEARCH: Pick<TuneConfigInput, 'space' | 'search'> = {
  space: {
    max_num_batched_tokens: { type: 'choice', values: [512, 1024, 8192] },
    enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill', false: '--no-enable-chunked-prefill' },
    max_num_seqs: { type: 'choice', values: [8] },
  },
  search: { strategy: 'random', seed: 3 },
};

/** Whether any process of the group that `pid` leads still runs (here). */
export const groupAlive = (pid: number): boolean => isAlive(onThisHost(pid), { group: true });

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'llmbench-tune-'));
}

export function readTune(path: string): TuneFile {
  const parsed = parseTuneFile(readFileSync(path, 'utf8'));
  if (!parsed.ok) assert.fail(parsed.error);
  return parsed.value;
}

/** Simulator processes launched from this checkout's CLI still alive, marked with LLMBENCH_TUNE_TEST=dir in their environment. */
export function liveSimulators(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv.includes(cliPath) && argv.includes('sim') && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`LLMBENCH_TUNE_TEST=${dir}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** `llmbench ARGS` in `cwd` with `env` added, its stdout and stderr kept together. */
export function startCli(args: string[], cwd: string, env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [cliPath, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return Object.assign(child, { output: () => output });
}

export const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

/**
 * A tune file cancelled before its first trial, with the options that wrote it: the start of a
 * --resume test, which then makes the file read as a crashed tuner's.
 */
export async function cancelledTuneFile(dir: string, name: string, config: TuneConfigInput = vllmLikeConfig()): Promise<{ options: TuneOptions; outPath: string; file: TuneFile }> {
  const outPath = join(dir, name);
  const cancelled = new AbortController();
  cancelled.abort();
  const options: TuneOptions = { config: TuneConfigSchema.parse(config), configDir: dir, outPath, resume: false, signal: cancelled.signal, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } };
  assert.equal((await runTune(options)).status, 'cancelled');
  return { options: { ...options, resume: true }, outPath, file: readTune(outPath) };
}

/** A process of this host in a process group of its own (a stand-in for a stranger given a recorded pid); `end` kills its group. */
export function bystander(): { child: ChildProcess; pid: number; end: () => void } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { detached: true, stdio: 'ignore' });
  const pid = child.pid!;
  return {
    child,
    pid,
    end: () => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}
