/**
 * The launchers against a real Slurm: a one-node cluster of Debian's slurm-wlm started by the test
 * (test/helpers/slurm.ts; scripts/setup.d/slurm.sh installs it). srun starts 4 tasks of the real
 * command line on 2 cores (--overcommit); `llmbench cluster slurm --submit` hands its script to
 * sbatch, whose srun starts the shards with the values, the environment and the token they need.
 * The submitted script's program is a recorder (test/helpers/slurm-task.ts, given as --llmbench)
 * that writes what each shard got; `srun -n 4 --overcommit node dist/cli.js run ... --shards 4`
 * runs the shard runtime itself against the simulator and checks the one file it makes.
 * Without Slurm on a user's clone these tests say why they are skipped; under CI they fail.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { firstHostOfNodeList } from '../../src/cluster/shard-command';
import { parseResultDocument } from '../../src/format/result';
import { cliPath, repoRoot } from '../helpers/limited-child';
import { slurmCommand, slurmSkip, startSlurmCluster, waitForJob, type SlurmCluster } from '../helpers/slurm';
import { closedPort } from '../helpers/cli-server';
import { runBounded } from '../helpers/processes';
import { startSimServer } from '../../src/sim/index';

const taskScript = join(repoRoot, 'out', 'test', 'helpers', 'slurm-task.js');

interface TaskRecord {
  argv: string[];
  env: Record<string, string | null>;
  identity: { shards: number; shard: number; coordinator: { host: string; port: number }; source: string } | { error: string };
  tokenSha256: string | null;
  tokenLength: number | null;
  exitCode?: number;
  stderrTail?: string;
}

function readTasks(dir: string): TaskRecord[] {
  return readdirSync(dir)
    .filter((f) => /^task-\d+\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as TaskRecord);
}

let cluster: SlurmCluster | undefined;
// Each test carries the skip (a suite's skip hides its tests from the counts); the cluster starts only when they run.
const skip = slurmSkip();

describe('Slurm: a real one-node cluster', { timeout: 300_000 }, () => {
  before(async () => {
    if (skip) return;
    cluster = await startSlurmCluster();
    console.log(`# Slurm cluster ${cluster.started ? `started in ${Math.round(cluster.startMs)} ms` : 'found running (left alone)'}: SLURM_CONF=${cluster.conf}`);
  }, { timeout: 60_000 });
  after(async () => {
    await cluster?.stop();
  });

  test('srun -n 4 --overcommit runs 4 tasks of llmbench run --sim, each with its SLURM_PROCID, SLURM_NTASKS and node list, each writing its own file', { skip, timeout: 180_000 }, () => {
    const c = cluster!;
    const dir = join(c.scratch, 'srun');
    mkdirSync(dir);
    const began = performance.now();
    const srun = slurmCommand(c, 'srun', [
      '-n', '4', '--overcommit', process.execPath, taskScript, '--record', dir, '--',
      process.execPath, cliPath, 'run', '--sim', 'tiny', '--requests', '4', '--input-tokens', '16', '--output-tokens', '8', '--out', join(dir, 'shard-{procid}.llmbench.json'),
    ], 150_000);
    console.log(`# srun -n 4 (4 x llmbench run --sim tiny, 4 requests each): ${Math.round(performance.now() - began)} ms`);
    assert.equal(srun.status, 0, srun.stderr);
    const tasks = readTasks(dir);
    assert.deepEqual(tasks.map((t) => t.env.SLURM_PROCID), ['0', '1', '2', '3']);
    for (const task of tasks) {
      assert.equal(task.exitCode, 0, task.stderrTail);
      assert.equal(task.env.SLURM_NTASKS, '4');
      assert.equal(task.env.SLURM_JOB_NODELIST, c.node);
      assert.deepEqual(task.identity, { shards: 4, shard: Number(task.env.SLURM_PROCID), coordinator: { host: c.node, port: 29517 }, source: 'slurm' });
      const result = parseResultDocument(readFileSync(join(dir, `shard-${task.env.SLURM_PROCID}.llmbench.json`), 'utf8'));
      assert.ok(result.ok, result.ok ? '' : result.error);
      assert.equal(result.value.status, 'complete');
      assert.equal(result.value.steps[0]!.requests.filter((r) => r.error === null).length, 4);
    }
    assert.equal(new Set(tasks.map((t) => t.env.SLURM_JOB_ID)).size, 1, 'one job, one step');
  });

  test('llmbench cluster slurm --submit: sbatch takes the script, srun starts 4 shards with their flags, environment and one token, hostile values intact', { skip, timeout: 120_000 }, async () => {
    const c = cluster!;
    const dir = join(c.scratch, 'sbatch');
    mkdirSync(dir);
    const out = join(dir, "results/it's $(touch pwned)/run.llmbench.json");
    const runFlags = ['--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--label', "note='; rm -rf / #", '--label', 'cmd=$(touch pwned) `touch pwned`', '--header', 'X-Note: "a" \\ b', '--label', 'multi=line\nline'];
    const env = { ...c.env, PATH: `${dirname(process.execPath)}:${c.env.PATH}` }; // the tasks' `node`
    const submitOnce = async (): Promise<{ jobId: string; tasks: TaskRecord[] }> => {
      const began = performance.now();
      const submitted = spawnSync(process.execPath, [
        cliPath, 'cluster', 'slurm', '--submit', '--shards', '4', '--overcommit', '--job-name', 'llmbench-test', '--time', '5', '--chdir', dir,
        '--log', join(dir, 'job-%j.log'), '--port', '30123', '--llmbench', taskScript, '--out', out, '--', ...runFlags,
      ], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(submitted.status, 0, submitted.stderr);
      const jobId = /^Submitted batch job (\d+)$/m.exec(submitted.stdout)?.[1];
      assert.ok(jobId, submitted.stdout);
      assert.match(submitted.stderr, new RegExp(`4 shards; output in ${join(dir, `job-${jobId}.log`).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      const state = await waitForJob(c, jobId, 90_000);
      console.log(`# sbatch job ${jobId} (4 shards) submitted and finished in ${Math.round(performance.now() - began)} ms: ${state}`);
      assert.equal(state, 'COMPLETED', readFileSync(join(dir, `job-${jobId}.log`), 'utf8'));
      const resultDir = dirname(out);
      const tasks = readTasks(resultDir);
      for (const f of readdirSync(resultDir)) if (f.startsWith('task-')) spawnSync('rm', [join(resultDir, f)]);
      return { jobId, tasks };
    };

    const { jobId, tasks } = await submitOnce();
    assert.deepEqual(tasks.map((t) => t.env.SLURM_PROCID), ['0', '1', '2', '3']);
    for (const task of tasks) {
      assert.deepEqual(task.argv, ['run', ...runFlags, '--out', out, '--shards', '4', '--coordinator', ':30123'], 'every word as given');
      assert.equal(task.env.SLURM_NTASKS, '4');
      assert.equal(task.env.SLURM_JOB_ID, jobId);
      assert.equal(task.env.SLURM_JOB_NODELIST, c.node);
      assert.deepEqual(task.identity, { shards: 4, shard: Number(task.env.SLURM_PROCID), coordinator: { host: c.node, port: 30123 }, source: 'slurm' });
      assert.equal(task.tokenLength, 64);
    }
    const tokens = new Set(tasks.map((t) => t.tokenSha256));
    assert.equal(tokens.size, 1, 'all shards of a job share one token');

    // The token is in neither the script Slurm stored nor the job's log.
    const stored = slurmCommand(c, 'scontrol', ['write', 'batch_script', jobId, '-']);
    assert.equal(stored.status, 0, stored.stderr);
    assert.match(stored.stdout, /^#SBATCH --ntasks=4$/m);
    const log = readFileSync(join(dir, `job-${jobId}.log`), 'utf8');
    for (const text of [stored.stdout, log]) {
      for (const word of text.match(/[0-9a-f]{64}/g) ?? []) assert.ok(!tokens.has(createHash('sha256').update(word).digest('hex')), 'the run token leaked');
    }
    assert.ok(!existsSync(join(dir, 'pwned')) && !existsSync(join(dirname(out), 'pwned')), 'nothing in the values ran');

    const second = await submitOnce();
    assert.notEqual(second.tasks[0]!.tokenSha256, tasks[0]!.tokenSha256, 'each job makes its own token');
  });

  test('srun -n 4 --overcommit node dist/cli.js run ... --shards 4: one merged file, every planned request once, 4 shards with offsets, the counts of one process', { skip, timeout: 240_000 }, async () => {
    const c = cluster!;
    const dir = join(c.scratch, 'shards');
    mkdirSync(dir);
    const sim = await startSimServer({ preset: 'tiny', speedup: 20 });
    try {
      const flags = ['--url', sim.baseUrl, '--model', sim.model, '--input-tokens', '32', '--output-tokens', '16', '--server-metrics', 'off', '--profile', 'rate', '--rate', '20,40', '--arrival', 'constant', '--requests', '80'];
      const out = join(dir, 'run.llmbench.json');
      const port = await closedPort();
      const began = performance.now();
      const srun = await runBounded(
        'srun',
        ['-n', '4', '--overcommit', process.execPath, cliPath, 'run', ...flags, '--out', out, '--shards', '4', '--coordinator', `:${port}`],
        { ...c.env, LLMBENCH_RUN_TOKEN: createHash('sha256').update(String(Math.random())).digest('hex') },
        200_000,
      );
      assert.equal(srun.code, 0, srun.output);
      const doc = parseResultDocument(readFileSync(out, 'utf8'));
      assert.ok(doc.ok, doc.ok ? '' : doc.error);
      const run = doc.value;
      assert.equal(run.status, 'complete', run.statusReason ?? '');
      assert.equal(run.shards?.count, 4);
      assert.equal(run.shards?.coordinator.endsWith(`:${port}`), true);
      for (const m of run.shards!.members) {
        assert.equal(m.state, 'done', 'every task served until the run ended');
        assert.equal(m.host, c.node, 'every srun task ran on the one node');
        assert.equal(typeof m.offsetMs, 'number');
        assert.equal(typeof m.uncertaintyMs, 'number');
      }
      for (const step of run.steps) {
        assert.deepEqual(step.requests.map((r) => r.index).sort((a, b) => a - b), Array.from({ length: 80 }, (_, k) => k), `${step.name}: every planned request once`);
        assert.deepEqual([...new Set(step.requests.map((r) => r.worker))].sort(), [0, 1, 2, 3]);
      }
      const skews = run.steps.map((st) => st.client?.startSkewMs ?? NaN);
      console.log(`# srun -n 4 shard run (2 rate steps x 80 requests): ${Math.round(performance.now() - began)} ms; start skew across the 4 tasks per step: ${skews.map((s) => s.toFixed(2)).join(', ')} ms; offsets ${run.shards!.members.map((m) => `${m.offsetMs} ± ${m.uncertaintyMs}`).join(', ')} ms`);

      const single = join(dir, 'one-process.llmbench.json');
      const one = await runBounded(process.execPath, [cliPath, 'run', ...flags, '--out', single], process.env, 120_000);
      assert.equal(one.code, 0, one.output);
      const alone = parseResultDocument(readFileSync(single, 'utf8'));
      assert.ok(alone.ok);
      const counts = (d: typeof run) => d.steps.map((st) => [st.name, st.requests.length, st.summary?.requests.total]);
      assert.deepEqual(counts(run), counts(alone.value), 'the same plan in one process');
    } finally {
      await sim.close();
    }
  });

  test('the first host of a node list is the one scontrol show hostnames gives', { skip }, () => {
    for (const list of ['gpu[01-04,07],cpu-a', 'node[009-011]', 'a[1-2]b[3-4]', 'cn5,gpu[10-11]', 'dgx[3,1]', 'nid[00012-00015]', cluster!.node]) {
      const shown = slurmCommand(cluster!, 'scontrol', ['show', 'hostnames', list]);
      assert.equal(shown.status, 0, shown.stderr);
      assert.equal(firstHostOfNodeList(list), shown.stdout.split('\n')[0], list);
    }
  });
});
