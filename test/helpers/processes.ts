/**
 * The processes of this machine whose argv matches, read from /proc: how tests check that a server
 * they had launched (through a tune, a panel) is gone, by what it runs rather than by a pid they
 * were never told.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** "pid: argv" of every other process whose argv `matches`. */
export function processesWhere(matches: (argv: string[]) => boolean): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        return matches(argv) ? [`${pid}: ${argv.join(' ')}`] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/** Runs a program without blocking this process (a server it runs keeps answering), killed at `limitMs`; its output is stdout and stderr together. */
export function runBounded(program: string, args: string[], env: NodeJS.ProcessEnv, limitMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve({ code, output }))));
}
