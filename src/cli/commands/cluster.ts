/**
 * `llmbench cluster slurm|k8s`: writes what starts the shards of one run on a cluster (src/cluster):
 * an sbatch script (printed, or submitted with --submit) or a Kubernetes manifest. The user's
 * `llmbench run` flags follow `--` and are passed word for word. Launching stays a command-line
 * job: the extension opens and compares the results. Exit 0 written (or submitted), 1 sbatch
 * refused the script, 2 bad input.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import type * as z from 'zod';
import { version } from '../../../package.json';
import { kubernetesManifest, KubernetesOptionsSchema, manifestDocuments, tokenSecretName, type KubernetesOptions } from '../../cluster/kubernetes';
import { flagOf, LauncherOptionsError, parseLauncherOptions, RUN_FLAGS_KEY, type RawOptions } from '../../cluster/options';
import { DEFAULT_COORDINATOR_PORT, generateRunToken, RUN_TOKEN_ENV } from '../../cluster/shard-command';
import { sbatchScript, slurmShardCount, SlurmOptionsSchema, type SlurmOptions } from '../../cluster/slurm';
import { yamlDocuments } from '../../cluster/yaml';
import { parseFlags, UsageError, type FlagSpec } from '../args';
import { RUN_FLAGS } from './run';

const COMMAND = 'llmbench cluster';

export const CLUSTER_HELP = `Usage: ${COMMAND} slurm [options] -- RUN FLAGS
       ${COMMAND} k8s --image IMAGE --shards N --pvc CLAIM|--host-path DIR --out FILE [options] -- RUN FLAGS

Writes what starts one benchmark run as N shards on a cluster, each a \`llmbench run RUN FLAGS
--shards N\` on its own machine, shard 0 coordinating; their records make one result file. RUN
FLAGS are those of llmbench run (--url, --model, --profile, ...), passed word for word; the
launcher sets --out, --shards and --coordinator itself. See docs/scale-out.md.

${COMMAND} slurm: prints an sbatch script whose srun starts the shards (or submits it).
  --out FILE             the result file, on a filesystem every node shares (required)
  --nodes N              nodes to run on (default 1)
  --tasks-per-node T     shards per node (default 1); or --shards N for N in all
  --shards N             shards in all, spread over the nodes by Slurm
  --cpus-per-task C      cores for each shard (its workers)
  --overcommit           let shards share cores (small nodes, test clusters)
  --time T               time limit (minutes, HH:MM:SS or D-HH:MM:SS)
  --partition P          --account A       --job-name NAME (default llmbench)
  --log FILE             the job's output (sbatch --output; default llmbench-%j.log)
  --chdir DIR            the job's working directory (relative paths start there)
  --port P               the coordinator's port on the first node (default ${DEFAULT_COORDINATOR_PORT})
  --llmbench PATH        the llmbench program on the nodes (default llmbench; a .js file runs under node)
  --submit               submit with sbatch and print the job id instead of the script

${COMMAND} k8s: writes a manifest (YAML): a Secret with the run token, a headless Service and an
Indexed Job of N pods; apply it with kubectl apply -f FILE.
  --image IMAGE          a container image with llmbench in it (required)
  --shards N             pods, one shard each (required)
  --pvc CLAIM            the result volume: a PersistentVolumeClaim every pod mounts (ReadWriteMany)
  --host-path DIR        or a directory on the nodes
  --mount-path DIR       where the volume is mounted in the pods (default /results)
  --out FILE             the result file, under the mount path (required)
  --name NAME            the Job's and Service's name (default llmbench); the coordinator is NAME-0.NAME
  --namespace NS
  --cpu Q  --memory Q    requests of each pod (e.g. --cpu 8 --memory 16Gi); limits default to them
  --cpu-limit Q  --memory-limit Q
  --node-selector K=V    schedule the pods on nodes with this label (repeatable)
  --token-secret NAME    read the run token from this existing Secret (key "token") instead of
                         writing a new Secret
  --backoff-limit N      retries of a failed pod (default 0: a shard run again would repeat requests)
  --deadline SEC         the Job's activeDeadlineSeconds
  --port P               the coordinator's port (default ${DEFAULT_COORDINATOR_PORT})
  --llmbench PATH        the llmbench program in the image (default llmbench)
  --manifest FILE        write the manifest here (mode 600: it holds the token) instead of printing it

The run token is made per job (in the sbatch script, or in the Secret) and reaches the shards
through their environment only (${RUN_TOKEN_ENV}): never a command line or a result file.
Exit status: 0 written or submitted, 1 sbatch refused the script, 2 bad input.
`;

const SLURM_BOOLEANS = ['overcommit', 'submit'];
const K8S_REPEATABLE = ['nodeSelector'];

export async function run(argv: string[]): Promise<number> {
  const [launcher, ...rest] = argv;
  if (launcher === undefined || launcher === '--help' || launcher === '-h') {
    process.stdout.write(CLUSTER_HELP);
    return launcher === undefined ? 2 : 0;
  }
  if (launcher === 'slurm') return slurm(rest);
  if (launcher === 'k8s' || launcher === 'kubernetes') return kubernetes(rest);
  throw new UsageError(`'${launcher}' is not a launcher; choose slurm or k8s (see ${COMMAND} --help)`);
}

/** The launcher's own flags before `--`, the run's after it, as raw option values; 'help' for --help. */
function readArgv(argv: readonly string[], schemaKeys: readonly string[], command: string, booleans: readonly string[], repeatable: readonly string[] = []): RawOptions | 'help' {
  const dash = argv.indexOf('--');
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const runFlags = dash === -1 ? [] : argv.slice(dash + 1);
  const specs: Record<string, FlagSpec> = { '--help': { kind: 'boolean' } };
  for (const key of schemaKeys) {
    if (key === RUN_FLAGS_KEY) continue;
    specs[flagOf(key)] = booleans.includes(key) ? { kind: 'boolean' } : { kind: 'string', repeatable: repeatable.includes(key) };
  }
  const flags = parseFlags(own, specs, command);
  if (flags.has('--help')) return 'help';
  if (flags.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${flags.positionals[0]}'; the run's flags go after --, like ${command} --out FILE -- --url URL --model NAME`);
  }
  const raw: RawOptions = { [RUN_FLAGS_KEY]: runFlags };
  for (const key of schemaKeys) {
    if (key === RUN_FLAGS_KEY || !flags.has(flagOf(key))) continue;
    raw[key] = booleans.includes(key) ? true : repeatable.includes(key) ? flags.all(flagOf(key)) : flags.get(flagOf(key));
  }
  return raw;
}

/** Typed options, or a usage error naming each wrong flag. */
function parseOrUsage<S extends z.ZodType>(schema: S, raw: RawOptions): z.output<S> {
  try {
    return parseLauncherOptions(schema, raw);
  } catch (error) {
    if (error instanceof LauncherOptionsError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The run's flags are checked as llmbench run will read them, so that a typo fails here rather
 * than in N shards on the cluster.
 */
function checkRunFlags(words: readonly string[]): void {
  let positionals: readonly string[];
  try {
    positionals = parseFlags(words, RUN_FLAGS, 'llmbench run').positionals;
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`the run flags after --: ${error.message}`);
    throw error;
  }
  if (positionals.length > 0) throw new UsageError(`the run flags after --: unexpected argument '${positionals[0]}'; llmbench run takes only --flags`);
}

async function slurm(argv: string[]): Promise<number> {
  const raw = readArgv(argv, Object.keys(SlurmOptionsSchema.shape), `${COMMAND} slurm`, SLURM_BOOLEANS);
  if (raw === 'help') {
    process.stdout.write(CLUSTER_HELP);
    return 0;
  }
  const opts: SlurmOptions = parseOrUsage(SlurmOptionsSchema, raw);
  checkRunFlags(opts.runFlags);
  const script = sbatchScript(opts, version);
  if (!opts.submit) {
    process.stdout.write(script);
    return 0;
  }
  // The script goes to sbatch on standard input: no file to leave behind.
  const submitted = spawnSync('sbatch', ['--parsable'], { input: script, encoding: 'utf8', timeout: 60_000 });
  if (submitted.error) {
    const missing = (submitted.error as NodeJS.ErrnoException).code === 'ENOENT';
    process.stderr.write(missing ? 'sbatch is not on PATH: run this on a Slurm login node, or leave out --submit and submit the printed script there.\n' : `sbatch could not run: ${submitted.error.message}\n`);
    return 1;
  }
  if (submitted.status !== 0) {
    process.stderr.write(`sbatch refused the script (exit ${submitted.status}):\n${submitted.stderr.trim()}\n`);
    return 1;
  }
  const jobId = submitted.stdout.trim().split(';')[0] ?? '';
  if (!/^[0-9]+$/.test(jobId)) {
    process.stderr.write(`sbatch answered '${submitted.stdout.trim()}', not a job id\n`);
    return 1;
  }
  process.stdout.write(`Submitted batch job ${jobId}\n`);
  process.stderr.write(`${slurmShardCount(opts)} shards; output in ${opts.log.replace(/%j/g, jobId)}; result: ${opts.out}\n`);
  return 0;
}

async function kubernetes(argv: string[]): Promise<number> {
  const raw = readArgv(argv, Object.keys(KubernetesOptionsSchema.shape), `${COMMAND} k8s`, [], K8S_REPEATABLE);
  if (raw === 'help') {
    process.stdout.write(CLUSTER_HELP);
    return 0;
  }
  const opts: KubernetesOptions = parseOrUsage(KubernetesOptionsSchema, raw);
  checkRunFlags(opts.runFlags);
  const manifest = kubernetesManifest(opts, opts.tokenSecret === undefined ? generateRunToken() : undefined);
  const text = yamlDocuments(manifestDocuments(manifest));
  if (opts.manifest === undefined) {
    process.stdout.write(text);
    return 0;
  }
  try {
    // The manifest holds the run token (in its Secret): readable by its owner only.
    writeFileSync(opts.manifest, text, { mode: 0o600 });
    chmodSync(opts.manifest, 0o600); // also when the file was there before
  } catch (error) {
    throw new UsageError(`--manifest: cannot write '${opts.manifest}' (${(error as NodeJS.ErrnoException).code ?? String(error)}); choose another file`);
  }
  const secret = manifest.secret ? `Secret ${tokenSecretName(opts)} (the run token), ` : '';
  process.stderr.write(`Wrote ${opts.manifest}: ${secret}Service ${opts.name}, Job ${opts.name} (${opts.shards} pods). Apply it with kubectl apply -f ${opts.manifest}\n`);
  return 0;
}
