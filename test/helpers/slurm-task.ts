/**
 * One task of a Slurm test, started by srun (built to out/test/helpers/slurm-task.js). It writes
 * what the task saw to `DIR/task-<SLURM_PROCID>.json`: its argv, Slurm's variables, the place
 * resolveShardIdentity gives it, and a SHA-256 of the run token (never the token itself). Two ways:
 *   node slurm-task.js --record DIR -- PROGRAM ARGS...   records, then runs PROGRAM with ARGS, each
 *       `{procid}` in them replaced by SLURM_PROCID (argv words, no shell), and records its exit code
 *       (the shard flags are not in ARGS: the place comes from Slurm's variables alone);
 *   node slurm-task.js run ... --out FILE ...            stands in for the llmbench program of an
 *       sbatch script (`--llmbench`): records beside FILE and exits 0.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveShardIdentity, RUN_TOKEN_ENV, SHARD_FLAGS, ShardSetupError } from '../../src/cluster/shard-command';

const args = process.argv.slice(2);
const procid = process.env.SLURM_PROCID ?? 'none';

function flagValue(flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
}

function identity(): unknown {
  try {
    return resolveShardIdentity({ shards: flagValue(SHARD_FLAGS.shards), shard: flagValue(SHARD_FLAGS.shard), coordinator: flagValue(SHARD_FLAGS.coordinator) }, process.env);
  } catch (error) {
    if (error instanceof ShardSetupError) return { error: error.message };
    throw error;
  }
}

const token = process.env[RUN_TOKEN_ENV];
const record: Record<string, unknown> = {
  argv: args,
  pid: process.pid,
  env: Object.fromEntries(['SLURM_PROCID', 'SLURM_NTASKS', 'SLURM_JOB_NODELIST', 'SLURM_STEP_NODELIST', 'SLURM_JOB_ID', 'SLURM_STEP_ID'].map((name) => [name, process.env[name] ?? null])),
  tokenSha256: token === undefined ? null : createHash('sha256').update(token).digest('hex'),
  tokenLength: token?.length ?? null,
  identity: identity(),
};

let dir: string;
let code = 0;
if (args[0] === '--record') {
  dir = args[1]!;
  const [program, ...programArgs] = args.slice(args.indexOf('--') + 1).map((word) => word.replaceAll('{procid}', procid));
  const child = spawnSync(program!, programArgs, { encoding: 'utf8', timeout: 120_000 });
  record.exitCode = child.status;
  record.stderrTail = (child.stderr ?? '').slice(-2000);
  code = child.status ?? 1;
} else {
  dir = dirname(flagValue('--out') ?? '.');
  mkdirSync(dir, { recursive: true }); // as llmbench run makes the result's folder
}
writeFileSync(join(dir, `task-${procid}.json`), JSON.stringify(record, null, 2));
process.exit(code);
