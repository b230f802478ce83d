/**
 * `llmbench sim` as a process of its own (dist/cli.js), on a free loopback port: what a user runs
 * beside a benchmark, one process per replica. Stopped with SIGTERM by its own pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath } from './limited-child';

export interface SimProcess {
  baseUrl: string;
  /** The simulator's /metrics. */
  metricsUrl: string;
  close(): Promise<void>;
}

const STARTUP_MS = 30_000;

/** Starts `llmbench sim --preset PRESET --port 0 --model MODEL ...extra` and resolves once it serves. */
export function startSimProcess(preset: string, extra: string[] = [], model = 'm'): Promise<SimProcess> {
  const child: ChildProcess = spawn(process.execPath, [cliPath, 'sim', '--preset', preset, '--port', '0', '--model', model, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void close();
      reject(new Error(`llmbench sim --preset ${preset} did not start within ${STARTUP_MS} ms: ${output}`));
    }, STARTUP_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /serving (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      const baseUrl = match[1] as string;
      resolve({ baseUrl, metricsUrl: baseUrl.replace(/\/v1$/, '/metrics'), close });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`llmbench sim --preset ${preset} exited (${code}) before serving: ${output}`));
    });
  });
}

/** A counter's value summed over its label sets, from Prometheus text. */
export function counterValue(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    total += Number(line.trim().split(/\s+/).at(-1));
  }
  return total;
}
