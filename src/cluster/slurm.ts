/**
 * `llmbench cluster slurm`: an sbatch script that starts the shards of one run with srun, one
 * `llmbench run ... --shards N --coordinator :PORT` per task. Each task reads its index
 * (SLURM_PROCID) and the node list itself (shard-command.ts); shard 0, the coordinator, runs on the
 * first node (srun's block distribution). The run token is made inside the job, once, from the
 * kernel's CSPRNG, and reaches the shards through srun's environment only: it is in no script,
 * no command line, no log and no result file.
 *
 * Quoting: the srun line is shell, so each of its words is quoted (shellWord). The #SBATCH lines
 * are read by sbatch itself, not by a shell, so their values are refused unless plain.
 */
import * as z from 'zod';
import { shellWord } from '../views/command-line';
import { anyText, crossCheck, llmbenchArgv, llmbenchOption, portOption, runFlagsOption, wholeNumber } from './options';
import { RUN_TOKEN_ENV, shardRunArgs } from './shard-command';

/** Plain values for #SBATCH lines: sbatch splits them itself, so no spaces, quotes, `#` or newlines. */
function sbatchValue(pattern: RegExp, what: string, allowed: string) {
  return z.string().regex(pattern, { error: `is not ${what}: #SBATCH lines are read by sbatch, not by a shell, so only letters, digits and ${allowed} can pass` });
}

const NAME = /^[A-Za-z0-9._-]+$/;
const NAMES = /^[A-Za-z0-9._,-]+$/;
const PATH = /^[A-Za-z0-9._/%+@=:,-]+$/;
const PATH_CHARACTERS = '. _ / % + @ = : , -';
/** Slurm's time limits: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED. */
const SLURM_TIME = /^(?:[0-9]+(?::[0-9]{1,2}){0,2}|[0-9]+-[0-9]{1,2}(?::[0-9]{1,2}){0,2}|UNLIMITED|unlimited|INFINITE|infinite)$/;

const SlurmShapeSchema = z.object({
  out: anyText('the result file, on a filesystem every node shares, like --out /shared/results/run.llmbench.json'),
  nodes: wholeNumber(1, 'a number of nodes like --nodes 4').default(1),
  tasksPerNode: wholeNumber(1, 'shards per node like --tasks-per-node 1').optional(),
  shards: wholeNumber(1, 'a number of shards like --shards 8').optional(),
  cpusPerTask: wholeNumber(1, 'cores per shard like --cpus-per-task 16').optional(),
  overcommit: z.boolean().default(false),
  time: sbatchValue(SLURM_TIME, 'a Slurm time limit (minutes, HH:MM:SS or D-HH:MM:SS, like --time 1:00:00)', '- :').optional(),
  partition: sbatchValue(NAMES, 'a partition name (or a comma-separated list)', '. _ - ,').optional(),
  account: sbatchValue(NAME, 'an account name', '. _ -').optional(),
  jobName: sbatchValue(NAME, 'a job name', '. _ -').default('llmbench'),
  log: sbatchValue(PATH, "a path for the job's output (sbatch --output; %j is the job id)", PATH_CHARACTERS).default('llmbench-%j.log'),
  chdir: sbatchValue(PATH, 'a working directory', PATH_CHARACTERS).optional(),
  port: portOption,
  llmbench: llmbenchOption,
  submit: z.boolean().default(false),
  runFlags: runFlagsOption,
});
type SlurmShape = z.output<typeof SlurmShapeSchema>;

export const SlurmOptionsSchema = SlurmShapeSchema.check(
  crossCheck<SlurmShape>((o, fail) => {
    if (o.shards !== undefined && o.tasksPerNode !== undefined && o.shards !== o.nodes * o.tasksPerNode) {
      fail('shards', `is not --nodes ${o.nodes} x --tasks-per-node ${o.tasksPerNode} = ${o.nodes * o.tasksPerNode}; give either --shards or --tasks-per-node, or make them agree`);
    }
    if (o.shards !== undefined && o.shards < o.nodes) fail('shards', `is fewer than --nodes ${o.nodes}: every node needs a shard (or lower --nodes)`);
  }),
);

export type SlurmOptions = z.output<typeof SlurmOptionsSchema>;

/** How many shards the options start: --shards, else nodes x tasks per node, else one per node. */
export function slurmShardCount(options: SlurmOptions): number {
  return options.shards ?? options.nodes * (options.tasksPerNode ?? 1);
}

/** The #SBATCH options of the script, as `--name=value` (or `--name` alone), in the order written. */
export function sbatchDirectives(options: SlurmOptions): string[] {
  const shards = slurmShardCount(options);
  const tasksPerNode = options.tasksPerNode ?? (options.shards === undefined ? 1 : undefined);
  return [
    `--job-name=${options.jobName}`,
    `--nodes=${options.nodes}`,
    `--ntasks=${shards}`,
    ...(tasksPerNode !== undefined ? [`--ntasks-per-node=${tasksPerNode}`] : []),
    ...(options.cpusPerTask !== undefined ? [`--cpus-per-task=${options.cpusPerTask}`] : []),
    ...(options.overcommit ? ['--overcommit'] : []),
    ...(options.time !== undefined ? [`--time=${options.time}`] : []),
    ...(options.partition !== undefined ? [`--partition=${options.partition}`] : []),
    ...(options.account !== undefined ? [`--account=${options.account}`] : []),
    ...(options.chdir !== undefined ? [`--chdir=${options.chdir}`] : []),
    `--output=${options.log}`,
  ];
}

/**
 * srun's argv for the shards: one task per shard, task 0 on the first node (block distribution),
 * the other shards left running when one fails (the coordinator ends the run partial and keeps what
 * was measured), and the job's environment, the run token with it, passed on.
 */
export function srunArgv(options: SlurmOptions): string[] {
  const { launcher, shard } = srunParts(options);
  return [...launcher, ...shard];
}

/** srun and its options, then the shard's own command (program, `run`, flags). */
function srunParts(options: SlurmOptions): { launcher: string[]; shard: string[] } {
  const shards = slurmShardCount(options);
  return {
    launcher: ['srun', `--ntasks=${shards}`, '--distribution=block', '--kill-on-bad-exit=0', '--export=ALL', ...(options.overcommit ? ['--overcommit'] : [])],
    shard: [...llmbenchArgv(options.llmbench), ...shardRunArgs({ runFlags: options.runFlags, out: options.out, shards, coordinator: { host: null, port: options.port } })],
  };
}

/** The sbatch script, ready for `sbatch FILE` or `sbatch` on standard input. */
export function sbatchScript(options: SlurmOptions, version: string): string {
  const shards = slurmShardCount(options);
  return [
    '#!/bin/bash',
    `# Written by \`llmbench cluster slurm\` (LLM Bench ${version}): ${shards} shard${shards === 1 ? '' : 's'} of one \`llmbench run\`, started by srun.`,
    ...sbatchDirectives(options).map((directive) => `#SBATCH ${directive}`),
    'set -euo pipefail',
    '',
    '# The run token: made here, once per job, and given to this job\'s shards through the',
    '# environment only (srun passes it on). It is in no command line, log or result file.',
    `${RUN_TOKEN_ENV}="$(head -c 32 /dev/urandom | od -An -v -tx1 | tr -d ' \\n')"`,
    `export ${RUN_TOKEN_ENV}`,
    '',
    '# Each shard reads its index (SLURM_PROCID) and the count (SLURM_NTASKS) from srun; shard 0',
    `# coordinates, on the first host of the node list, port ${options.port}.`,
    scriptCommand(srunParts(options)),
    '',
  ].join('\n');
}

/**
 * The srun line as shell, each argv word quoted by shellWord, broken before each flag of the
 * shard's command for reading (a backslash-newline between words is only a word break to bash).
 */
function scriptCommand({ launcher, shard }: { launcher: string[]; shard: string[] }): string {
  const shardWords = shard.map((word, i) => (i > 0 && word.startsWith('--') ? `\\\n    ${shellWord(word)}` : shellWord(word)));
  return [...launcher.map(shellWord), ...shardWords].join(' ');
}
