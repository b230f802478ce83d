import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfig, type RunConfigInput } from '../../src/format/config';
import { RunEventSchema, type RunEvent } from '../../src/format/events';
import { ResultDocumentSchema, type RequestRecord, type ResultDocument } from '../../src/format/result';
import { runBenchmark, sweepRates } from '../../src/load/runner';
import { arrivalSchedule } from '../../src/load/schedule';
import { closedPort } from '../helpers/cli-server';
import { startRunnerServer, type Answer, type RunnerServer } from '../helpers/runner-server';
import { JSON_HEADERS, startScriptedServer } from '../helpers/sse-server';
import { startSimServer } from '../../src/sim/index';
import { createProgressPrinter } from '../../src/cli/progress';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';

function configFor(server: { baseUrl: string }, overrides: Partial<RunConfigInput>): RunConfig {
  return RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
    limits: { requests: 5 },
    ...overrides,
  });
}

async function withServer(t: { after(fn: () => Promise<void>): void }, answer?: (index: number) => Answer): Promise<RunnerServer> {
  const server = await startRunnerServer(answer);
  t.after(() => server.close());
  return server;
}

async function run(config: RunConfig, signal?: AbortSignal, onEvent?: (event: RunEvent) => void): Promise<{ doc: ResultDocument; events: RunEvent[] }> {
  const events: RunEvent[] = [];
  const doc = await runBenchmark(config, {
    onEvent: (e) => {
      events.push(RunEventSchema.parse(e));
      onEvent?.(e);
    },
    ...(signal ? { signal } : {}),
  });
  ResultDocumentSchema.parse(doc);
  return { doc, events };
}

/** Most requests of a step in flight at once, from their send and end times. */
function maxOverlap(records: RequestRecord[]): number {
  const edges = records.flatMap((r) => [
    [r.sentMs, 1],
    [r.endMs ?? Infinity, -1],
  ]);
  edges.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let now = 0;
  let most = 0;
  for (const [, delta] of edges) most = Math.max(most, (now += delta ?? 0));
  return most;
}

test('synchronous sends one request at a time and reports every event', async (t) => {
  const server = await withServer(t, () => ({ tokens: 4, firstTokenMs: 5, gapMs: 2 }));
  const { doc, events } = await run(configFor(server, {}));
  assert.equal(doc.status, 'complete');
  assert.equal(server.maxInFlight, 1);
  const step = doc.steps[0];
  assert.equal(step?.name, 'synchronous');
  assert.equal(step?.requests.length, 5);
  assert.equal(maxOverlap(step?.requests ?? []), 1);
  assert.deepEqual(step?.summary?.requests, { total: 5, completed: 5, failed: 0 });
  assert.equal(step?.summary?.ttftMs?.count, 5);
  assert.equal(step?.summary?.itlMs?.count, 15, '3 gaps between 4 chunks, pooled over 5 requests');
  assert.equal(step?.summary?.outputTokens?.mean, 4);
  // Progress and server samples come periodically, logs as they happen: the run's own course is the rest.
  const kinds = events.map((e) => e.type).filter((k) => k !== 'progress' && k !== 'log' && k !== 'sampled');
  assert.deepEqual(kinds, ['run-start', 'step-start', 'step-end', 'run-end']);
  assert.ok(events.some((e) => e.type === 'progress' && e.snapshot.completed === 5), 'a final progress snapshot');
});

test('each concurrency level is a step that keeps exactly that many requests in flight', async (t) => {
  const server = await withServer(t, () => ({ tokens: 3, firstTokenMs: 20, gapMs: 5 }));
  const { doc } = await run(configFor(server, { profile: { kind: 'concurrency', levels: [1, 3] }, limits: { requests: 9 } }));
  assert.deepEqual(doc.steps.map((s) => s.name), ['concurrency@1', 'concurrency@3']);
  assert.deepEqual(doc.steps.map((s) => maxOverlap(s.requests)), [1, 3]);
  assert.equal(server.maxInFlight, 3);
  const achieved = doc.steps[1]?.summary?.achievedConcurrency ?? 0;
  assert.ok(achieved > 2 && achieved <= 3, `mean in flight ${achieved}`);
  assert.equal(server.arrivals.length, 18);
});

test('warm-up requests are recorded but left out of the statistics', async (t) => {
  // The two warm-up requests are slow; measured ones fast: a leak would show in the latency.
  const server = await withServer(t, (i) => (i < 2 ? { tokens: 2, firstTokenMs: 250 } : { tokens: 2, firstTokenMs: 5 }));
  const { doc } = await run(configFor(server, { limits: { requests: 4, warmup: 2 } }));
  const step = doc.steps[0];
  assert.deepEqual(step?.requests.map((r) => r.warmup), [true, true, false, false, false, false]);
  assert.equal(step?.summary?.requests.total, 4);
  // The statistics are those of the measured requests alone, whatever the machine's speed.
  const measuredLatencies = step?.requests.filter((r) => !r.warmup).map((r) => (r.endMs ?? 0) - r.sentMs) ?? [];
  assert.equal(step?.summary?.latencyMs?.count, 4);
  assert.equal(step?.summary?.latencyMs?.max, Math.max(...measuredLatencies));
  assert.equal(step?.summary?.latencyMs?.min, Math.min(...measuredLatencies));
});

test('maxErrors ends a step early; the run still counts what succeeded', async (t) => {
  const server = await withServer(t, (i) => (i < 4 ? { tokens: 2, firstTokenMs: 5 } : { status: 500 }));
  const { doc, events } = await run(configFor(server, { limits: { requests: 200, maxErrors: 3 } }));
  const summary = doc.steps[0]?.summary;
  assert.equal(server.arrivals.length, 7, 'nothing is sent after the third failure');
  assert.deepEqual(summary?.requests, { total: 7, completed: 4, failed: 3 });
  assert.deepEqual(summary?.errors, { http: 3 });
  assert.equal(doc.status, 'complete');
  assert.ok(events.some((e) => e.type === 'log' && /maxErrors/.test(e.message)));
  assert.deepEqual(summary?.warnings?.map((w) => [w.kind, w.figures]), [['max-errors', { failed: 3, maxErrors: 3 }]], 'the stop is kept with the step');
});

test('a sweep runs synchronous, throughput, then rates evenly spaced between their measured rates', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 15, gapMs: 2 }));
  const { doc, events } = await run(configFor(server, { profile: { kind: 'sweep', rateCount: 2 }, limits: { requests: 6 } }));
  const [sync, throughput, ...rates] = doc.steps;
  assert.equal(sync?.name, 'synchronous');
  assert.equal(throughput?.name, 'throughput');
  assert.equal(throughput?.profile.concurrency, 256);
  assert.equal(maxOverlap(throughput?.requests ?? []), 6, 'throughput sends everything at once');
  assert.ok(throughput?.requests.every((r) => r.scheduledMs === 0 && r.queueMs === r.sentMs), 'all due at the step start');
  const low = sync?.summary?.requestsPerSecond ?? 0;
  const high = throughput?.summary?.requestsPerSecond ?? 0;
  assert.ok(high > low, `throughput ${high} above synchronous ${low}`);
  const expected = sweepRates(low, high, 2);
  assert.deepEqual(expected, [low + (high - low) / 3, low + (2 * (high - low)) / 3]);
  assert.deepEqual(rates.map((s) => s.name), expected.map((r) => `asynchronous@${r.toFixed(2)} req/sec`));
  assert.deepEqual(rates.map((s) => s.profile.rate), expected);
  assert.ok(rates.every((s) => s.summary?.requests.completed === 6));
  const start = events.find((e) => e.type === 'run-start');
  assert.deepEqual(start?.type === 'run-start' ? start.plannedSteps.map((s) => s.name) : [], ['synchronous', 'throughput']);
});

test('the run says at its start how many steps it will run: the command line\'s progress and the live panel count the steps the run runs, a sweep\'s rate steps and every repeat included', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 5 }));
  const written: string[] = [];
  const terminal = { isTTY: true, columns: 200, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
  const printer = createProgressPrinter(terminal);
  // The live panel's state, started before the engine has said anything, as the extension starts it.
  const live = newLiveState({ id: 'r', model: 'm', baseUrl: server.baseUrl, profile: 'sweep', startedAt: new Date(0).toISOString(), labels: [], expectedSteps: null, resultPath: null });
  const { doc, events } = await run(configFor(server, { profile: { kind: 'sweep', rateCount: 2 }, limits: { requests: 4 }, repeat: { count: 2, pauseSec: 0 } }), undefined, (event) => {
    printer.onEvent(event);
    applyRunEvent(live, event, 0);
  });
  assert.equal(doc.steps.length, 8, 'synchronous, throughput and two rates, twice');
  assert.equal(events.filter((e) => e.type === 'step-start').length, 8);
  const counted = new Set([...written.join('').matchAll(/\[(\d+)\/(\d+)\]/g)].map((m) => m[2]));
  assert.deepEqual([...counted], ['8'], `the progress lines count the steps out of ${[...counted].join(', ')}`);
  assert.equal(live.run.expectedSteps, 8);
});

test('a rate step follows its schedule; a concurrency cap holds and shows up as queue time', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 40 }));
  const { doc } = await run(
    configFor(server, { profile: { kind: 'rate', rates: [50], arrival: 'poisson' }, limits: { requests: 25 } }),
  );
  const step = doc.steps[0];
  assert.equal(step?.name, 'poisson@50.00 req/sec');
  // Each request carries the send time the seeded Poisson schedule gave it, to the microsecond.
  const schedule = arrivalSchedule({ count: 25, rate: 50, arrival: 'poisson', seed: 42 });
  const scheduled = [...(step?.requests ?? [])].sort((x, y) => x.index - y.index).map((r) => r.scheduledMs);
  assert.deepEqual(scheduled, Array.from(schedule, (sec) => Math.round(sec * 1000 * 1000) / 1000));
  assert.ok(new Set(scheduled.slice(1).map((ms, i) => Math.round(ms - (scheduled[i] ?? 0)))).size > 5, 'gaps vary: Poisson, not constant');
  assert.ok(step?.requests.every((r) => r.sentMs >= r.scheduledMs - 1), 'no request goes out before its time');
  const achieved = step?.summary?.achievedRate ?? 0;
  // Generous for a shared machine; sequential sends would take 1000 ms, all at once 0 ms.
  assert.ok(Math.abs(achieved / 50 - 1) < 0.25, `achieved ${achieved} req/s for 50`);
  const span = (server.arrivals.at(-1) ?? 0) - (server.arrivals[0] ?? 0);
  assert.ok(Math.abs(span - 480) < 150, `arrivals span ${span} ms, schedule 480 ms`);

  const capped = await withServer(t, () => ({ tokens: 2, firstTokenMs: 40 }));
  const cappedRun = await run(
    configFor(capped, { profile: { kind: 'rate', rates: [200], arrival: 'constant', maxConcurrency: 2 }, limits: { requests: 10 } }),
  );
  assert.equal(capped.maxInFlight, 2);
  const queue = cappedRun.doc.steps[0]?.summary?.queueMs;
  // 10 requests due within 45 ms through 2 slots of ~40 ms: the last waits well over 100 ms.
  assert.ok((queue?.max ?? 0) > 100, `queue max ${queue?.max}`);
  assert.equal(cappedRun.doc.steps[0]?.profile.concurrency, 2);
});

test('an absolute schedule sends at the given times', async (t) => {
  const server = await withServer(t, () => ({ tokens: 1 }));
  const { doc } = await run(configFor(server, { profile: { kind: 'schedule', times: [0, 0.1, 0.2, 0.25] }, limits: { requests: 10 } }));
  assert.equal(doc.steps[0]?.name, 'schedule');
  const first = server.arrivals[0] ?? 0;
  const offsets = server.arrivals.map((a) => a - first);
  [0, 100, 200, 250].forEach((expected, i) => assert.ok(Math.abs((offsets[i] ?? 0) - expected) < 60, `offsets ${offsets}`));
  assert.deepEqual(doc.steps[0]?.requests.map((r) => r.scheduledMs).sort((a, b) => a - b), [0, 100, 200, 250]);
});

test('at the duration limit without a drain requests in flight are cancelled and left out of the statistics', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 150 }));
  // 1 s leaves room for at least 2 rounds of 150 ms requests on a loaded machine.
  const { doc } = await run(configFor(server, { profile: { kind: 'concurrency', levels: [2] }, limits: { durationSec: 1, drainSec: 0 } }));
  const step = doc.steps[0];
  const cancelled = step?.requests.filter((r) => r.error?.kind === 'cancelled').length ?? 0;
  assert.equal(cancelled, 2);
  assert.equal(step?.summary?.errors['cancelled'], 2);
  assert.equal(step?.summary?.requests.failed, 0);
  assert.equal(step?.summary?.requests.total, step?.summary?.requests.completed);
  assert.ok((step?.summary?.requests.completed ?? 0) >= 4);
  assert.equal(doc.status, 'complete');
});

test('at the duration limit the requests in flight finish within the drain: they count toward latency, not toward the steady window', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 300 }));
  // An open loop: a request every 100 ms for 2 s, each taking 300 ms; the last ones are still in flight at 2 s.
  const { doc, events } = await run(configFor(server, { profile: { kind: 'rate', rates: [10], arrival: 'constant' }, limits: { durationSec: 2 } }));
  const step = doc.steps[0];
  const summary = step?.summary;
  assert.equal(step?.requests.filter((r) => r.error !== null).length, 0, 'nothing cancelled: the default drain (30 s) lets them finish');
  assert.equal(summary?.errors['cancelled'], undefined);
  const window = summary?.rateWindow;
  assert.equal(window?.definition, 'steady');
  const lastSend = Math.max(...(step?.requests.map((r) => r.sentMs) ?? []));
  assert.equal(window?.endMs, Math.round(lastSend * 1000) / 1000, 'the window closes at the last send');
  const drained = step?.requests.filter((r) => (r.endMs ?? 0) > (window?.endMs ?? 0)) ?? [];
  assert.ok(drained.length >= 2, `the last requests ended after it, in the drain (${drained.length})`);
  assert.equal(summary?.latencyMs?.count, step?.requests.length, 'and count toward latency');
  const inside = step?.requests.filter((r) => r.error === null && (r.endMs ?? 0) > (window?.startMs ?? 0) && (r.endMs ?? 0) <= (window?.endMs ?? 0)).length;
  assert.equal(window?.completed, inside, 'requests/s counts the completions inside the window');
  const rate = summary?.requestsPerSecond ?? 0;
  assert.ok(Math.abs(rate - 10) < 3, `the offered 10 req/s, not the completions over the step plus its drain: ${rate.toFixed(2)} req/s`);
  assert.ok(events.some((e) => e.type === 'log' && /sending stopped, the \d+ requests? in flight may finish within 30 s/.test(e.message)));
});

test('a closed loop cut by its duration takes its rates over its span, which the drain keeps whole', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 300 }));
  const { doc } = await run(configFor(server, { profile: { kind: 'concurrency', levels: [2] }, limits: { durationSec: 1 } }));
  const summary = doc.steps[0]?.summary;
  assert.equal(summary?.errors['cancelled'], undefined, 'the round in flight at 1 s finished in the drain');
  assert.equal(summary?.rateWindow?.definition, 'span');
  const rate = summary?.requestsPerSecond ?? 0;
  assert.ok(Math.abs(rate - 2 / 0.3) < 0.25 * (2 / 0.3), `two requests every 300 ms: ${rate.toFixed(2)} req/s`);
});

test('a drain that runs out cancels what is still in flight', async (t) => {
  const server = await withServer(t, (index) => (index < 2 ? { tokens: 2, firstTokenMs: 100 } : { tokens: 2, firstTokenMs: 5000 }));
  const started = performance.now();
  const { doc } = await run(configFor(server, { profile: { kind: 'concurrency', levels: [2] }, limits: { durationSec: 0.5, drainSec: 0.5 } }));
  const elapsedSec = (performance.now() - started) / 1000;
  const step = doc.steps[0];
  assert.equal(step?.summary?.errors['cancelled'], 2, 'the two 5 s requests were cancelled when the drain ran out');
  assert.ok(elapsedSec < 4, `the step ended after its duration and drain, not after its requests (${elapsedSec.toFixed(2)} s)`);
});

test('cancel stops sending, keeps what was measured, skips later steps and ends partial', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 20 }));
  const controller = new AbortController();
  // Cancelled once 5 requests are measured, however slow the machine is.
  const { doc, events } = await run(
    configFor(server, { profile: { kind: 'concurrency', levels: [2, 4] }, limits: { requests: 500 } }),
    controller.signal,
    (e) => e.type === 'progress' && e.snapshot.completed >= 5 && controller.abort(),
  );
  assert.ok(controller.signal.aborted, 'the run was cancelled, not finished');
  assert.equal(doc.status, 'partial');
  assert.equal(doc.steps.length, 1);
  const completed = doc.steps[0]?.summary?.requests.completed ?? 0;
  assert.ok(completed >= 5, `completed ${completed}`);
  assert.ok(server.arrivals.length < 100);
  const end = events.at(-1);
  assert.equal(end?.type === 'run-end' ? end.status : undefined, 'partial');
});

test('a run whose every measured request fails is failed, with the reason', async (t) => {
  const server = await withServer(t, () => ({ status: 500 }));
  const { doc } = await run(configFor(server, {}));
  assert.equal(doc.status, 'failed');
  assert.match(doc.statusReason ?? '', /Every measured request failed \(5 http\)/);
});

test('an unreachable endpoint fails the run after its first few requests', async () => {
  const port = await closedPort();
  const { doc } = await run(
    configFor({ baseUrl: `http://127.0.0.1:${port}/v1` }, { profile: { kind: 'concurrency', levels: [1, 4] }, limits: { requests: 1000 } }),
  );
  assert.equal(doc.status, 'failed');
  assert.match(doc.statusReason ?? '', /^3 measured requests failed at http:\/\/127\.0\.0\.1:\d+\/v1: could not connect/);
  assert.equal(doc.steps.length, 1);
  assert.equal(doc.steps[0]?.requests.length, 3);
});

test('a run stopped at an unreachable endpoint says the count its table shows, the warm-up apart', async () => {
  // "The first 3 requests failed" stood beside a table of "2 of 2 (connect 2)": the warm-up request was in one count, not the other.
  const port = await closedPort();
  const { doc } = await run(configFor({ baseUrl: `http://127.0.0.1:${port}/v1` }, { limits: { requests: 1000, warmup: 1 } }));
  const failed = doc.steps[0]?.summary?.requests.failed;
  assert.equal(failed, 2);
  assert.match(doc.statusReason ?? '', new RegExp(`^${failed} measured requests failed \\(after 1 warm-up request, not counted in the table\\) at http`));
  const allWarmup = await run(configFor({ baseUrl: `http://127.0.0.1:${port}/v1` }, { limits: { requests: 1000, warmup: 5 } }));
  assert.equal(allWarmup.doc.steps[0]?.summary?.requests.failed, 0);
  assert.match(allWarmup.doc.statusReason ?? '', /^3 warm-up requests failed before any was measured at http/);
});

test('an endpoint answering 404 to the first requests fails the run with a hint', async (t) => {
  const server = await withServer(t, () => ({ status: 404 }));
  const { doc } = await run(configFor(server, { profile: { kind: 'concurrency', levels: [2] }, limits: { requests: 1000 } }));
  assert.equal(doc.status, 'failed');
  assert.match(doc.statusReason ?? '', /HTTP 404: check that the base URL ends in \/v1/);
  assert.ok(server.arrivals.length <= 4, `${server.arrivals.length} requests sent`);
});

test('extraBody fields the run sets itself are warned about: stream is overridden, max_tokens replaces the output tokens', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2 }));
  const { doc, events } = await run(configFor(server, { request: { extraBody: { stream: false, max_tokens: 3, ignore_eos: true } }, limits: { requests: 1 } }));
  assert.equal(doc.status, 'complete');
  // The step's own warnings are said too (one request is too short a step for its latency; a loaded
  // machine makes the client the limit): they are not about extraBody.
  const stepWarning = (d: typeof doc, message: string): boolean => d.steps.some((s) => s.summary?.warnings?.some((w) => message.includes(w.message)) === true);
  const warnings = events.flatMap((e) => (e.type === 'log' && e.level === 'warn' && !stepWarning(doc, e.message) ? [e.message] : []));
  assert.equal(warnings.length, 2, warnings.join('\n'));
  assert.match(warnings[0] ?? '', /"stream": false is ignored: every request is sent with "stream": true.*--no-stream/);
  assert.match(warnings[1] ?? '', /"max_tokens": 3 replaces the workload's output tokens \(4\)/);
  const quiet = await run(configFor(server, { request: { extraBody: { ignore_eos: true } }, limits: { requests: 1 } }));
  assert.equal(quiet.events.filter((e) => e.type === 'log' && e.level === 'warn' && !stepWarning(quiet.doc, e.message)).length, 0);
});

test('credentials in the base URL are never stored, and secrets a server echoes are redacted from records and messages', async (t) => {
  const server = await startScriptedServer((request) => ({
    status: 401,
    headers: JSON_HEADERS,
    steps: [JSON.stringify({ error: { message: `bad credentials: ${String(request.headers.authorization)} ${String(request.headers['x-api-key'])} pw=hunter22 k=qk-secret-1` } })],
  }));
  t.after(() => server.close());
  const url = new URL(server.baseUrl);
  url.username = 'alice';
  url.password = 'hunter22';
  url.search = '?key=qk-secret-1&api-version=2024-06-01';
  const events: RunEvent[] = [];
  const doc = await runBenchmark(
    configFor({ baseUrl: url.href }, { endpoint: { baseUrl: url.href, model: 'm', headers: { 'X-Api-Key': 'hdr-secret-2' } }, limits: { requests: 3 } }),
    { apiKey: 'sk-live-secret-3', onEvent: (e) => events.push(e) },
  );
  assert.equal(server.requests[0]?.headers.authorization, 'Bearer sk-live-secret-3', 'the key was sent, so the server could echo it');
  const stored = JSON.stringify(doc) + JSON.stringify(events);
  for (const secret of ['hunter22', 'qk-secret-1', 'hdr-secret-2', 'sk-live-secret-3', 'alice:']) assert.ok(!stored.includes(secret), `${secret} is stored`);
  assert.equal(doc.endpoint.baseUrl, `${server.baseUrl}?api-version=2024-06-01`);
  assert.equal((doc.config['endpoint'] as { baseUrl: string }).baseUrl, doc.endpoint.baseUrl);
  assert.match(doc.steps[0]?.requests[0]?.error?.message ?? '', /bad credentials: Bearer <redacted> <redacted> pw=<redacted> k=<redacted>/);
});

test('a sweep whose requests outlast its duration still measures both rates and places its rates, and says so', async (t) => {
  // 256 sequences of 300 tokens at once take about 2 s on this simulated engine, one alone about
  // 0.3 s: a 0.2 s duration ends both the synchronous and the throughput step before any request completes.
  const sim = await startSimServer({ preset: 'tiny', engine: { maxNumSeqs: 256, kvCacheTokens: 200_000, maxNumBatchedTokens: 8192 } });
  t.after(() => sim.close());
  const { doc, events } = await run(
    RunConfigSchema.parse({
      endpoint: { baseUrl: sim.baseUrl, model: sim.model },
      request: { extraBody: { ignore_eos: true } },
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 300 },
      profile: { kind: 'sweep', rateCount: 2 },
      limits: { durationSec: 0.2 },
    }),
  );
  const [sync, throughput, ...rates] = doc.steps;
  for (const step of [sync, throughput]) {
    assert.ok((step?.summary?.requestsPerSecond ?? 0) > 0, `${step?.name} measured a rate`);
    assert.match(step?.note ?? '', /^0 requests had ended at the 0.2 s duration, fewer than the (1|256) in flight at once: too few .* ran until the (1|256) in flight finished\.$/);
    assert.equal(step?.summary?.errors['cancelled'], undefined, `${step?.name}: nothing was cut off`);
  }
  assert.equal(throughput?.requests.length, 256, 'the throughput step sent no more than its first round');
  assert.equal(rates.length, 2, 'the sweep placed its rates');
  assert.ok(!events.some((e) => e.type === 'log' && /cannot place its rates/.test(e.message)));
  assert.ok(events.some((e) => e.type === 'log' && e.level === 'warn' && /throughput: 0 requests had ended at the 0.2 s duration, fewer than the 256 in flight at once/.test(e.message)));
});

test('--warmup-sec: the requests sent in a step\'s first seconds are warm-up, left out of its figures and its window', async (t) => {
  const server = await withServer(t, () => ({ tokens: 2, firstTokenMs: 20 }));
  const { doc } = await run(configFor(server, { profile: { kind: 'rate', rates: [20], arrival: 'constant' }, limits: { requests: 20, warmupSec: 0.3 } }));
  const step = doc.steps[0];
  const warm = step?.requests.filter((r) => r.warmup) ?? [];
  assert.ok(warm.length >= 5 && warm.length <= 7, `a request every 50 ms for 0.3 s: ${warm.length} warm-up requests`);
  assert.ok(warm.every((r) => r.sentMs < 300) && (step?.requests.filter((r) => !r.warmup) ?? []).every((r) => r.sentMs >= 290));
  assert.equal(step?.summary?.latencyMs?.count, (step?.requests.length ?? 0) - warm.length, 'left out of the statistics');
  assert.ok((step?.summary?.rateWindow?.startMs ?? 0) >= Math.min(...(step?.requests.filter((r) => !r.warmup).map((r) => r.sentMs) ?? [])), 'the window opens after the warm-up');
});
