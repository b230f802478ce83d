/**
 * `llmbench cluster slurm` without a cluster: the sbatch script it prints, parsed back (its #SBATCH
 * lines as sbatch reads them, its srun line as bash runs it, with an `srun` stand-in on PATH that
 * records the argv it gets), for several option sets and hostile values; the options it refuses;
 * and the shard command line (src/cluster/shard-command.ts) that the launchers write and the
 * shards read. test/real/slurm.test.ts submits the script to a real Slurm.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstHostOfNodeList, formatCoordinator, parseCoordinator, resolveShardIdentity, shardRunArgs, ShardSetupError } from '../../src/cluster/shard-command';
import { cliPath } from '../helpers/limited-child';

const ENDPOINT = ['--url', 'http://10.0.0.5:8000/v1', '--model', 'Qwen/Qwen2-7B-Instruct'];

/** Values a shell would run, expand, split or glob if they were not quoted. */
const HOSTILE = ["'; rm -rf / #", '$(touch pwned)', '`touch pwned`', '"; touch pwned; "', 'a\nb', '*', '~', '$HOME', "it's", '\\', '!', '&& touch pwned', '|', '>out', '{a,b}', '', ' ', 'é💥', '--not-a-flag'];

function cluster(args: string[], env: NodeJS.ProcessEnv = process.env): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, 'cluster', 'slurm', ...args], { encoding: 'utf8', timeout: 30_000, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function script(args: string[]): string {
  const r = cluster(args);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** The #SBATCH options as sbatch reads them: the leading comment lines before the first command. */
function sbatchDirectives(text: string): string[] {
  const lines = text.split('\n');
  assert.equal(lines[0], '#!/bin/bash');
  const directives: string[] = [];
  for (const line of lines.slice(1)) {
    if (line.startsWith('#SBATCH ')) directives.push(line.slice('#SBATCH '.length));
    else if (line.trim() !== '' && !line.startsWith('#')) break;
  }
  return directives;
}

/** Runs the script with bash, an `srun` stand-in first on PATH: the argv and token srun got. */
function srunSeenByBash(text: string): { argv: string[]; token: string; pwned: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-sbatch-'));
  const bin = join(dir, 'bin');
  spawnSync('mkdir', [bin]);
  writeFileSync(join(bin, 'srun'), '#!/bin/sh\nprintf \'%s\\0\' "$@" > "$RECORD/argv"\nprintf \'%s\' "$LLMBENCH_RUN_TOKEN" > "$RECORD/token"\n');
  chmodSync(join(bin, 'srun'), 0o755);
  writeFileSync(join(dir, 'job.sh'), text);
  const r = spawnSync('bash', ['job.sh'], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, RECORD: dir, LLMBENCH_RUN_TOKEN: 'from-outside' } });
  assert.equal(r.status, 0, r.stderr);
  const argv = readFileSync(join(dir, 'argv'), 'utf8').split('\0').slice(0, -1);
  return { argv, token: readFileSync(join(dir, 'token'), 'utf8'), pwned: readdirSync(dir).some((f) => f.startsWith('pwned') || f === 'out') || existsSync('pwned') };
}

test('#SBATCH lines for several option sets, as sbatch reads them', () => {
  assert.deepEqual(sbatchDirectives(script(['--out', '/shared/r.json', '--', ...ENDPOINT])), ['--job-name=llmbench', '--nodes=1', '--ntasks=1', '--ntasks-per-node=1', '--output=llmbench-%j.log']);
  assert.deepEqual(sbatchDirectives(script(['--out', '/shared/r.json', '--nodes', '4', '--tasks-per-node', '2', '--cpus-per-task', '16', '--time', '1-02:00:00', '--partition', 'cpu,cpu-large', '--account', 'ml-infra', '--job-name', 'qwen.sweep', '--log', '/shared/logs/%x-%j.out', '--', ...ENDPOINT])), [
    '--job-name=qwen.sweep',
    '--nodes=4',
    '--ntasks=8',
    '--ntasks-per-node=2',
    '--cpus-per-task=16',
    '--time=1-02:00:00',
    '--partition=cpu,cpu-large',
    '--account=ml-infra',
    '--output=/shared/logs/%x-%j.out',
  ]);
  assert.deepEqual(sbatchDirectives(script(['--out', 'r.json', '--shards', '4', '--overcommit', '--time', '30', '--chdir', '/scratch/me', '--', ...ENDPOINT])), ['--job-name=llmbench', '--nodes=1', '--ntasks=4', '--overcommit', '--time=30', '--chdir=/scratch/me', '--output=llmbench-%j.log']);
});

test('the srun line reaches srun word for word through bash, hostile values included, with a fresh token per job', () => {
  const runFlags = [...ENDPOINT, ...HOSTILE.flatMap((value, i) => ['--label', `k${i}=${value}`]), '--header', 'X-Quote: "a" \'b\'', '--extra-body', '{"stop": ["\\n", "$(x)"]}'];
  const out = "/shared/it's here/$(touch pwned)/r e.json";
  const text = script(['--out', out, '--nodes', '2', '--tasks-per-node', '2', '--port', '31000', '--llmbench', '/opt/llm bench/dist/cli.js', '--', ...runFlags]);
  const first = srunSeenByBash(text);
  assert.equal(first.pwned, false, 'nothing in the values ran');
  assert.deepEqual(first.argv, [
    '--ntasks=4', '--distribution=block', '--kill-on-bad-exit=0', '--export=ALL',
    'node', '/opt/llm bench/dist/cli.js', 'run', ...runFlags, '--out', out, '--shards', '4', '--coordinator', ':31000',
  ]);
  assert.match(first.token, /^[0-9a-f]{64}$/, 'a token of 32 random bytes, made by the job itself');
  assert.notEqual(first.token, 'from-outside');
  const second = srunSeenByBash(text);
  assert.notEqual(second.token, first.token, 'each job makes its own token');
  assert.ok(!text.includes(first.token) && !/[0-9a-f]{64}/.test(text), 'no token in the script');

  // --overcommit reaches srun too, and a plain llmbench runs as itself.
  const overcommitted = srunSeenByBash(script(['--out', '/s/r.json', '--shards', '4', '--overcommit', '--', ...ENDPOINT])).argv;
  assert.deepEqual(overcommitted.slice(0, 7), ['--ntasks=4', '--distribution=block', '--kill-on-bad-exit=0', '--export=ALL', '--overcommit', 'llmbench', 'run']);
});

test('values sbatch would read wrongly are refused with the flag named (exit 2), nothing printed', () => {
  const cases: [string[], RegExp][] = [
    [['--partition', "'; rm -rf / #"], /--partition: ''; rm -rf \/ #' is not a partition name .*#SBATCH lines are read by sbatch, not by a shell/],
    [['--account', 'a b'], /--account: 'a b' is not an account name/],
    [['--time', '1:00:00\n#SBATCH --uid=0'], /--time: '1:00:00\n#SBATCH --uid=0' is not a Slurm time limit/],
    [['--log', 'my logs/%j.log'], /--log: 'my logs\/%j.log' is not a path for the job's output/],
    [['--job-name', 'x"y'], /--job-name: 'x"y' is not a job name/],
    [['--nodes', 'four'], /--nodes: 'four' is not a whole number; give a number of nodes like --nodes 4/],
    [['--nodes', '2', '--tasks-per-node', '2', '--shards', '3'], /--shards: '3' is not --nodes 2 x --tasks-per-node 2 = 4/],
    [['--nodes', '4', '--shards', '2'], /--shards: '2' is fewer than --nodes 4/],
    [['--port', '0'], /--port: '0' must be at least 1/],
    [['--llmbench', '--evil'], /--llmbench needs a value|--llmbench: '--evil' must name the llmbench program/],
    [['--llmbench', '-x'], /--llmbench: '-x' must name the llmbench program/],
  ];
  for (const [args, message] of cases) {
    const r = cluster(['--out', '/s/r.json', ...args, '--', ...ENDPOINT]);
    assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '');
  }
  const noOut = cluster(['--', ...ENDPOINT]);
  assert.match(noOut.stderr, /--out is required: the result file, on a filesystem every node shares/);
  const noServer = cluster(['--out', 'r.json']);
  assert.match(noServer.stderr, /the run flags after --: no server is named: give --url URL --model NAME/);
  const owned = cluster(['--out', 'r.json', '--', ...ENDPOINT, '--out=x.json', '--coordinator', 'h:1']);
  assert.match(owned.stderr, /--out cannot be passed to the shards: give the result path as the launcher's own --out/);
  assert.match(owned.stderr, /--coordinator cannot be passed to the shards/);
});

test('--submit without sbatch on PATH says where to run it (exit 1)', () => {
  const r = cluster(['--submit', '--out', 'r.json', '--', ...ENDPOINT], { ...process.env, PATH: mkdtempSync(join(tmpdir(), 'llmbench-nopath-')) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /sbatch is not on PATH: run this on a Slurm login node, or leave out --submit/);
});

test('shard command line: the words a launcher writes, and the coordinator address both ways', () => {
  assert.deepEqual(shardRunArgs({ runFlags: ['--url', 'u'], out: 'o.json', shards: 4, shard: 2, coordinator: { host: 'h', port: 5 } }), ['run', '--url', 'u', '--out', 'o.json', '--shards', '4', '--shard', '2', '--coordinator', 'h:5']);
  assert.throws(() => shardRunArgs({ runFlags: ['--shards=2'], out: 'o', shards: 4, coordinator: { host: null, port: 5 } }), /--shards cannot be passed to the shards/);
  assert.throws(() => shardRunArgs({ runFlags: [], out: 'o', shards: 4, shard: 4, coordinator: { host: null, port: 5 } }), /shard index must be from 0 to 3/);
  for (const text of ['node01:29517', ':29517', '[fd00::1]:80', '10.1.2.3:1', 'pod-0.svc.ns.svc.cluster.local:65535']) {
    assert.equal(formatCoordinator(parseCoordinator(text)), text);
  }
  assert.deepEqual(parseCoordinator(':31000'), { host: null, port: 31000 });
  for (const bad of ['node01', 'node01:', 'node01:0', 'node01:65536', 'bad host:1', '-x:1', '[zz]:1']) {
    assert.throws(() => parseCoordinator(bad), ShardSetupError, bad);
  }
});

test("a shard's place from its flags or its launcher's environment, each problem worded", () => {
  const slurm = { SLURM_PROCID: '2', SLURM_NTASKS: '4', SLURM_JOB_NODELIST: 'gpu[07-10]' };
  assert.deepEqual(resolveShardIdentity({}, slurm), { shards: 4, shard: 2, coordinator: { host: 'gpu07', port: 29517 }, source: 'slurm' });
  assert.deepEqual(resolveShardIdentity({ shards: '4', coordinator: ':31000' }, { ...slurm, SLURM_STEP_NODELIST: 'gpu[08-10]' }), { shards: 4, shard: 2, coordinator: { host: 'gpu08', port: 31000 }, source: 'slurm' });
  assert.deepEqual(resolveShardIdentity({ shards: '8', coordinator: 'bench-0.bench:29517' }, { JOB_COMPLETION_INDEX: '7' }), { shards: 8, shard: 7, coordinator: { host: 'bench-0.bench', port: 29517 }, source: 'kubernetes' });
  // mpirun inside an sbatch job: every rank inherits the batch step's SLURM_PROCID=0; Open MPI's rank wins.
  assert.deepEqual(resolveShardIdentity({}, { ...slurm, SLURM_PROCID: '0', SLURM_NTASKS: '1', OMPI_COMM_WORLD_RANK: '3', OMPI_COMM_WORLD_SIZE: '8' }), { shards: 8, shard: 3, coordinator: { host: 'gpu07', port: 29517 }, source: 'mpi' });
  assert.deepEqual(resolveShardIdentity({ shards: '2', shard: '1', coordinator: '127.0.0.1:4000' }, {}), { shards: 2, shard: 1, coordinator: { host: '127.0.0.1', port: 4000 }, source: 'flags' });

  const problems: [Parameters<typeof resolveShardIdentity>[0], Record<string, string>, RegExp][] = [
    [{ shards: '8' }, slurm, /--shards 8 but the launcher started 4 processes \(SLURM_NTASKS=4\)/],
    [{ coordinator: 'bench-0.bench:1' }, { JOB_COMPLETION_INDEX: '0' }, /--shards N is needed: .*Kubernetes gives only the index/],
    [{ shards: '4' }, { JOB_COMPLETION_INDEX: '4' }, /JOB_COMPLETION_INDEX=4 is not below --shards 4/],
    [{ shards: '4' }, { JOB_COMPLETION_INDEX: '1' }, /--coordinator HOST:PORT is needed/],
    [{ shards: '4', coordinator: 'h:1' }, {}, /--shard I is needed: no launcher variable/],
    [{ shards: 'four', shard: '0' }, {}, /--shards: 'four' is not a whole number/],
    [{}, { ...slurm, SLURM_PROCID: 'x' }, /SLURM_PROCID: 'x' is not a whole number/],
  ];
  for (const [flags, env, message] of problems) assert.throws(() => resolveShardIdentity(flags, env), (e: unknown) => e instanceof ShardSetupError && message.test(e.message), JSON.stringify([flags, env]));
});

test('the first host of a Slurm node list', () => {
  const cases: [string, string][] = [
    ['vm', 'vm'],
    ['gpu[01-04,07],cpu-a', 'gpu01'],
    ['node[009-011]', 'node009'],
    ['a[1-2]b[3-4]', 'a1b3'],
    ['cn5,gpu[10-11]', 'cn5'],
    ['dgx[3,1]', 'dgx3'],
    ['nid[00012-00015]', 'nid00012'],
  ];
  for (const [list, first] of cases) assert.equal(firstHostOfNodeList(list), first, list);
  for (const bad of ['', 'gpu[01-04', 'gpu01-04]', 'gpu[a-b]', ',x']) assert.throws(() => firstHostOfNodeList(bad), ShardSetupError, bad);
});
