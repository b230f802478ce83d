/**
 * A real one-node Slurm cluster for the Slurm tests (../shared/notes/real-clusters.md), from the
 * Debian packages scripts/setup.d/slurm.sh installs: munged with a key of its own, slurmctld and
 * slurmd with a slurm.conf generated in a temporary folder (read by every command through
 * SLURM_CONF), on free ports, with plugins that need no cgroups or systemd. Nothing of the
 * machine's own Slurm or MUNGE set-up is touched.
 *
 * A cluster already named by SLURM_CONF whose controller answers is used as it is and left alone.
 * Otherwise the helper starts one and `stop()` stops exactly the daemons it started (by the pids
 * they wrote), also when the test process exits early.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, homedir, hostname } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedPort } from './cli-server';

const DAEMONS = ['munged', 'slurmctld', 'slurmd'] as const;
const CLIENTS = ['munge', 'srun', 'sbatch', 'scontrol', 'sinfo'] as const;
/** Where Debian puts the daemons: often not on a user's PATH. */
const EXTRA_PATH = ['/usr/sbin', '/sbin'];

function findProgram(name: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), ...EXTRA_PATH]) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

const isCi = (): boolean => process.env.CI !== undefined && !['', 'false', '0'].includes(process.env.CI);

/**
 * Why Slurm cannot run here, in words for the test report, or undefined when it can. On a user's
 * clone it is the reason the Slurm tests are skipped; under CI they run and fail with it.
 */
export function slurmMissing(): string | undefined {
  const missing = [...DAEMONS, ...CLIENTS].filter((name) => findProgram(name) === undefined);
  if (missing.length === 0) return undefined;
  const what = `${missing.join(', ')} not found`;
  if (process.getuid?.() !== 0) return `Slurm tier skipped: not root, cannot install slurm-wlm and munge (${what}); run scripts/setup.d/slurm.sh as root to add them`;
  if (findProgram('apt-get') === undefined) return `Slurm tier skipped: no apt-get, cannot install slurm-wlm and munge (${what}); install Slurm and MUNGE with this system's packages`;
  return `Slurm tier skipped: slurm-wlm and munge are not installed (${what}); run bash scripts/setup.d/slurm.sh (npm test runs it)`;
}

/**
 * The `skip` option of a Slurm test: the reason on a user's clone without Slurm, false under CI
 * (where the test then fails on the missing Slurm: CI must run this tier) or where Slurm is there.
 */
export function slurmSkip(): string | false {
  const reason = slurmMissing();
  return reason !== undefined && !isCi() ? reason : false;
}

export interface SlurmCluster {
  /** The environment for Slurm commands and for the CLI that calls them: SLURM_CONF, and PATH with /usr/sbin. */
  env: NodeJS.ProcessEnv;
  conf: string;
  /** The one node's name (this machine's host name). */
  node: string;
  /** A scratch folder every task sees (one node: any local folder is "shared"). */
  scratch: string;
  /** True when this helper started the daemons; false for a cluster found running. */
  started: boolean;
  /** Milliseconds from the first daemon's start to the node idle (0 for a cluster found running). */
  startMs: number;
  stop(): Promise<void>;
}

function run(program: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(findProgram(program) ?? program, args, { env, encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

function withSbinPath(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const path = (env.PATH ?? '').split(delimiter);
  return { ...env, PATH: [...path, ...EXTRA_PATH.filter((dir) => !path.includes(dir))].join(delimiter) };
}

/** The running cluster SLURM_CONF names, if its controller answers. */
function clusterFoundRunning(): SlurmCluster | undefined {
  const conf = process.env.SLURM_CONF;
  if (!conf || !existsSync(conf)) return undefined;
  const env = withSbinPath(process.env);
  const ping = run('scontrol', ['ping'], env, 10_000);
  if (ping.status !== 0 || !/\bUP\b/.test(ping.stdout)) return undefined;
  const node = run('sinfo', ['-h', '-N', '-o', '%N'], env).stdout.split('\n')[0]?.trim() ?? hostname();
  // A cluster found running may have many nodes: the scratch folder goes where home folders are (shared), not /tmp.
  const tools = process.env.LLMBENCH_TOOLS ?? join(homedir(), '.cache', 'llm-bench');
  mkdirSync(tools, { recursive: true });
  const scratch = mkdtempSync(join(tools, 'slurm-scratch-'));
  return {
    env,
    conf,
    node,
    scratch,
    started: false,
    startMs: 0,
    stop: async () => rmSync(scratch, { recursive: true, force: true }),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** A one-node cluster: the one SLURM_CONF names if it answers, else one of its own. */
export async function startSlurmCluster(): Promise<SlurmCluster> {
  const missing = slurmMissing();
  if (missing !== undefined) throw new Error(missing.replace('Slurm tier skipped: ', 'Slurm is needed here and missing: '));
  const found = clusterFoundRunning();
  if (found) return found;

  // munged refuses a socket in a folder others cannot enter: the folder is 0755, the key 0400.
  const dir = mkdtempSync('/tmp/llmbench-slurm-');
  chmodSync(dir, 0o755);
  const pidFiles = { munged: join(dir, 'munged.pid'), slurmctld: join(dir, 'slurmctld.pid'), slurmd: join(dir, 'slurmd.pid') };
  const started: number[] = [];
  const stopNow = () => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGTERM');
  };
  process.on('exit', stopNow);

  const stop = async () => {
    process.off('exit', stopNow);
    const pids = [...started];
    for (const pid of pids.reverse()) if (alive(pid)) process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (pids.some(alive) && Date.now() < deadline) await sleep(100);
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };

  const began = performance.now();
  try {
    const key = join(dir, 'munge.key');
    writeFileSync(key, randomBytes(1024), { mode: 0o400 });
    const socket = join(dir, 'munge.socket');
    const munged = run('munged', [`--key-file=${key}`, `--socket=${socket}`, `--pid-file=${pidFiles.munged}`, `--log-file=${join(dir, 'munged.log')}`, `--seed-file=${join(dir, 'munged.seed')}`], process.env);
    const mungedPid = readPid(pidFiles.munged);
    if (mungedPid !== undefined) started.push(mungedPid);
    if (munged.status !== 0 || mungedPid === undefined) throw new Error(`munged did not start (exit ${munged.status}): ${munged.stderr}`);

    const node = hostname();
    const [controllerPort, nodePort] = [await closedPort(), await closedPort()];
    const conf = join(dir, 'slurm.conf');
    writeFileSync(
      conf,
      [
        'ClusterName=llmbench-test',
        `SlurmctldHost=${node}(127.0.0.1)`,
        `SlurmctldPort=${controllerPort}`,
        `SlurmdPort=${nodePort}`,
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${socket}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        // No cgroups, no systemd: processes tracked by their parentage, tasks not bound to cores.
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        'JobCompType=jobcomp/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'ReturnToService=2',
        'MpiDefault=none',
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${pidFiles.slurmctld}`,
        `SlurmdPidFile=${pidFiles.slurmd}`,
        `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
        `NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus().length} RealMemory=2000 State=UNKNOWN`,
        `PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8`,
        '',
      ].join('\n'),
    );
    const env = withSbinPath({ ...process.env, SLURM_CONF: conf });
    for (const daemon of ['slurmctld', 'slurmd'] as const) {
      const result = run(daemon, [], env); // each daemonises and writes its pid file
      const deadline = Date.now() + 10_000;
      while (readPid(pidFiles[daemon]) === undefined && Date.now() < deadline) await sleep(50);
      const pid = readPid(pidFiles[daemon]);
      if (pid !== undefined) started.push(pid);
      if (result.status !== 0 || pid === undefined) throw new Error(`${daemon} did not start (exit ${result.status}): ${result.stderr}\n${tail(join(dir, `${daemon}.log`))}`);
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const state = run('sinfo', ['-h', '-o', '%t'], env, 10_000).stdout.trim();
      if (state === 'idle') break;
      if (Date.now() > deadline) throw new Error(`the node is '${state}', not idle, 30 s after slurmd started:\n${tail(join(dir, 'slurmctld.log'))}\n${tail(join(dir, 'slurmd.log'))}`);
      await sleep(200);
    }
    const scratch = join(dir, 'scratch');
    mkdirSync(scratch);
    return { env, conf, node, scratch, started: true, startMs: performance.now() - began, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return `(no ${file})`;
  }
}

/** `scontrol show job ID`'s JobState, once it is final (or the last seen when `timeoutMs` passes). */
export async function waitForJob(cluster: SlurmCluster, jobId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let state = '';
  for (;;) {
    const shown = run('scontrol', ['show', 'job', '-o', jobId], cluster.env, 10_000).stdout;
    state = /JobState=(\S+)/.exec(shown)?.[1] ?? state;
    if (['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'PREEMPTED'].includes(state)) return state;
    if (Date.now() > deadline) return state || 'UNKNOWN';
    await sleep(200);
  }
}

/** A Slurm command run with the cluster's environment. */
export function slurmCommand(cluster: SlurmCluster, program: string, args: string[], timeoutMs = 60_000): { status: number | null; stdout: string; stderr: string } {
  return run(program, args, cluster.env, timeoutMs);
}
