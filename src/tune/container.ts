/**
 * A server command that runs a container (`docker run`, `podman run`, `nerdctl run`): the
 * container's processes are the engine's children, not ours, so they escape the trial's process
 * group and outlive a stop of the CLI. The tuner names each trial's container (`--name
 * llmbench-NAME-trial-N` unless the command names it) and has it removed when it stops (`--rm`),
 * stops it by name (`docker stop -t GRACE NAME`, the engine's SIGTERM, grace and SIGKILL) before it
 * stops the CLI's group, finds its processes by `docker top` (for GPU memory) and its published
 * ports by `docker port` (for the readiness check). All through argument arrays, never a shell.
 */
import { execFile, spawnSync } from 'node:child_process';
import { basename } from 'node:path';

export const CONTAINER_TOOLS = ['docker', 'podman', 'nerdctl'] as const;

/** Global options of the container CLIs that take a value (`docker --context ctx run ...`). */
const GLOBAL_VALUE_FLAGS = new Set(['--config', '-c', '--context', '-H', '--host', '--log-level', '-l', '--tlscacert', '--tlscert', '--tlskey', '--url', '--connection', '--namespace', '-n', '--address', '-a']);

/** `run` options that take no value (all the others take one). */
const BOOLEAN_RUN_FLAGS = new Set(['--rm', '-d', '--detach', '-i', '--interactive', '-t', '--tty', '-P', '--publish-all', '--init', '--privileged', '--read-only', '--no-healthcheck', '--oom-kill-disable', '--sig-proxy', '-q', '--quiet', '--help']);

export interface ContainerRun {
  tool: string;
  /** The index of `run` in the argv: the run's options follow it. */
  runAt: number;
  /** The name the command gives the container, if any. */
  name: string | undefined;
  removes: boolean;
  detached: boolean;
}

/** The container run an argv is, or undefined for any other command. */
export function containerRunOf(argv: readonly string[]): ContainerRun | undefined {
  const tool = argv[0] === undefined ? '' : basename(argv[0]);
  if (!(CONTAINER_TOOLS as readonly string[]).includes(tool)) return undefined;
  let i = 1;
  while (i < argv.length && (argv[i] as string).startsWith('-')) i += GLOBAL_VALUE_FLAGS.has(argv[i] as string) ? 2 : 1;
  if (argv[i] === 'container') i++;
  if (argv[i] !== 'run') return undefined;
  const runAt = i;
  let name: string | undefined;
  let removes = false;
  let detached = false;
  for (let j = runAt + 1; j < argv.length; j++) {
    const word = argv[j] as string;
    if (!word.startsWith('-')) break; // the image: what follows is the container's own command
    const [flag, inline] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    const shorts = /^-[a-zA-Z]+$/.test(flag) ? [...flag.slice(1)] : null;
    if (flag === '--name') name = inline ?? argv[j + 1];
    if (flag === '--rm') removes = inline !== 'false';
    if (flag === '--detach' ? inline !== 'false' : shorts?.includes('d')) detached = true;
    // Every other option takes a value, the next word unless written `--flag=value`.
    const valueless = BOOLEAN_RUN_FLAGS.has(flag) || (shorts !== null && shorts.every((c) => BOOLEAN_RUN_FLAGS.has(`-${c}`)));
    if (!valueless && inline === undefined) j++;
  }
  return { tool, runAt, name, removes, detached };
}

/** The argv with `--rm` and `--name NAME` added after `run` where the command does not give them, and the container's name. */
export function namedContainerRun(argv: readonly string[], run: ContainerRun, name: string): { argv: string[]; name: string } {
  const added = [...(run.removes ? [] : ['--rm']), ...(run.name === undefined ? ['--name', name] : [])];
  return { argv: [...argv.slice(0, run.runAt + 1), ...added, ...argv.slice(run.runAt + 1)], name: run.name ?? name };
}

/** A container name from a tune file's name and a trial: letters, digits, `_.-` only. */
export function containerName(stem: string, trial: number, round?: number): string {
  const safe = stem.replace(/[^a-zA-Z0-9_.-]+/g, '-').replace(/^[^a-zA-Z0-9]+/, '') || 'tune';
  return `llmbench-${safe}-trial-${trial}${round === undefined ? '' : `-remeasure-${round}`}`;
}

function runTool(tool: string, args: string[], timeoutMs: number): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(tool, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, windowsHide: true }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** `docker stop -t GRACE NAME`: the engine sends SIGTERM, waits the grace, then SIGKILL. Resolves when the CLI answered (or its time is up). */
export async function stopContainer(tool: string, name: string, graceMs: number): Promise<void> {
  await runTool(tool, ['stop', '-t', String(Math.ceil(graceMs / 1000)), name], graceMs + 15_000);
}

/** `docker kill NAME`, waited for: for this process's exit, when nothing asynchronous runs any more. */
export function killContainerSync(tool: string, name: string): void {
  spawnSync(tool, ['kill', name], { timeout: 5000, stdio: 'ignore' });
}

/** The container's processes as host pids (`docker top NAME -eo pid`); null when the CLI cannot tell. */
export async function containerPids(tool: string, name: string): Promise<number[] | null> {
  const answer = await runTool(tool, ['top', name, '-eo', 'pid'], 10_000);
  if (!answer.ok) return null;
  return answer.stdout.split('\n').flatMap((line) => (/^\s*\d+\s*$/.test(line) ? [Number(line)] : []));
}

/** Whether the container publishes host port `port` (`docker port NAME` lists `8000/tcp -> 0.0.0.0:PORT`); null when the CLI cannot tell. */
export async function containerPublishes(tool: string, name: string, port: number): Promise<boolean | null> {
  const answer = await runTool(tool, ['port', name], 10_000);
  if (!answer.ok) return null;
  return answer.stdout.split('\n').some((line) => new RegExp(`:${port}\\s*$`).test(line.trim()));
}
