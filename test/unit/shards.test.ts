/**
 * The shard runtime (docs/scale-out.md), with real processes on 127.0.0.1: `llmbench run --shards 4`
 * as 4 processes against the simulator (one merged file: every planned request once, 4 shards with
 * their clock offsets, the same counts as one process running the same plan), the exact command
 * and environment of the Kubernetes manifest as 4 local processes, a shard SIGKILLed mid-step, a
 * shard that never starts, a shard whose clock is 300 ms off, and `llmbench merge` with its refusals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema } from '../../src/format/config';
import type { RequestRecord, ResultDocument } from '../../src/format/result';
import { readResultText } from '../../src/results/read-result';
import { shardsSection } from '../../src/views/shards';
import { sayWarning } from '../../src/views/step-warnings';
import { translator } from '../../src/views/l10n';
import { estimateOffset } from '../../src/load/shard-protocol';
import { planRun } from '../../src/load/plan';
import { createWorkload } from '../../src/workload/sources';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { startSimServer, type SimServer } from '../../src/sim/index';
import { closedPort, promptKey, startTokenServer } from '../helpers/cli-server';
import { kubernetesSchemaErrors, readYamlDocuments, type KubernetesKind } from '../helpers/kubernetes-schema';
import { cliPath, repoRoot } from '../helpers/limited-child';
import { JSON_HEADERS, startScriptedServer, type RecordedRequest } from '../helpers/sse-server';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every process a test starts is ended by its pid when the test ends, whatever happened. */
interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function start(argv: string[], env: Record<string, string>, cwd: string, limitMs: number, started: Started[]): Started {
  const child = spawn(process.execPath, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  const s = { child, output: () => text, exit };
  started.push(s);
  return s;
}

function stopAll(started: Started[]): void {
  for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
}

function read(path: string): ResultDocument {
  const r = readResultText(readFileSync(path, 'utf8'));
  assert.ok(r.ok, `${path}: ${r.ok ? '' : r.error}`);
  return r.value.document;
}

const TOKEN = 'a-test-run-token-0123456789';
const ZH_CN = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;

async function freePort(): Promise<number> {
  return closedPort();
}

/** Runs `llmbench run FLAGS --shards n` as n local processes (those in `skip` never start); resolves with their exit codes. */
async function runShards(o: { flags: string[]; dir: string; n?: number; skip?: number[]; envOf?: (i: number) => Record<string, string>; timeoutSec?: number; during?: (started: Started[]) => Promise<void> }): Promise<{ codes: (number | null)[]; outputs: string[]; out: string }> {
  const n = o.n ?? 4;
  const port = await freePort();
  const out = join(o.dir, 'run.llmbench.json');
  const started: Started[] = [];
  try {
    const shards = Array.from({ length: n }, (_, i) => i).filter((i) => !(o.skip ?? []).includes(i));
    const procs = shards.map((i) =>
      start(
        [cliPath, 'run', ...o.flags, '--out', out, '--shards', String(n), '--shard', String(i), '--coordinator', `127.0.0.1:${port}`, '--shard-timeout', String(o.timeoutSec ?? 20)],
        { LLMBENCH_RUN_TOKEN: TOKEN, ...(o.envOf?.(i) ?? {}) },
        o.dir,
        90_000,
        started,
      ),
    );
    await o.during?.(started);
    const codes = await Promise.all(procs.map((p) => p.exit));
    return { codes, outputs: procs.map((p) => p.output()), out };
  } finally {
    stopAll(started);
  }
}

/** Polls the coordinator's file (bounded) until `ready` says so of its records, then SIGKILLs `victim`; resolves with what `ready` returned. */
async function killWhen(out: string, victim: Started, ready: (records: RequestRecord[], doc: ResultDocument) => number): Promise<number> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    const parsed = existsSync(out) ? readResultText(readFileSync(out, 'utf8')) : null;
    const seen = parsed?.ok ? ready(parsed.value.document.steps.flatMap((st) => st.requests), parsed.value.document) : 0;
    if (seen > 0) {
      victim.child.kill('SIGKILL');
      return seen;
    }
  }
  return -1;
}

let sim: SimServer | null = null;
async function simulator(): Promise<SimServer> {
  sim ??= await startSimServer({ preset: 'tiny', speedup: 20 });
  return sim;
}
test.after(async () => {
  await sim?.close();
});

const simFlags = (s: SimServer, extra: string[]): string[] => ['--url', s.baseUrl, '--model', s.model, '--input-tokens', '32', '--output-tokens', '16', '--server-metrics', 'off', ...extra];

/** Per step: its name, how many records, how many measured. */
const counts = (doc: ResultDocument) => doc.steps.map((s) => ({ name: s.name, records: s.requests.length, measured: s.summary?.requests.total ?? null }));

test('the offset estimate keeps the round trip with the shortest time; its uncertainty is half that time', () => {
  const e = estimateOffset([
    { sentMs: 0, peerMs: 310, answeredMs: 40 }, // a slow trip: midpoint 20, offset 290 +- 20
    { sentMs: 100, peerMs: 401, answeredMs: 102 }, // the shortest: offset 300 +- 1
    { sentMs: 200, peerMs: 530, answeredMs: 260 },
  ]);
  assert.deepEqual(e, { offsetMs: 300, uncertaintyMs: 1, rttMs: 2 });
});

test('4 shard processes against the simulator make one file: every planned request once, 4 shards with offsets, the counts of one process; merge agrees', async () => {
  const s = await simulator();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-shards-'));
  const flags = simFlags(s, ['--profile', 'concurrency', '--concurrency', '4,8', '--requests', '40', '--warmup', '2']);
  const sharded = await runShards({ flags, dir });
  assert.deepEqual(sharded.codes, [0, 0, 0, 0], sharded.outputs.join('\n----\n'));
  const doc = read(sharded.out);
  assert.equal(doc.status, 'complete');
  assert.equal(doc.shards?.count, 4);
  assert.equal(doc.shards?.shard, undefined, "the coordinator's file is the whole run's");
  assert.deepEqual(doc.shards?.members.map((m) => [m.shard, m.state, typeof m.offsetMs, typeof m.uncertaintyMs]), [0, 1, 2, 3].map((i) => [i, 'done', 'number', 'number']));
  for (const m of doc.shards?.members ?? []) assert.ok(Math.abs(m.offsetMs ?? NaN) <= (m.uncertaintyMs ?? 0) + 1, `shard ${m.shard}: same machine, offset ${m.offsetMs} ± ${m.uncertaintyMs}`);
  assert.ok(!readFileSync(sharded.out, 'utf8').includes(TOKEN), 'the run token is in no file');
  for (const step of doc.steps) {
    const indexes = step.requests.map((r) => r.index).sort((a, b) => a - b);
    assert.deepEqual(indexes, Array.from({ length: 42 }, (_, k) => k), `${step.name}: every planned request once`);
    for (const r of step.requests) assert.equal(r.worker, r.index % 4, `${step.name}: request ${r.index} is shard ${r.index % 4}'s`);
    assert.equal(step.client?.workers, 4);
  }

  // The simulator answers from this process: the one-process run is awaited, never run synchronously.
  const single = join(dir, 'one-process.llmbench.json');
  const started: Started[] = [];
  try {
    const one = start([cliPath, 'run', ...flags, '--out', single], {}, dir, 60_000, started);
    assert.equal(await one.exit, 0, one.output());
  } finally {
    stopAll(started);
  }
  assert.deepEqual(counts(doc), counts(read(single)), 'the same plan in one process');

  // Each other shard wrote its own file; merged with the coordinator's, the run comes out the same.
  const shardFiles = [1, 2, 3].map((i) => join(dir, `run.shard-${i}.llmbench.json`));
  for (const [i, f] of shardFiles.entries()) {
    const own = read(f);
    assert.equal(own.shards?.shard, i + 1);
    assert.equal(own.shards?.members[0]?.state, 'done', `shard ${i + 1}'s own file: it served until the run ended`);
    assert.equal(own.shards?.runId, doc.shards?.runId);
    assert.ok(own.steps.every((st) => st.requests.every((r) => r.index % 4 === i + 1)), `shard ${i + 1}'s file holds its own requests`);
  }
  const mergedPath = join(dir, 'merged.llmbench.json');
  const merged = spawnSync(process.execPath, [cliPath, 'merge', ...shardFiles, sharded.out, '--out', mergedPath], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(merged.status, 0, merged.stderr);
  const m = read(mergedPath);
  assert.equal(m.status, 'complete');
  assert.deepEqual(counts(m), counts(doc));
  assert.deepEqual(m.steps.map((st) => st.summary?.ttftMs), doc.steps.map((st) => st.summary?.ttftMs), 'the same percentiles from the same records');

  // Refusals: a file of no shard run, and a shard file of the same run with another seed.
  const refusedPlain = spawnSync(process.execPath, [cliPath, 'merge', sharded.out, single, '--out', join(dir, 'x.llmbench.json')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(refusedPlain.status, 2);
  assert.match(refusedPlain.stderr, /one-process\.llmbench\.json is not a shard run's file/);
  const otherSeed = join(dir, 'other-seed.llmbench.json');
  const edited = JSON.parse(readFileSync(shardFiles[0]!, 'utf8')) as Doc;
  edited.config.seed = 7;
  writeFileSync(otherSeed, JSON.stringify(edited));
  const refusedSeed = spawnSync(process.execPath, [cliPath, 'merge', sharded.out, otherSeed, '--out', join(dir, 'y.llmbench.json')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(refusedSeed.status, 2);
  assert.match(refusedSeed.stderr, /other-seed\.llmbench\.json and .*run\.llmbench\.json were run with different seeds \(7 and 42\)/);
  assert.ok(!existsSync(join(dir, 'y.llmbench.json')), 'a refused merge writes nothing');
});

test("the Kubernetes manifest's exact command and environment, run as 4 local pods (JOB_COMPLETION_INDEX 0..3, the coordinator's name on 127.0.0.1), make one result", async () => {
  const s = await simulator();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-k8s-pods-'));
  const port = await freePort();
  const manifest = join(dir, 'shards.yaml');
  const made = spawnSync(
    process.execPath,
    [cliPath, 'cluster', 'k8s', '--image', 'registry.example/llm-bench:0.1.0', '--shards', '4', '--name', 'bench', '--host-path', dir, '--mount-path', dir, '--out', join(dir, 'sweep.llmbench.json'), '--port', String(port), '--llmbench', cliPath, '--manifest', manifest, '--', ...simFlags(s, ['--profile', 'sweep', '--rate', '2', '--requests', '24'])],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.equal(made.status, 0, made.stderr);
  const docs = readYamlDocuments(readFileSync(manifest, 'utf8')) as Doc[];
  for (const d of docs) assert.deepEqual(await kubernetesSchemaErrors(d.kind as KubernetesKind, d), [], `${d.kind} valid against Kubernetes' schemas`);
  const secret = docs.find((d) => d.kind === 'Secret')!;
  const job = docs.find((d) => d.kind === 'Job')!;
  const pod = job.spec.template.spec;
  const container = pod.containers[0];
  const command = container.command as string[];
  assert.equal(command[0], 'node');
  // Each pod: the container's words (its `node` this machine's), its env with the Secret's value, its index, its DNS name on loopback.
  const coordinatorName = `${job.metadata.name}-0.${pod.subdomain}`;
  assert.ok(command.includes(`${coordinatorName}:${port}`), command.join(' '));
  const env = (i: number): Record<string, string> => ({
    ...Object.fromEntries((container.env as Doc[]).map((e) => [e.name, e.valueFrom.secretKeyRef.name === secret.metadata.name ? secret.stringData[e.valueFrom.secretKeyRef.key] : ''])),
    JOB_COMPLETION_INDEX: String(i),
    LLMBENCH_TEST_HOSTS: `${coordinatorName}=127.0.0.1`,
  });
  const started: Started[] = [];
  try {
    const pods = [0, 1, 2, 3].map((i) => start(command.slice(1), env(i), dir, 120_000, started));
    const codes = await Promise.all(pods.map((p) => p.exit));
    assert.deepEqual(codes, [0, 0, 0, 0], pods.map((p) => p.output()).join('\n----\n'));
  } finally {
    stopAll(started);
  }
  const doc = read(join(dir, 'sweep.llmbench.json'));
  assert.equal(doc.status, 'complete', doc.statusReason ?? '');
  assert.equal(doc.shards?.count, 4);
  // A sweep: its rate steps were placed from the steps gathered from all 4 shards.
  assert.ok(doc.steps.length >= 4, doc.steps.map((st) => st.name).join(', '));
  for (const step of doc.steps) {
    const indexes = step.requests.map((r) => r.index).sort((a, b) => a - b);
    assert.equal(new Set(indexes).size, indexes.length, `${step.name}: no request twice`);
    // The synchronous step has one lane, which is shard 0's; every other step is split over all four.
    assert.deepEqual([...new Set(step.requests.map((r) => r.worker))].sort(), step.name === 'synchronous' ? [0] : [0, 1, 2, 3], `${step.name}: from its shards`);
  }
});

test('a shard SIGKILLed mid-step ends the run partial naming it; everything measured is kept, and its own file merges back', async () => {
  const s = await simulator();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-shard-kill-'));
  const out = join(dir, 'run.llmbench.json');
  let killedAt = -1;
  let statesBefore: string[] = [];
  let liveSection = null as ReturnType<typeof shardsSection>;
  const run = await runShards({
    flags: simFlags(s, ['--profile', 'rate', '--rate', '40', '--arrival', 'constant', '--requests', '400']),
    dir,
    during: async (started) => {
      killedAt = await killWhen(out, started[2]!, (records, running) => {
        const ofShard2 = records.filter((r) => r.worker === 2).length;
        statesBefore = running.shards?.members.map((m) => m.state) ?? [];
        // What the result editor following the file shows now.
        liveSection = shardsSection(running);
        return ofShard2 >= 10 ? ofShard2 : 0;
      });
    },
  });
  // The file the views follow says each shard's state while the run goes, and the loss once it happens.
  assert.deepEqual(statesBefore, ['running', 'running', 'running', 'running'], 'while it ran');
  assert.ok(liveSection, 'a shards section while it ran');
  assert.deepEqual(liveSection.table.rows.map((row) => row[3]), ['running', 'running', 'running', 'running']);
  const stepName = (JSON.parse(readFileSync(out, 'utf8')) as Doc).steps[0].name as string;
  assert.ok(liveSection.notes.includes(`Send lateness: in the step running now, ${stepName}.`), liveSection.notes.join('\n'));
  assert.ok(liveSection.table.rows.every((row) => Number(row[4]) > 0 && /^-?\d+\.\d$/.test(row[6]!)), 'each shard sent in the step, its lateness max shown');
  assert.ok(killedAt > 0, 'shard 2 sent records before it was killed');
  assert.equal(run.codes[0], 1, run.outputs[0]);
  const doc = read(run.out);
  assert.equal(doc.status, 'partial');
  assert.match(doc.statusReason ?? '', /Shard 2 of 4 \(host [^,]+, pid \d+\) stopped during step /);
  // Said again in the display language from its template: who, the step and the figures kept.
  assert.match(sayWarning(doc.statusReason ?? '', translator(ZH_CN)), /^分片 2（共 4 个）（主机 [^，]+，pid \d+）在步 .+? 中停止（.+）(：它 \d+ ms 前的最后一次报告中有 \d+ 个请求在途，这些请求连同此后结束的请求都已丢失)?。运行已停止；之前记录的每个请求都已保留。$/);
  assert.deepEqual(doc.shards?.members.map((m) => m.state), ['done', 'done', 'lost', 'done']);
  const records = doc.steps.flatMap((st) => st.requests);
  assert.ok(records.filter((r) => r.worker === 2).length >= killedAt, 'what shard 2 sent before is kept');
  assert.ok(records.length < 400 && records.length > killedAt, `${records.length} records kept`);
  assert.equal(new Set(records.map((r) => r.index)).size, records.length);
  // The others were told: their own files are partial for the same reason.
  for (const i of [1, 3]) assert.equal(read(join(dir, `run.shard-${i}.llmbench.json`)).status, 'partial');
  // Shard 2's own file, left running by the kill, reads as interrupted and merges in.
  const own2 = read(join(dir, 'run.shard-2.llmbench.json'));
  assert.equal(own2.status, 'partial');
  const mergedPath = join(dir, 'merged.llmbench.json');
  const merged = spawnSync(process.execPath, [cliPath, 'merge', run.out, ...[1, 2, 3].map((i) => join(dir, `run.shard-${i}.llmbench.json`)), '--out', mergedPath], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(merged.status, 1, merged.stderr);
  const m = read(mergedPath);
  assert.equal(m.status, 'partial');
  assert.deepEqual(m.shards?.members.map((mm) => mm.state), ['done', 'done', 'lost', 'done'], 'merged: the coordinator saw shard 2 go');
  assert.ok(m.steps[0]!.requests.filter((r) => r.worker === 2).length >= records.filter((r) => r.worker === 2).length);
});

test('a shard that never starts ends the run partial after the registration timeout, naming it; nothing is sent', async () => {
  const s = await simulator();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-shard-missing-'));
  const began = performance.now();
  const run = await runShards({ flags: simFlags(s, ['--profile', 'concurrency', '--concurrency', '4', '--requests', '20']), dir, skip: [3], timeoutSec: 3 });
  const tookMs = performance.now() - began;
  assert.deepEqual(run.codes, [1, 1, 1], run.outputs.join('\n----\n'));
  assert.ok(tookMs < 30_000, `${tookMs} ms`);
  const doc = read(run.out);
  assert.equal(doc.status, 'partial');
  assert.match(doc.statusReason ?? '', /Shard 3 of 4 did not register with the coordinator at 127\.0\.0\.1:\d+ within 3 s/);
  assert.equal(doc.steps.length, 0);
  assert.deepEqual(doc.shards?.members.map((m) => m.state), ['registered', 'registered', 'registered', 'missing']);
  for (const i of [1, 2]) assert.equal(read(join(dir, `run.shard-${i}.llmbench.json`)).status, 'partial');
});

test('a shard whose clock is 300 ms ahead: its offset is measured, and its requests reach the server on the common schedule', async () => {
  const server = await startTokenServer({ firstTokenMs: 1, gapMs: 1, traceWrites: true });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'llmbench-shard-clock-'));
    const flags = ['--url', server.baseUrl, '--model', 'token-server-model', '--input-tokens', '16', '--output-tokens', '4', '--server-metrics', 'off', '--profile', 'rate', '--rate', '20', '--arrival', 'constant', '--requests', '40'];
    const run = await runShards({ flags, dir, envOf: (i): Record<string, string> => (i === 3 ? { LLMBENCH_TEST_CLOCK_SHIFT_MS: '300' } : {}) });
    assert.deepEqual(run.codes, [0, 0, 0, 0], run.outputs.join('\n----\n'));
    const doc = read(run.out);
    const shifted = doc.shards!.members[3]!;
    assert.ok(Math.abs(shifted.offsetMs! - 300) <= shifted.uncertaintyMs! + 1, `offset ${shifted.offsetMs} ± ${shifted.uncertaintyMs} ms for a clock 300 ms ahead`);

    // Which request each arrival was (its prompt), and so its shard and its planned send time.
    const config = RunConfigSchema.parse(doc.config);
    const workload = await createWorkload(config, await createTokenCounter(config.tokenizer));
    const step = planRun(config).steps[0]!;
    assert.equal(step.pacing.kind, 'open');
    const schedule = step.pacing.kind === 'open' ? step.pacing.schedule : new Float64Array();
    const lateness: number[][] = [[], [], [], []];
    for (let k = 0; k < 40; k++) {
      const prompt = workload.request(k).prompt;
      const key = typeof prompt === 'string' ? prompt : promptKey({ messages: prompt });
      const arrived = server.writes.get(key);
      assert.ok(arrived, `request ${k} reached the server`);
      lateness[k % 4]!.push(arrived.arrivedMs - schedule[k]! * 1000);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const others = median([...lateness[0]!, ...lateness[1]!, ...lateness[2]!]);
    const skew = median(lateness[3]!) - others;
    // Uncorrected, the skew is about 300 ms; 100 ms leaves room for a shard that wakes late on a loaded machine.
    assert.ok(Math.abs(skew) <= shifted.uncertaintyMs! + 100, `shard 3's requests arrived ${skew.toFixed(1)} ms off the others' schedule (uncertainty ${shifted.uncertaintyMs} ms)`);
  } finally {
    await server.close();
  }
});

test("a coordinator SIGKILLed mid-step: every shard stops and ends its own file partial, saying so; merge puts the run back together", async () => {
  const s = await simulator();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-coordinator-kill-'));
  const out = join(dir, 'run.llmbench.json');
  const run = await runShards({
    flags: simFlags(s, ['--profile', 'rate', '--rate', '40', '--arrival', 'constant', '--requests', '400']),
    dir,
    during: async (started) => {
      await killWhen(out, started[0]!, (records) => (records.length >= 40 ? records.length : 0));
    },
  });
  assert.deepEqual(run.codes.slice(1), [1, 1, 1], run.outputs.join('\n----\n'));
  const files = [1, 2, 3].map((i) => join(dir, `run.shard-${i}.llmbench.json`));
  for (const f of files) {
    const own = read(f);
    assert.equal(own.status, 'partial');
    assert.match(own.statusReason ?? '', /The connection to the coordinator was lost during the run/);
    assert.ok(own.steps[0]!.requests.length > 0);
  }
  const mergedPath = join(dir, 'merged.llmbench.json');
  const merged = spawnSync(process.execPath, [cliPath, 'merge', out, ...files, '--out', mergedPath], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(merged.status, 1, merged.stderr);
  const m = read(mergedPath);
  const kept = m.steps[0]!.requests;
  // No file recorded an end for any shard (the coordinator died with the run): each still says running, which the views read as cut short.
  assert.deepEqual(m.shards?.members.map((mm) => mm.state), ['running', 'running', 'running', 'running']);
  assert.deepEqual(shardsSection(m)?.table.rows.map((row) => row[3]), Array(4).fill('running when its file was last written'));
  assert.deepEqual([...new Set(kept.map((r) => r.worker))].sort(), [0, 1, 2, 3]);
  assert.equal(new Set(kept.map((r) => r.index)).size, kept.length, 'no request twice');
  for (const [i, f] of files.entries()) assert.equal(kept.filter((r) => r.worker === i + 1).length, read(f).steps[0]!.requests.length, `shard ${i + 1}: its own file's records`);
});

test("a shard run over several endpoints: each shard sends each endpoint its own key from its own environment, and every shard's failover events reach the file", async (t) => {
  const keys = ['sk-shard-first-endpoint-0000', 'sk-shard-second-endpoint-1111'];
  const seen: { endpoint: number; authorization: string | undefined }[][] = [[], []];
  const answer = (endpoint: number) => (request: RecordedRequest) => {
    seen[endpoint]!.push({ endpoint, authorization: request.headers.authorization });
    if (request.path.endsWith('/metrics')) return { status: 404 };
    return { status: 200, headers: JSON_HEADERS, steps: [JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } })] };
  };
  const servers = await Promise.all([startScriptedServer(answer(0)), startScriptedServer(answer(1))]);
  t.after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  const down = `http://127.0.0.1:${await closedPort()}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-shard-endpoints-'));
  const configPath = join(dir, 'endpoints.llmbench-config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      endpoints: [
        { baseUrl: servers[0]!.baseUrl, model: 'm', apiKeyEnv: 'FIRST_KEY' },
        { baseUrl: servers[1]!.baseUrl, model: 'm', apiKeyEnv: 'SECOND_KEY' },
        { baseUrl: down, model: 'm' },
      ],
      failover: {},
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
      request: { stream: false },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 30 },
      serverMetrics: { url: 'off' },
    }),
  );
  const run = await runShards({ flags: ['--config', configPath], dir, n: 2, envOf: () => ({ FIRST_KEY: keys[0]!, SECOND_KEY: keys[1]! }) });
  assert.deepEqual(run.codes, [0, 0], run.outputs.join('\n----\n'));
  const doc = read(run.out);
  const step = doc.steps[0]!;
  for (const endpoint of [0, 1]) {
    const sent = seen[endpoint]!;
    assert.ok(sent.length > 0 && sent.every((s) => s.authorization === `Bearer ${keys[endpoint]}`), `endpoint ${endpoint} got its own key only: ${JSON.stringify(sent.map((s) => s.authorization))}`);
    for (const shard of [0, 1]) assert.ok(step.requests.some((r) => r.worker === shard && r.endpoint === endpoint && r.error === null), `shard ${shard} was answered by endpoint ${endpoint}`);
  }
  // Each shard's router put the endpoint that is down out on its own: two events, one of them shard 1's, sent over its connection.
  assert.deepEqual(step.failovers?.map((e) => [e.endpoint, e.event]), [[2, 'out'], [2, 'out']]);
  assert.deepEqual(read(join(dir, 'run.shard-1.llmbench.json')).steps[0]!.failovers?.map((e) => [e.endpoint, e.event]), [[2, 'out']]);
  for (const text of [readFileSync(run.out, 'utf8'), readFileSync(join(dir, 'run.shard-1.llmbench.json'), 'utf8'), ...run.outputs]) {
    for (const key of keys) assert.ok(!text.includes(key), 'no key in a file or a log');
  }
});
