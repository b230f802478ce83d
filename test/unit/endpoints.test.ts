// A run over several endpoints (issue 22): two simulator processes of different presets told apart
// by their figures per endpoint under both strategies, each replica's /metrics scraped, failover
// with one endpoint down (and without it), each endpoint's key redacted everywhere, and the
// routing rule itself on a clock of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/format/config';
import { RunEventSchema, type RunEvent } from '../../src/format/events';
import { ENDPOINT_LABEL } from '../../src/format/server-metrics';
import type { FailoverEvent, RequestRecord, ResultDocument } from '../../src/format/result';
import { EndpointRouter } from '../../src/load/endpoints';
import { runBenchmark } from '../../src/load/runner';
import type { ClientContext } from '../../src/load/types';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { serverStrip } from '../../src/views/live';
import { buildResultView } from '../../src/views/result';
import { buildCompareView } from '../../src/views/compare';
import { buildReportModel } from '../../src/views/report';
import { formatRankingMarkdown } from '../../src/report/tables';
import { closedPort } from '../helpers/cli-server';
import { runCliLimited } from '../helpers/limited-child';
import { readResultFile } from '../helpers/result-documents';
import { startSimProcess, type SimProcess } from '../helpers/sim-process';
import { JSON_HEADERS, startScriptedServer } from '../helpers/sse-server';

/** `llmbench ...args` in a folder of its own, with `env` added. */
const runCli = (args: string[], env: Record<string, string> = {}) => runCliLimited(args, { env, timeoutMs: 90_000 });

const readResult = readResultFile;

/** The two replicas: a small fast engine (1 ms steps), and a 70B model on two H100s (18.5 ms steps). */
async function twoSimulators(t: { after(fn: () => Promise<void>): void }): Promise<[SimProcess, SimProcess]> {
  const [fast, slow] = await Promise.all([startSimProcess('tiny'), startSimProcess('llama3.3-70b-fp8-2xh100-nim')]);
  t.after(async () => {
    await Promise.all([fast.close(), slow.close()]);
  });
  return [fast, slow];
}

const LOAD = ['--model', 'm', '--concurrency', '4', '--requests', '40', '--input-tokens', '64', '--output-tokens', '16', '--server-metrics-interval', '200'];

test('two simulators of different presets are told apart by their figures per endpoint, round-robin and least-in-flight', async (t) => {
  const [fast, slow] = await twoSimulators(t);
  const outcomes: Record<string, ResultDocument> = {};
  for (const strategy of ['round-robin', 'least-in-flight']) {
    const out = join(mkdtempSync(join(tmpdir(), 'llmbench-endpoints-out-')), `${strategy}.llmbench.json`);
    const run = await runCli(['run', '--url', fast.baseUrl, '--url', slow.baseUrl, '--url-strategy', strategy, ...LOAD, '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const doc = readResult(out);
    outcomes[strategy] = doc;
    assert.deepEqual(doc.endpoints?.map((e) => e.baseUrl), [`${fast.baseUrl}`, `${slow.baseUrl}`]);
    assert.equal(doc.endpointStrategy, strategy);
    const step = doc.steps[0];
    assert.ok(step?.requests.every((r) => r.endpoint === 0 || r.endpoint === 1), 'every record says its endpoint');
    const [a, b] = [0, 1].map((i) => step?.endpoints?.find((e) => e.endpoint === i)?.summary);
    assert.ok(a && b, 'a summary per endpoint');
    assert.equal(a.requests.total + b.requests.total, step?.summary?.requests.total, 'the endpoints add up to the step');
    const [fastTtft, slowTtft, fastTpot, slowTpot] = [a.ttftMs?.p50 ?? 0, b.ttftMs?.p50 ?? 0, a.tpotMs?.p50 ?? 0, b.tpotMs?.p50 ?? 0] as const;
    assert.ok(slowTpot > 3 * fastTpot, `${strategy}: the slower replica's TPOT p50 stands out (${fastTpot.toFixed(1)} ms against ${slowTpot.toFixed(1)} ms)`);
    assert.ok(slowTtft > fastTtft, `${strategy}: and its TTFT p50 (${fastTtft.toFixed(1)} ms against ${slowTtft.toFixed(1)} ms)`);
    if (strategy === 'round-robin') assert.ok(Math.abs(a.requests.total - b.requests.total) <= 1, `round-robin gives each its turn: ${a.requests.total} and ${b.requests.total}`);
    else assert.ok(a.requests.total > b.requests.total, `least-in-flight gives the quicker replica more: ${a.requests.total} against ${b.requests.total}`);
    // The command line's table, the result view and its notes say which one is slower.
    assert.match(run.stdout, /Per endpoint \((round-robin|least-in-flight)\)/);
    assert.match(run.stdout, new RegExp(`endpoint #1 ${slow.baseUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is slower: TPOT p50`));
    const view = buildResultView({ document: doc, unfinishedSteps: [] }, 'r.llmbench.json');
    assert.equal(view.endpoints?.table.rows.length, 3, 'the step total and a row per endpoint');
    assert.ok(view.endpoints?.notes.some((n) => /#1 .* is slower/.test(n)));

    // Each replica's /metrics, scraped at the same instants and labelled by endpoint.
    const series = doc.steps.flatMap((s) => s.sampled ?? []).concat(doc.sampledAfterSteps ?? []);
    const running = series.filter((s) => s.name === 'vllm:num_requests_running');
    assert.deepEqual([...new Set(running.map((s) => s.labels[ENDPOINT_LABEL]))].sort(), ['0', '1']);
    assert.deepEqual(doc.serverMetrics?.urls, [fast.metricsUrl, slow.metricsUrl]);
    const times = running.map((s) => s.samples.map(([tMs]) => tMs));
    assert.deepEqual(times[0]?.slice(0, 3), times[1]?.slice(0, 3), 'both replicas are stamped with the round\'s instant');
    assert.equal(view.server?.replicas?.length, 2, 'the server section offers each replica on its own');
    assert.ok(view.server?.replicas?.[1]?.charts.some((c) => c.id.startsWith('replica-1-')));
  }
  // Compare and the report show the figures per endpoint beside the totals.
  const [rr, lif] = [outcomes['round-robin'], outcomes['least-in-flight']] as [ResultDocument, ResultDocument];
  const compare = buildCompareView({ document: rr, unfinishedSteps: [] }, { document: lif, unfinishedSteps: [] }, 'rr', 'lif');
  assert.equal(compare.endpoints?.table.rows.filter((row) => row[0] === 'A').length, 3);
  assert.equal(compare.endpoints?.table.rows.filter((row) => row[0] === 'B').length, 3);
  const report = buildReportModel([
    { name: 'rr', doc: rr },
    { name: 'lif', doc: lif },
  ]);
  assert.equal(report.endpoints.length, 2);
  assert.match(formatRankingMarkdown(report), /## Per endpoint: rr/);
});

test('the live server strip shows the replicas summed, or one by one', async (t) => {
  const [fast, slow] = await twoSimulators(t);
  const events: RunEvent[] = [];
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: fast.baseUrl, model: 'm' },
    endpoints: [
      { baseUrl: fast.baseUrl, model: 'm' },
      { baseUrl: slow.baseUrl, model: 'm' },
    ],
    workload: { kind: 'synthetic', inputTokens: 64, outputTokens: 64 },
    profile: { kind: 'concurrency', levels: [6] },
    limits: { requests: 30 },
    serverMetrics: { intervalMs: 100 },
  });
  await runBenchmark(config, { onEvent: (e) => events.push(RunEventSchema.parse(e)) });
  const state = newLiveState({ id: 'r', model: 'm', baseUrl: fast.baseUrl, profile: 'c', startedAt: '', labels: [], expectedSteps: null, resultPath: null });
  events.forEach((e, i) => applyRunEvent(state, e, i * 0.05));
  assert.equal(state.server?.replicas.length, 2);
  const summed = serverStrip(state);
  const oneByOne = serverStrip(state, { latestStepOnly: false, serverOneByOne: true });
  assert.match(summed.note, /Summed over 2 endpoints/);
  assert.ok(summed.charts.some((c) => c.id === 'server-requests'));
  assert.ok(oneByOne.charts.some((c) => c.id === 'replica-0-server-requests') && oneByOne.charts.some((c) => c.id === 'replica-1-server-requests'));
  // The sum is the two replicas' lines added, sample by sample.
  const total = state.server?.lines.runningRequests.v.reduce((a, b) => a + b, 0) ?? 0;
  const each = (state.server?.replicas ?? []).reduce((n, r) => n + r.lines.runningRequests.v.reduce((a, b) => a + b, 0), 0);
  assert.ok(total > 0 && Math.abs(total - each) < 1e-6, `summed ${total}, replicas ${each}`);
});

test('an endpoint that is down: its requests fail and are counted per endpoint, or --url-failover moves them to the others', async (t) => {
  const [fast] = await twoSimulators(t);
  const down = `http://127.0.0.1:${await closedPort()}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-failover-'));

  const plain = await runCli(['run', '--url', fast.baseUrl, '--url', down, ...LOAD, '--out', join(dir, 'plain.llmbench.json')]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /Requests to http:\/\/127\.0\.0\.1:\d+\/v1 fail from the start: could not connect.*The run goes on with the other endpoints; its share of the requests fails \(add --url-failover/);
  const withoutFailover = readResult(join(dir, 'plain.llmbench.json'));
  const [live, dead] = [0, 1].map((i) => withoutFailover.steps[0]?.endpoints?.find((e) => e.endpoint === i)?.summary);
  assert.equal(dead?.requests.failed, dead?.requests.total, 'every request to the endpoint that is down failed');
  assert.ok((dead?.requests.total ?? 0) >= 19, `it kept its share: ${dead?.requests.total}`);
  assert.equal(dead?.errors['connect'], dead?.requests.total);
  assert.equal(live?.requests.failed, 0);
  assert.equal(withoutFailover.steps[0]?.failovers, undefined);

  const moved = await runCli(['run', '--url', fast.baseUrl, '--url', down, '--url-failover', ...LOAD, '--out', join(dir, 'failover.llmbench.json')]);
  assert.equal(moved.code, 0, moved.stderr);
  const withFailover = readResult(join(dir, 'failover.llmbench.json'));
  const step = withFailover.steps[0];
  const deadOnes = step?.requests.filter((r) => r.endpoint === 1) ?? [];
  const event = step?.failovers?.[0] as FailoverEvent;
  // Out after 3 failures in a row, for its 10 s cool-off (longer than the step): only requests
  // already on their way when it went out (at most one per other lane) still went to it.
  assert.ok(deadOnes.length >= 3 && deadOnes.length <= 3 + 3, `${deadOnes.length} requests went to the endpoint that is down`);
  assert.ok(deadOnes.every((r) => r.sentMs <= event.atMs), 'none after it went out');
  assert.equal(step?.requests.filter((r) => r.endpoint === 0 && r.error === null).length, 40 - deadOnes.length, 'the rest went to the live endpoint');
  assert.equal(step?.failovers?.length, 1);
  assert.equal(event.endpoint, 1);
  assert.equal(event.event, 'out');
  assert.match(event.reason, /3 requests in a row failed .*connection refused/);
  assert.match(moved.stderr, /endpoint 1 \(http:\/\/127\.0\.0\.1:\d+\/v1\) is out at/);
});

test('every endpoint down ends the run as one endpoint down does', async () => {
  const [a, b] = [`http://127.0.0.1:${await closedPort()}/v1`, `http://127.0.0.1:${await closedPort()}/v1`];
  const run = await runCli(['run', '--url', a, '--url', b, '--model', 'm', '--requests', '20', '--server-metrics', 'off']);
  assert.equal(run.code, 1);
  // The verdict counts the measured requests as the step tables do, once every step has ended, and names each endpoint.
  assert.match(run.stderr, /The run failed: \d+ measured requests failed at http:\S+: could not connect.*; at http:\S+: could not connect.* The run was stopped rather than send more/s);
});

test("each endpoint's key reaches its own endpoint only, and no key reaches the file, the log, the events or the views", async (t) => {
  const keys = ['sk-first-endpoint-key-0000', 'sk-second-endpoint-key-1111'];
  const headerSecret = 'hdr-secret-2222';
  const urlPassword = 'pw-in-url-3333';
  const seen: { endpoint: number; authorization: string | undefined }[] = [];
  // The first answers; the second echoes what it was sent in an error body, as some servers do.
  const answering = await startScriptedServer((request) => {
    seen.push({ endpoint: 0, authorization: request.headers.authorization });
    if (request.path.endsWith('/metrics')) return { status: 404 };
    return { status: 200, headers: JSON_HEADERS, steps: [JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1 } })] };
  });
  const echoing = await startScriptedServer((request) => {
    seen.push({ endpoint: 1, authorization: request.headers.authorization });
    return { status: 500, headers: JSON_HEADERS, steps: [JSON.stringify({ error: { message: `bad gateway for ${String(request.headers.authorization)} ${String(request.headers['x-api-key'])} ${String(request.headers.authorization ?? '')}` } })] };
  });
  t.after(async () => {
    await Promise.all([answering.close(), echoing.close()]);
  });
  const secondUrl = echoing.baseUrl.replace('http://', `http://user:${urlPassword}@`);
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-endpoint-keys-'));
  const configPath = join(dir, 'keys.llmbench-config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      endpoints: [
        { baseUrl: answering.baseUrl, model: 'm', apiKeyEnv: 'FIRST_KEY' },
        { baseUrl: secondUrl, model: 'm', apiKeyEnv: 'SECOND_KEY', headers: { 'x-api-key': headerSecret } },
      ],
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
      request: { stream: false },
      limits: { requests: 8 },
    }),
  );
  const out = join(dir, 'keys.llmbench.json');
  const run = await runCli(['run', '--config', configPath, '--out', out], { FIRST_KEY: keys[0] as string, SECOND_KEY: keys[1] as string });
  assert.equal(run.code, 0, run.stderr);
  const chat = seen.filter((s) => s.authorization !== undefined);
  assert.ok(chat.filter((s) => s.endpoint === 0).every((s) => s.authorization === `Bearer ${keys[0]}`), 'the first endpoint got its own key');
  assert.ok(chat.filter((s) => s.endpoint === 1).every((s) => s.authorization === `Bearer ${keys[1]}`), 'the second endpoint got its own key');
  assert.ok(chat.some((s) => s.endpoint === 1), 'the second endpoint was sent requests');
  const fileText = readFileSync(out, 'utf8');
  const doc = readResult(out);
  const failed = doc.steps[0]?.requests.filter((r: RequestRecord) => r.error !== null) ?? [];
  assert.ok(failed.length > 0 && failed.every((r) => /<redacted>/.test(r.error?.message ?? '')), 'the echoed secrets are redacted in the records');
  const views = JSON.stringify([buildResultView({ document: doc, unfinishedSteps: [] }, 'keys.llmbench.json')]);
  // The same run in this process: its events (what the live panel is built from) and the panel's state.
  const events: RunEvent[] = [];
  const config = RunConfigSchema.parse({ ...JSON.parse(readFileSync(configPath, 'utf8')), endpoint: { baseUrl: answering.baseUrl, model: 'm', apiKeyEnv: 'FIRST_KEY' } });
  await runBenchmark(config, { apiKey: keys[0], apiKeys: keys, onEvent: (e) => events.push(e) });
  const state = newLiveState({ id: 'r', model: 'm', baseUrl: answering.baseUrl, profile: 'c', startedAt: '', labels: [], expectedSteps: null, resultPath: null });
  events.forEach((e, i) => applyRunEvent(state, e, i));
  for (const [where, text] of [
    ['the result file', fileText],
    ['the log', run.stdout + run.stderr],
    ['the result view', views],
    ['the events', JSON.stringify(events)],
    ['the live panel', JSON.stringify(state)],
  ] as const) {
    for (const secret of [...keys, headerSecret, urlPassword]) assert.ok(!text.includes(secret), `${where} holds no ${secret}`);
  }
});

/** A router over two endpoints on a clock the test moves. */
function routerOn(strategy: 'round-robin' | 'least-in-flight', failover?: { consecutiveErrors: number; coolOffSec: number }) {
  let now = 0;
  const events: FailoverEvent[] = [];
  const contexts = [{}, {}, {}] as unknown as ClientContext[];
  const router = new EndpointRouter(contexts, strategy, failover, () => now, (e) => events.push(e));
  return { router, events, at: (ms: number) => (now = ms) };
}

const refused = { error: { kind: 'connect' as const, message: 'connection refused' }, httpStatus: null };
const answered = { error: null, httpStatus: 200 };

test('routing: round-robin in turn, least-in-flight to the emptiest, failover out after N failures in a row and back after its cool-off', () => {
  const rr = routerOn('round-robin').router;
  assert.deepEqual([rr.pick(), rr.pick(), rr.pick(), rr.pick()], [0, 1, 2, 0]);

  const lif = routerOn('least-in-flight').router;
  lif.started(0);
  lif.started(0);
  lif.started(1);
  assert.equal(lif.pick(), 2);
  lif.started(2);
  lif.started(2);
  assert.equal(lif.pick(), 1, 'one in flight against two');

  // Without failover an endpoint keeps its turn whatever it answers.
  const plain = routerOn('round-robin');
  for (let i = 0; i < 5; i++) plain.router.ended(1, refused);
  assert.deepEqual([plain.router.pick(), plain.router.pick(), plain.router.pick()], [0, 1, 2]);
  assert.equal(plain.events.length, 0);

  const { router, events, at } = routerOn('round-robin', { consecutiveErrors: 2, coolOffSec: 5 });
  router.started(1);
  router.ended(1, refused);
  assert.equal(events.length, 0, 'one failure is not two in a row');
  router.started(1);
  router.ended(1, answered);
  router.started(1);
  router.ended(1, refused);
  assert.equal(events.length, 0, 'a success between them resets the count');
  router.started(1);
  router.ended(1, { error: { kind: 'http', message: 'HTTP 503' }, httpStatus: 503 });
  assert.deepEqual(events.map((e) => [e.endpoint, e.event]), [[1, 'out']]);
  assert.deepEqual(Array.from({ length: 4 }, () => router.pick()), [0, 2, 0, 2], 'its share goes to the others');
  router.started(0);
  router.ended(0, { error: { kind: 'http', message: 'HTTP 400' }, httpStatus: 400 });
  router.ended(0, { error: { kind: 'reset', message: 'closed mid-response' }, httpStatus: 200 });
  assert.equal(events.length, 1, 'a 4xx or a stream broken after it began says nothing of the endpoint');
  at(5000);
  assert.ok(Array.from({ length: 3 }, () => router.pick()).includes(1), 'back in turn after its cool-off');
  router.started(1);
  router.ended(1, refused);
  assert.deepEqual(events.map((e) => e.event), ['out', 'out'], 'one more failure after a cool-off puts it out again');
  at(10_000);
  router.started(1);
  router.ended(1, answered);
  assert.deepEqual(events.map((e) => e.event), ['out', 'out', 'back']);
  // Every endpoint out: the one whose cool-off ends first still gets the request (it fails as it would).
  const all = routerOn('round-robin', { consecutiveErrors: 1, coolOffSec: 5 });
  for (const [i, ms] of [[0, 0], [1, 100], [2, 200]] as const) {
    all.at(ms);
    all.router.ended(i, refused);
  }
  assert.equal(all.router.pick(), 0);
});
