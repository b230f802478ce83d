// Trace replay end to end (issue 22): `llmbench run --trace` on each format's fixture against a
// loopback server (every row one request, its max_tokens and prompt length the row's, its record
// carrying the row), bad rows through the command line, send times against the trace, Mooncake's
// shared blocks in the simulator's prefix cache, and the plan of a trace step split over executors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { RunConfigSchema, type RunConfig, type RunConfigInput } from '../../src/format/config';
import type { RequestRecord } from '../../src/format/result';
import { TraceSourceSchema } from '../../src/format/trace';
import { runBenchmark } from '../../src/load/runner';
import { executePart, preparePart } from '../../src/load/execute';
import { partition, planRun, traceSourceOf } from '../../src/load/plan';
import { scanTrace } from '../../src/workload/trace-scan';
import { openTrace, type TraceEntry } from '../../src/workload/trace';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { createWorkload } from '../../src/workload/sources';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { latenessRows, liveCharts } from '../../src/views/live';
import { buildResultView } from '../../src/views/result';
import { promptKey, startTokenServer, TOKEN_SERVER_MODEL, type TokenServer } from '../helpers/cli-server';
import { repoRoot, runCliLimited } from '../helpers/limited-child';
import { readResultFile } from '../helpers/result-documents';
import { ThreadLoadMeter } from '../../src/load/thread-load';
import { counterValue, startSimProcess } from '../helpers/sim-process';

const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'traces', name);

/** `llmbench ...args` in `cwd` (a new folder by default). */
const runCli = (args: string[], cwd?: string, timeoutMs = 60_000) => runCliLimited(args, { ...(cwd !== undefined ? { cwd } : {}), timeoutMs });

const readResult = readResultFile;

async function entriesOf(path: string, extra: Record<string, unknown> = {}): Promise<TraceEntry[]> {
  const reader = await openTrace(TraceSourceSchema.parse({ path, ...extra }));
  const entries: TraceEntry[] = [];
  for await (const entry of reader.entries()) entries.push(entry);
  return entries;
}

async function withTokenServer(t: { after(fn: () => Promise<void>): void }, options: Parameters<typeof startTokenServer>[0] = {}): Promise<TokenServer> {
  const server = await startTokenServer(options);
  t.after(() => server.close());
  return server;
}

/** The text a request's prompt is, from its body (a chat message or a completions prompt). */
const promptOf = (body: Record<string, unknown>): string => promptKey(body);

const FORMATS: Array<{ file: string; flags?: string[]; config?: Record<string, unknown>; failed?: number }> = [
  { file: 'mooncake-conversation-head.jsonl' },
  { file: 'mooncake-readme.jsonl' },
  { file: 'azure-2023-code-head.csv' },
  { file: 'azure-2024-code-head.csv', flags: ['--trace-format', 'azure'] },
  { file: 'burstgpt.csv', failed: 2 },
  { file: 'columns.csv', config: { kind: 'trace', columns: { time: 'arrival_us', timeUnit: 'us', inputTokens: 'prompt_tokens', outputTokens: 'completion_tokens', hashIds: 'blocks' } } },
  { file: 'columns.jsonl', config: { kind: 'trace', format: 'columns', columns: { time: 't', timeUnit: 's', inputTokens: 'isl', outputTokens: 'osl' } } },
];

test('llmbench run --trace replays each format: one request per row, its lengths, its line and recorded time in the record', async (t) => {
  const server = await withTokenServer(t);
  const counter = await createTokenCounter();
  for (const format of FORMATS) {
    const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-format-'));
    const out = join(dir, 'run.llmbench.json');
    const args = ['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--trace', fixture(format.file), '--time-scale', '200', '--out', out, ...(format.flags ?? [])];
    if (format.config) {
      writeFileSync(join(dir, 'trace.llmbench-config.json'), JSON.stringify({ profile: { ...format.config, path: fixture(format.file) } }));
      args.push('--config', join(dir, 'trace.llmbench-config.json'));
    }
    const seenBefore = server.requests.length;
    const outcome = await runCli(args, dir);
    assert.equal(outcome.code, 0, `${format.file}: ${outcome.stderr}`);
    const doc = readResult(out);
    const step = doc.steps[0];
    assert.ok(step, format.file);
    assert.equal(step.profile.kind, 'trace');
    assert.equal(step.name, 'trace@200x');
    const { kind: _kind, ...source } = format.config ?? (format.flags ? { format: 'azure' } : {});
    const expected = await entriesOf(fixture(format.file), { ...source, timeScale: 200 });
    assert.equal(step.profile.trace?.requests, expected.length, format.file);
    assert.equal(step.requests.length, expected.length, `${format.file}: one record per row`);
    assert.equal(step.profile.trace?.failedRequests?.count ?? 0, format.failed ?? 0, `${format.file}: recorded failures left out and counted`);
    const sent = server.requests.slice(seenBefore);
    assert.equal(sent.length, expected.length);
    for (const record of step.requests) {
      const entry = expected[record.index] as TraceEntry;
      assert.deepEqual(record.trace && { line: record.trace.line, recordedMs: record.trace.recordedMs }, { line: entry.line, recordedMs: entry.recordedMs }, `${format.file} request ${record.index}`);
      assert.equal(record.scheduledMs, Math.round(entry.atMs * 1000) / 1000, `${format.file} request ${record.index}: due at its recorded time, scaled`);
    }
    // Each row's lengths reach the server: max_tokens its output, a prompt its input tokens long.
    const byLength = (a: number[], b: number[]) => assert.deepEqual([...a].sort((x, y) => x - y), [...b].sort((x, y) => x - y), format.file);
    byLength(sent.map((r) => Number(r.body.max_tokens)), expected.map((e) => e.outputTokens));
    byLength(sent.map((r) => counter.count(promptOf(r.body))), expected.map((e) => e.inputTokens));
    assert.match(outcome.stdout, /Trace replay \(send lateness/);
  }
});

test('a bad row stops the run before anything is sent, naming its line; --skip-bad-rows counts it in the result', async (t) => {
  const server = await withTokenServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-bad-'));
  const path = join(dir, 'bad.jsonl');
  writeFileSync(
    path,
    [
      '{"timestamp": 0, "input_length": 40, "output_length": 4}',
      '{"timestamp": 10, "input_length": 40, "output_length": 4}',
      '{"timestamp": 20, "input_length": -5, "output_length": 4}',
      '{"timestamp": 5, "input_length": 40, "output_length": 4}',
      '{"timestamp": 30, "output_length": 4}',
      '{"timestamp": 40, "input_length": 40, "output_length": 4}',
      '',
    ].join('\n'),
  );
  const out = join(dir, 'bad.llmbench.json');
  const refused = await runCli(['run', '--url', server.baseUrl, '--model', 'm', '--trace', path, '--out', out], dir);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /Trace file .*bad\.jsonl line 3: .*input tokens are a whole number of at least 1.*--skip-bad-rows/);
  assert.equal(server.requests.length, 0, 'nothing was sent');
  assert.throws(() => readFileSync(out), /ENOENT/, 'no result file was written');

  const skipped = await runCli(['run', '--url', server.baseUrl, '--model', 'm', '--trace', path, '--skip-bad-rows', '--time-scale', '10', '--out', out], dir);
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.match(skipped.stderr, /3 bad rows were skipped/);
  const doc = readResult(out);
  const trace = doc.steps[0]?.profile.trace;
  assert.deepEqual(trace?.skipped, { 'bad-length': { count: 1, firstLine: 3 }, 'time-backwards': { count: 1, firstLine: 4 }, 'missing-field': { count: 1, firstLine: 5 } });
  assert.equal(doc.steps[0]?.requests.length, 3);
  assert.deepEqual(doc.steps[0]?.requests.map((r) => r.trace?.line).sort(), [1, 2, 6]);
  assert.ok(doc.warnings?.some((w) => /3 bad rows were skipped/.test(w)), 'the count is in the file');
});

/** A trace of `count` rows at about `rate` requests per second, in bursts of 1 to 3 at the same time. */
function burstyTrace(path: string, count: number, rate: number): void {
  const lines: string[] = [];
  let time = 0;
  for (let i = 0; i < count; ) {
    const burst = Math.min(count - i, 1 + (i % 3));
    for (let b = 0; b < burst; b++, i++) lines.push(JSON.stringify({ timestamp: Math.round(time * 1000) / 1000, input_length: 24, output_length: 2 }));
    time += (burst * 1000) / rate;
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function configFor(baseUrl: string, overrides: Partial<RunConfigInput>): RunConfig {
  return RunConfigSchema.parse({ endpoint: { baseUrl, model: 'm' }, workload: { kind: 'synthetic' }, serverMetrics: { url: 'off' }, ...overrides });
}

test('requests go out at their recorded times: scheduled as the trace says, sent within 2 ms at 50 req/s on the loopback server', async (t) => {
  const server = await withTokenServer(t, { keepRequests: false });
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-times-'));
  const path = join(dir, 'bursty.jsonl');
  burstyTrace(path, 150, 50);
  // As users run it: `llmbench run`, its engine in a worker thread of its own process.
  const out = join(dir, 'times.llmbench.json');
  const outcome = await runCli(['run', '--url', server.baseUrl, '--model', 'm', '--trace', path, '--server-metrics', 'off', '--out', out], dir);
  assert.equal(outcome.code, 0, outcome.stderr);
  const doc = readResult(out);
  assert.equal(doc.status, 'complete');
  const records = doc.steps[0]?.requests ?? [];
  assert.equal(records.length, 150);
  const entries = await entriesOf(path);
  for (const r of records) assert.equal(r.scheduledMs, Math.round((entries[r.index] as TraceEntry).atMs * 1000) / 1000);
  const lateness = records.map((r) => r.sentMs - r.scheduledMs).sort((a, b) => a - b);
  assert.ok((lateness[0] ?? 0) >= -0.01, `no request went out before its time: ${lateness[0]}`);
  // The median holds the 2 ms on this shared machine (other processes take its cores for tens of
  // milliseconds at times, which the tail shows); `npm run bench:trace` measures p50 and p99.
  const p50 = lateness[Math.floor(0.5 * lateness.length)] ?? Infinity;
  const p90 = lateness[Math.floor(0.9 * lateness.length)] ?? Infinity;
  assert.ok(p50 <= 2, `half the sends within 2 ms of the trace (p50 ${p50.toFixed(3)} ms, p90 ${p90.toFixed(3)} ms, max ${lateness.at(-1)?.toFixed(3)} ms)`);
  assert.ok((lateness.at(-1) ?? 0) < 250, `none far behind: max ${lateness.at(-1)?.toFixed(3)} ms`);
  assert.ok(records.every((r) => !r.trace?.promptLate), 'every prompt was built ahead of its time');

  // The result view: its lateness table and its load over time, recorded against sent.
  const view = buildResultView({ document: doc, unfinishedSteps: [] }, 'times.llmbench.json');
  assert.equal(view.trace?.table.rows.length, 1);
  const load = view.trace?.charts[0];
  const recorded = load?.series.find((s) => s.label === 'recorded (scaled)')?.points ?? [];
  const sent = load?.series.find((s) => s.label === 'sent')?.points ?? [];
  assert.equal(recorded.reduce((n, [, v]) => n + v, 0), 150, 'every request in the recorded line');
  assert.equal(sent.reduce((n, [, v]) => n + v, 0), 150, 'and in the sent line');
});

test('the live panel says a trace step\'s send lateness and draws the load sent against the recorded one', async (t) => {
  const server = await withTokenServer(t, { keepRequests: false });
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-live-'));
  const path = join(dir, 'bursty.jsonl');
  burstyTrace(path, 60, 100);
  const events: Parameters<typeof applyRunEvent>[1][] = [];
  const doc = await runBenchmark(configFor(server.baseUrl, { profile: { kind: 'trace', path } }), { onEvent: (e) => events.push(e) });
  assert.equal(doc.status, 'complete');
  const state = newLiveState({ id: 'r', model: 'm', baseUrl: server.baseUrl, profile: 'trace', startedAt: '', labels: [], expectedSteps: null, resultPath: null });
  events.forEach((e, i) => applyRunEvent(state, e, i * 0.1));
  const [row] = latenessRows(state);
  assert.equal(row?.[0], 'trace');
  assert.equal(row?.[1], '60');
  const throughput = liveCharts(state).find((c) => c.id === 'throughput');
  assert.ok(throughput?.spec.series.some((s) => s.label === 'target (recorded) requests/s' && s.data.some((p) => p.y >= 50)), 'the recorded load is drawn');
  assert.ok(throughput?.spec.series.some((s) => s.label === 'sent requests/s'), 'the sent load is drawn');
  const progress = events.flatMap((e) => (e.type === 'progress' ? [e.snapshot] : []));
  assert.ok(progress.some((p) => (p.sentPerSecond ?? 0) > 0), 'progress counts the sends');
  assert.ok(progress.some((p) => p.sendLatenessMs !== undefined && p.sendLatenessMs !== null && p.sendLatenessMs.count > 0), 'progress says the lateness so far');
});

test("Mooncake's shared hash ids reach the simulator's prefix cache through llmbench run --profile trace", async (t) => {
  const sim = await startSimProcess('tiny', ['--speedup', '20']);
  t.after(() => sim.close());
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-prefix-'));
  const withIds = fixture('mooncake-conversation-head.jsonl');
  // The same rows without their hash ids: every prompt its own text.
  const withoutIds = join(dir, 'no-ids.jsonl');
  writeFileSync(
    withoutIds,
    readFileSync(withIds, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const { hash_ids: _ids, ...row } = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify(row);
      })
      .join('\n'),
  );
  const hits = async (): Promise<number> => counterValue(await (await fetch(sim.metricsUrl)).text(), 'vllm:prefix_cache_hits_total');
  const replay = async (path: string): Promise<number> => {
    const before = await hits();
    const outcome = await runCli(['run', '--url', sim.baseUrl, '--model', 'm', '--profile', 'trace', '--trace', path, '--time-scale', '20', '--out', join(dir, 'r.llmbench.json')], dir, 120_000);
    assert.equal(outcome.code, 0, outcome.stderr);
    return (await hits()) - before;
  };
  const shared = await replay(withIds);
  const own = await replay(withoutIds);
  // Every row opens with block 0 (512 tokens). The first six are sent together (all at 0 ms), so
  // they prefill it at once; each of the six later rows finds it cached.
  assert.ok(shared >= 5 * 512, `the shared blocks hit the cache: ${shared} tokens`);
  assert.ok(own < shared / 10, `without hash ids the prompts share nothing: ${own} tokens hit, against ${shared}`);
});

test('a trace step is planned as a reference to its file, and split over executors each replays its own rows (k mod N) as one would', async (t) => {
  const server = await withTokenServer(t, { keepRequests: true });
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-split-'));
  const path = join(dir, 'split.jsonl');
  burstyTrace(path, 30, 300);
  const config = configFor(server.baseUrl, { profile: { kind: 'trace', path, timeScale: 2 } });
  const trace = await scanTrace(traceSourceOf(config.profile as Extract<RunConfig['profile'], { kind: 'trace' }>));
  const plan = planRun(config, trace);
  const step = plan.steps[0];
  assert.ok(step && step.pacing.kind === 'trace');
  assert.deepEqual(structuredClone(plan), plan, 'plain data');
  assert.ok(JSON.stringify(plan).length < 4000, 'no row is in the plan');
  assert.equal(step.requests, 30);

  const tokenCounter = await createTokenCounter();
  const workload = await createWorkload(config, tokenCounter);
  const sentBy = async (executors: number): Promise<{ records: Map<number, { executor: number; record: RequestRecord }>; prompts: string[] }> => {
    const parts = partition(step, executors, { prompt: 0, session: 0 });
    const stop = new AbortController();
    const drain = new AbortController();
    const before = server.requests.length;
    const envs = await Promise.all(
      parts.map(async (part) => ({ config, apiKey: undefined, workload, tokenCounter, dispatcher: new Agent({ connections: 64 }), meter: new ThreadLoadMeter(), ...(await preparePart(part, { config, tokenCounter })) })),
    );
    const startMs = performance.now();
    const records = new Map<number, { executor: number; record: RequestRecord }>();
    const sink = (executor: number) => ({
      inFlight: () => undefined,
      lateness: () => undefined,
      record: (record: RequestRecord) => {
        assert.ok(!records.has(record.index), `request ${record.index} sent once`);
        records.set(record.index, { executor, record });
      },
    });
    await Promise.all(parts.map((part, i) => executePart(part, startMs, envs[i] as (typeof envs)[number], { stop: stop.signal, drain: drain.signal }, sink(i))));
    await Promise.all(envs.map((e) => e.dispatcher.destroy()));
    return { records, prompts: server.requests.slice(before).map((r) => promptOf(r.body)).sort() };
  };
  const one = await sentBy(1);
  const three = await sentBy(3);
  assert.equal(one.records.size, 30);
  assert.equal(three.records.size, 30);
  assert.deepEqual(three.prompts, one.prompts, 'the same prompts went out');
  for (const [index, sent] of three.records) {
    const alone = one.records.get(index)?.record;
    assert.equal(sent.executor, index % 3, `request ${index} is executor ${index % 3}'s`);
    assert.equal(sent.record.scheduledMs, alone?.scheduledMs, `request ${index} due when one executor sends it`);
    assert.equal(sent.record.trace?.line, alone?.trace?.line);
    assert.equal(sent.record.inputTokens, alone?.inputTokens);
  }
});
