/**
 * The shard command line (issue 24), in one place: what a launcher writes to start one shard of a
 * run (`llmbench run FLAGS --shards N [--shard I] --coordinator HOST:PORT`), and how a shard finds
 * its place from those flags or from its launcher's environment (Slurm, a Kubernetes Indexed Job,
 * Open MPI). `llmbench cluster slurm|k8s` build their commands with it; the shard runtime reads
 * with it. Pure: no I/O beyond the random bytes of a run token.
 *
 * The run token never travels on a command line (any user of a node can read another's argv in
 * /proc or `ps`): it is the environment variable RUN_TOKEN_ENV, set by the launcher.
 */
import { randomBytes } from 'node:crypto';

/** The flags of `llmbench run` that make it a shard. */
export const SHARD_FLAGS = {
  /** How many shards the run has: `--shards N`. */
  shards: '--shards',
  /** This process's index, 0..N-1: `--shard I` (else from the launcher's environment). */
  shard: '--shard',
  /** Where shard 0, the coordinator, listens: `--coordinator HOST:PORT`, or `:PORT` for "the first host the launcher names". */
  coordinator: '--coordinator',
} as const;

/** The environment variable that carries the run token to every shard (never argv, never the result file). */
export const RUN_TOKEN_ENV = 'LLMBENCH_RUN_TOKEN';

/** The coordinator's port when none is given (an unassigned port in IANA's registry). */
export const DEFAULT_COORDINATOR_PORT = 29517;

/**
 * Flags of `llmbench run` that a launcher sets itself, so a user's run flags may not hold them:
 * the shard flags, the result path (the launcher's own --out), and what would start one thing per
 * shard or nothing at all.
 */
export const LAUNCHER_OWNED_RUN_FLAGS: Readonly<Record<string, string>> = {
  '--shards': 'the launcher sets the shard count',
  '--shard': "each shard takes its index from the launcher's environment",
  '--coordinator': 'the launcher names the coordinator (shard 0)',
  '--out': "give the result path as the launcher's own --out (a path every shard can reach)",
  '--sim': 'each shard would start a simulator of its own; start one `llmbench sim` and give its --url',
  '--dry-run': 'a dry run sends nothing; try the flags with `llmbench run --dry-run` first',
  '--help': 'see llmbench run --help',
};

/** Where the coordinator listens; `host` null means the first host of the launcher's node list. */
export interface CoordinatorAddress {
  host: string | null;
  port: number;
}

/** A problem with a shard's flags or environment, worded for the user (the runtime prints it and exits 2). */
export class ShardSetupError extends Error {
  override readonly name = 'ShardSetupError';
}

/** `HOST:PORT`, `[v6]:PORT` or `:PORT`, as `--coordinator` takes it. */
export function formatCoordinator(address: CoordinatorAddress): string {
  const host = address.host === null ? '' : address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}

const PORT_TEXT = /^[0-9]{1,5}$/;
const HOST_TEXT = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** Reads `--coordinator`: `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` (host from the launcher). */
export function parseCoordinator(text: string): CoordinatorAddress {
  const fail = (why: string) =>
    new ShardSetupError(`${SHARD_FLAGS.coordinator}: '${text}' ${why}; give HOST:PORT like ${SHARD_FLAGS.coordinator} node01:${DEFAULT_COORDINATOR_PORT}, or :PORT for the first host of the Slurm node list`);
  const colon = text.lastIndexOf(':');
  if (colon === -1) throw fail('has no port');
  const hostPart = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (!PORT_TEXT.test(portText) || Number(portText) < 1 || Number(portText) > 65535) throw fail('has no port from 1 to 65535');
  let host: string | null;
  if (hostPart === '') host = null;
  else if (hostPart.startsWith('[') && hostPart.endsWith(']') && /^[0-9A-Fa-f:.]+$/.test(hostPart.slice(1, -1))) host = hostPart.slice(1, -1);
  else if (HOST_TEXT.test(hostPart)) host = hostPart;
  else throw fail('has no valid host name or address');
  return { host, port: Number(portText) };
}

/** What one shard's `llmbench run` is given beyond the user's own run flags. */
export interface ShardRunOptions {
  /** The user's `llmbench run` flags, word for word (checked with `launcherOwnedFlag` first). */
  runFlags: readonly string[];
  /** The result file, on a path every shard reaches (a shared filesystem, a volume). */
  out: string;
  shards: number;
  coordinator: CoordinatorAddress;
  /** Only where the launcher gives no index in the environment (local processes, tests). */
  shard?: number;
}

/**
 * The arguments of one shard's `llmbench run`, after the program (`llmbench` or `node cli.js`):
 * `run FLAGS --out OUT --shards N [--shard I] --coordinator HOST:PORT`. An argv: launchers write
 * it as exec-form words (Kubernetes) or quote each word (sbatch), never join it into a shell string.
 */
export function shardRunArgs(options: ShardRunOptions): string[] {
  const owned = options.runFlags.map(launcherOwnedFlag).find((flag) => flag !== undefined);
  if (owned !== undefined) throw new ShardSetupError(launcherOwnedMessage(owned));
  if (!Number.isInteger(options.shards) || options.shards < 1) throw new ShardSetupError(`the shard count must be a whole number of at least 1 (got ${options.shards})`);
  if (options.shard !== undefined && !(Number.isInteger(options.shard) && options.shard >= 0 && options.shard < options.shards)) {
    throw new ShardSetupError(`the shard index must be from 0 to ${options.shards - 1} (got ${options.shard})`);
  }
  return [
    'run',
    ...options.runFlags,
    '--out',
    options.out,
    SHARD_FLAGS.shards,
    String(options.shards),
    ...(options.shard === undefined ? [] : [SHARD_FLAGS.shard, String(options.shard)]),
    SHARD_FLAGS.coordinator,
    formatCoordinator(options.coordinator),
  ];
}

/** Why a launcher-owned flag may not be among the user's run flags (the launcher sets it, or it has no place in a shard). */
export function launcherOwnedMessage(flag: string): string {
  return `${flag} cannot be passed to the shards: ${LAUNCHER_OWNED_RUN_FLAGS[flag]}`;
}

/** The launcher-owned flag a word of the user's run flags names (`--out`, `--out=x`), if any. */
export function launcherOwnedFlag(word: string): string | undefined {
  const flag = word.startsWith('--') ? word.split('=', 1)[0]! : undefined;
  return flag !== undefined && flag in LAUNCHER_OWNED_RUN_FLAGS ? flag : undefined;
}

/** A fresh run token: 32 random bytes from the system's CSPRNG, as 64 hex digits. */
export function generateRunToken(): string {
  return randomBytes(32).toString('hex');
}

/** Which launcher's environment told a shard its place. */
export type ShardSource = 'flags' | 'mpi' | 'kubernetes' | 'slurm';

export interface ShardIdentity {
  shards: number;
  shard: number;
  coordinator: { host: string; port: number };
  /** Where the index came from (flags win over every launcher; Open MPI over Slurm, whose batch variables an mpirun inherits). */
  source: ShardSource;
}

/** The shard flags as `llmbench run` parsed them (strings, unchecked), absent when not given. */
export interface ShardFlagValues {
  shards?: string;
  shard?: string;
  coordinator?: string;
}

/**
 * A shard's place in its run, from its flags and its launcher's environment:
 *  - index: `--shard`, else OMPI_COMM_WORLD_RANK (Open MPI), JOB_COMPLETION_INDEX (a Kubernetes
 *    Indexed Job), SLURM_PROCID (srun);
 *  - count: `--shards N`, else OMPI_COMM_WORLD_SIZE or SLURM_NTASKS; a count given and a
 *    launcher's count must agree;
 *  - coordinator: `--coordinator HOST:PORT`; without a host, the first host of Slurm's node list
 *    (SLURM_STEP_NODELIST, the step's own nodes, else SLURM_JOB_NODELIST), where srun's block
 *    distribution puts task 0; the port defaults to DEFAULT_COORDINATOR_PORT.
 * Every problem is a ShardSetupError that says what to give.
 */
export function resolveShardIdentity(flags: ShardFlagValues, env: Readonly<Record<string, string | undefined>>): ShardIdentity {
  const launcherIndex = firstDefined([
    ['mpi', 'OMPI_COMM_WORLD_RANK'],
    ['kubernetes', 'JOB_COMPLETION_INDEX'],
    ['slurm', 'SLURM_PROCID'],
  ] as const, env);
  const launcherCount = firstDefined([
    ['mpi', 'OMPI_COMM_WORLD_SIZE'],
    ['slurm', 'SLURM_NTASKS'],
  ] as const, env);

  const givenCount = flags.shards === undefined || flags.shards === '' ? undefined : wholeNumber(SHARD_FLAGS.shards, flags.shards, 1);
  const envCount = launcherCount && (launcherIndex === undefined || launcherIndex.source === launcherCount.source) ? { ...launcherCount, value: wholeNumber(launcherCount.variable, launcherCount.text, 1) } : undefined;
  if (givenCount !== undefined && envCount !== undefined && givenCount !== envCount.value) {
    throw new ShardSetupError(`${SHARD_FLAGS.shards} ${givenCount} but the launcher started ${envCount.value} processes (${envCount.variable}=${envCount.value}): give the same count to both, e.g. srun -n ${givenCount}`);
  }
  const shards = givenCount ?? envCount?.value;
  if (shards === undefined) {
    throw new ShardSetupError(`${SHARD_FLAGS.shards} N is needed: no launcher here says how many shards there are (Kubernetes gives only the index; give --shards with the Job's completions)`);
  }

  let shard: number;
  let source: ShardSource;
  if (flags.shard !== undefined) {
    shard = wholeNumber(SHARD_FLAGS.shard, flags.shard, 0);
    source = 'flags';
  } else if (launcherIndex !== undefined) {
    shard = wholeNumber(launcherIndex.variable, launcherIndex.text, 0);
    source = launcherIndex.source;
  } else {
    throw new ShardSetupError(`${SHARD_FLAGS.shard} I is needed: no launcher variable (SLURM_PROCID, JOB_COMPLETION_INDEX, OMPI_COMM_WORLD_RANK) gives this shard's index`);
  }
  if (shard >= shards) {
    const from = source === 'flags' ? `${SHARD_FLAGS.shard} ${shard}` : `${launcherIndex!.variable}=${shard}`;
    throw new ShardSetupError(`${from} is not below ${SHARD_FLAGS.shards} ${shards}: shard indexes run from 0 to ${shards - 1}`);
  }

  const address = flags.coordinator === undefined || flags.coordinator === '' ? { host: null, port: DEFAULT_COORDINATOR_PORT } : parseCoordinator(flags.coordinator);
  let host = address.host;
  if (host === null) {
    const nodeList = env['SLURM_STEP_NODELIST'] || env['SLURM_JOB_NODELIST'];
    if (!nodeList) throw new ShardSetupError(`${SHARD_FLAGS.coordinator} HOST:PORT is needed: without Slurm's node list nothing says where shard 0 runs`);
    host = firstHostOfNodeList(nodeList);
  }
  return { shards, shard, coordinator: { host, port: address.port }, source };
}

function firstDefined<S extends ShardSource>(
  candidates: readonly (readonly [S, string])[],
  env: Readonly<Record<string, string | undefined>>,
): { source: S; variable: string; text: string } | undefined {
  for (const [source, variable] of candidates) {
    const text = env[variable];
    if (text !== undefined && text !== '') return { source, variable, text };
  }
  return undefined;
}

function wholeNumber(name: string, text: string, min: number): number {
  if (!/^[0-9]{1,9}$/.test(text.trim()) || Number(text) < min) throw new ShardSetupError(`${name}: '${text}' is not a whole number of at least ${min}`);
  return Number(text);
}

/**
 * The first host of a Slurm host list (`gpu[01-04,07],cpu-a` -> `gpu01`), as
 * `scontrol show hostnames LIST | head -n 1` gives it, without running scontrol: the first item at
 * bracket depth 0, each `[...]` replaced by the first number of its first range, zero padding kept.
 */
export function firstHostOfNodeList(list: string): string {
  const fail = (why: string) => new ShardSetupError(`Slurm's node list '${list}' ${why}`);
  let depth = 0;
  let end = list.length;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    if (depth < 0 || depth > 1) throw fail('has unbalanced brackets');
    if (c === ',' && depth === 0) {
      end = i;
      break;
    }
  }
  const item = list.slice(0, end).trim();
  if (item === '') throw fail('names no host');
  const host = item.replace(/\[([^\]]*)\]/g, (_whole, ranges: string) => {
    const first = /^([0-9]+)(?:-[0-9]+)?(?:,|$)/.exec(ranges);
    if (!first) throw fail(`has a range '[${ranges}]' that does not start with a number`);
    return first[1]!;
  });
  if (/[[\]\s]/.test(host)) throw fail('has unbalanced brackets');
  return host;
}
