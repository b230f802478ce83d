// Runs that scrape the server's /metrics: against the simulator during a sweep (its gauges agree
// with the client's own count of requests in flight), against loopback servers whose /metrics is
// missing, slow, malformed or disagreeing (the run completes, with one clear warning each), with
// the API key sent to /metrics as to the API and kept out of the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverSection } from '../../src/views/result';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { RunEventSchema, type RunEvent } from '../../src/format/events';
import { parseResultDocument, type ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer } from '../../src/sim/index';
import { commonSeries, engineOf, runSeries, stepServerFigures, stepWindow } from '../../src/views/server-quantities';
import { repoRoot } from '../helpers/limited-child';
import { startRunnerServer, vllmMetrics, type MetricsAnswer, type ServerCounts } from '../helpers/runner-server';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'llmbench-server-metrics-'));

async function run(input: RunConfigInput, options: { apiKey?: string } = {}): Promise<{ doc: ResultDocument; events: RunEvent[]; text: string }> {
  const dir = tempDir();
  try {
    const path = join(dir, 'run.llmbench.json');
    const events: RunEvent[] = [];
    await runBenchmark(RunConfigSchema.parse(input), { resultPath: path, keepRecords: false, onEvent: (e) => events.push(RunEventSchema.parse(e)), ...options });
    const text = readFileSync(path, 'utf8');
    const parsed = parseResultDocument(text);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    return { doc: parsed.value, events, text };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Requests in flight by the client's own records, on the run's clock: least and most over [from, to]. */
function clientInFlightRange(doc: ResultDocument, from: number, to: number): [number, number] {
  const spans = doc.steps.flatMap((step) =>
    step.requests.map((r) => [(step.startMs ?? 0) + r.sentMs, (step.startMs ?? 0) + (r.endMs ?? r.chunkMs.at(-1) ?? r.sentMs)] as const),
  );
  const at = (x: number): number => spans.filter(([start, end]) => start <= x && x < end).length;
  const points = [from, to, ...spans.flat().filter((x) => x > from && x < to)];
  const counts = points.map(at);
  return [Math.min(...counts), Math.max(...counts)];
}

test('during a sweep against the simulator: the series exist, and running + waiting match the client\'s in-flight count within one sample', async (t) => {
  // Slow steps (10 ms each) and 4 sequences at once: requests last long enough to be seen, and the throughput step queues.
  // In a worker thread of its own, as `llmbench sim` runs it: its /metrics answers whatever this thread is doing.
  const sim = await startSimServer({ preset: 'tiny', seed: 5, engine: { maxNumSeqs: 4 }, hardware: { stepBaseMs: 10 }, inWorker: true, workerScript: join(repoRoot, 'dist', 'sim-worker.js') });
  t.after(() => sim.close());
  const intervalMs = 250;
  const { doc, events } = await run({
    endpoint: { baseUrl: sim.baseUrl, model: sim.model },
    workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 16 },
    profile: { kind: 'sweep', rateCount: 2 },
    limits: { requests: 12 },
    request: { extraBody: { ignore_eos: true } },
    serverMetrics: { intervalMs },
  });
  assert.equal(doc.status, 'complete');
  assert.deepEqual(doc.warnings ?? [], []);
  assert.equal(doc.serverMetrics?.engine, 'vllm');
  assert.equal(doc.serverMetrics?.intervalMs, intervalMs);
  assert.equal(doc.serverMetrics?.url, new URL('/metrics', sim.baseUrl).href);
  assert.ok(doc.steps.every((s) => stepWindow(s) !== null), 'every step has its span on the run clock');

  const series = runSeries(doc);
  for (const name of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc', 'vllm:generation_tokens_total', 'vllm:prompt_tokens_total']) {
    assert.ok(series.some((s) => s.name === name && s.samples.length > 10), `${name} sampled through the run`);
  }
  // Only the families the views and the cross-checks read are kept: no histogram buckets; request_success_total for the abort cross-check.
  assert.ok(!series.some((s) => s.name.endsWith('_bucket') || s.name === 'vllm:time_to_first_token_seconds_sum'), series.map((s) => s.name).join(', '));
  assert.ok(series.some((s) => s.name === 'vllm:request_success_total' && s.labels.finished_reason === 'abort'), 'the abort counter is kept for the cross-check');
  assert.ok(events.some((e) => e.type === 'sampled' && e.series.some((s) => s.name === 'vllm:num_requests_running')), 'samples reach the live panel');

  const common = commonSeries(series, engineOf(doc, series));
  const running = common.runningRequests ?? [];
  const waiting = new Map((common.waitingRequests ?? []).map((p) => [p.tMs, p.value]));
  const first = doc.steps[0]?.startMs ?? 0;
  const last = doc.steps.at(-1)?.endMs ?? 0;
  const inRun = running.filter((p) => p.tMs > first && p.tMs < last);
  assert.ok(inRun.length >= 10, `${inRun.length} samples during the steps`);
  const disagreements = inRun.filter((p) => {
    const server = p.value + (waiting.get(p.tMs) ?? 0);
    const [least, most] = clientInFlightRange(doc, p.tMs - intervalMs, p.tMs + intervalMs);
    return server < least || server > most;
  });
  assert.deepEqual(disagreements, [], 'running + waiting outside the client\'s in-flight range around the sample');
  assert.ok(inRun.some((p) => (waiting.get(p.tMs) ?? 0) > 0), 'the throughput step queued requests beyond the 4 sequences');

  const throughput = doc.steps.find((s) => s.name === 'throughput')!;
  const figures = stepServerFigures(series, stepWindow(throughput)!, 'vllm');
  assert.ok((figures.runningMax ?? 0) <= 4 && (figures.runningMax ?? 0) >= 3, `running at most the 4 sequences: ${figures.runningMax}`);
  assert.ok((figures.waitingMax ?? 0) > 0);
  assert.ok((figures.generatedTokensPerSecond ?? 0) > 0);
  // The server's token count over the run agrees with the client's: no cross-check warning (above), and the counter rose by them.
  const generated = series.find((s) => s.name === 'vllm:generation_tokens_total')!.samples;
  const clientTokens = doc.steps.flatMap((s) => s.requests).reduce((n, r) => n + (r.outputTokens ?? 0), 0);
  assert.equal((generated.at(-1)?.[1] ?? 0) - (generated[0]?.[1] ?? 0), clientTokens);
});

/** A run of 12 short requests at concurrency 2 against a loopback server whose /metrics answers `metrics`. */
async function runAgainst(metrics: (counts: ServerCounts) => MetricsAnswer, serverMetrics: RunConfigInput['serverMetrics'] = {}, apiKey?: string) {
  const server = await startRunnerServer(() => ({ tokens: 4, firstTokenMs: 20, gapMs: 10 }), metrics);
  try {
    const started = performance.now();
    const outcome = await run(
      {
        endpoint: { baseUrl: server.baseUrl, model: 'm' },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
        profile: { kind: 'concurrency', levels: [2] },
        limits: { requests: 12 },
        // Named, the engine is not probed: every GET /metrics the server sees is the scraper's.
        labels: { engine: 'loopback' },
        serverMetrics: { intervalMs: 250, ...serverMetrics },
      },
      apiKey === undefined ? {} : { apiKey },
    );
    return { ...outcome, server, elapsedMs: performance.now() - started };
  } finally {
    await server.close();
  }
}

const latencies = (doc: ResultDocument): number[] => doc.steps.flatMap((s) => s.requests).map((r) => (r.endMs ?? Infinity) - r.sentMs);

test('a /metrics that answers 404: the run completes, with one warning saying what to do', async () => {
  const { doc, events, server } = await runAgainst(() => ({ status: 404, body: 'not found' }));
  assert.equal(doc.status, 'complete');
  assert.equal(doc.warnings?.length, 1);
  assert.match(doc.warnings?.[0] ?? '', /\/metrics answered HTTP 404 \(no \/metrics there: .*--server-metrics URL\|off\)/);
  assert.equal(events.filter((e) => e.type === 'sampling-problem').length, 1);
  assert.ok(server.metricsRequests >= 3, 'it kept trying on its interval, silently');
  assert.equal(runSeries(doc).length, 0);
  assert.equal(doc.serverMetrics?.engine, 'unknown');
});

test('a /metrics that takes 3 s: requests are not delayed, scrapes never overlap, one warning', async () => {
  const { doc, server, elapsedMs } = await runAgainst((counts) => ({ ...vllmMetrics(counts), delayMs: 3000 }));
  assert.equal(doc.status, 'complete');
  assert.equal(doc.warnings?.length, 1);
  assert.match(doc.warnings?.[0] ?? '', /did not answer within 200 ms \(80% of the 250 ms interval\); those scrapes are skipped, requests are not delayed/);
  // 12 requests of about 50 ms two at a time: well under the 3 s one scrape would take.
  assert.ok(Math.max(...latencies(doc)) < 1000, `slowest request ${Math.max(...latencies(doc))} ms`);
  assert.ok(elapsedMs < 3000, `the run took ${Math.round(elapsedMs)} ms: it did not wait for /metrics`);
  // One scrape at a time, each given up after 200 ms: never more than one per 200 ms of the run.
  assert.ok(server.metricsRequests <= elapsedMs / 200 + 1, `${server.metricsRequests} scrapes in ${Math.round(elapsedMs)} ms`);
});

test('a malformed /metrics: the lines that parse are kept, one warning names the first bad line', async () => {
  const { doc } = await runAgainst((counts) => ({ body: `<html>oops</html>\n${vllmMetrics(counts).body}vllm:num_requests_waiting{model_name="m"} lots\n` }));
  assert.equal(doc.status, 'complete');
  assert.equal(doc.warnings?.length, 1);
  assert.match(doc.warnings?.[0] ?? '', /sent 2 line\(s\) that are not Prometheus text \(first, line 1: "<html>oops<\/html>" does not start with a metric name\); the lines that parse are kept/);
  assert.ok(runSeries(doc).some((s) => s.name === 'vllm:num_requests_running' && s.samples.length > 0));
});

test('a server that counts more generated tokens than the client received: the cross-check warns', async () => {
  // Another client on the same server, as its counter sees it: 50 tokens more at every scrape after the first.
  let scrapes = 0;
  const { doc } = await runAgainst((counts) => vllmMetrics({ ...counts, generatedTokens: counts.generatedTokens + (scrapes++ > 0 ? 50 : 0) }));
  assert.equal(doc.status, 'complete');
  assert.equal(doc.warnings?.length, 1);
  assert.match(doc.warnings?.[0] ?? '', /the server counted 98 generated tokens during the run, the client received 48 \(tolerance 16\); the server generated 50 more: another client on the same server/);
  assert.deepEqual(doc.tokenCrossCheck, { serverTokens: 98, clientTokens: 48, clientTokensAtMost: 48, tolerance: 16, agree: false });
});

test('an agreeing server: no cross-check warning; metrics off: no scrape at all and no serverMetrics', async () => {
  const agreeing = await runAgainst(vllmMetrics);
  assert.deepEqual(agreeing.doc.warnings ?? [], []);
  // The check ran, and the file says so: the result view shows it agreed.
  assert.deepEqual(agreeing.doc.tokenCrossCheck, { serverTokens: 48, clientTokens: 48, clientTokensAtMost: 48, tolerance: 16, agree: true });
  assert.match(serverSection(agreeing.doc)?.notes.join(' ') ?? '', /Token cross-check over the whole run: the server counted 48 generated tokens, the client received 48 .*: they agree within 16\./);
  const off = await runAgainst(vllmMetrics, { url: 'off' });
  assert.equal(off.server.metricsRequests, 0);
  assert.equal(off.doc.serverMetrics, undefined);
  assert.ok(!off.doc.steps.some((s) => s.sampled !== undefined));
});

test('the API key goes to /metrics as to the API, and never into the file', async () => {
  const seen: (string | undefined)[] = [];
  const key = 'sk-metrics-secret-123';
  const { doc, text } = await runAgainst(
    (counts) => {
      seen.push(String(counts.headers['authorization']));
      return vllmMetrics(counts);
    },
    {},
    key,
  );
  assert.ok(seen.length > 0 && seen.every((h) => h === `Bearer ${key}`), seen.join(', '));
  assert.ok(!text.includes(key));
  assert.equal(doc.status, 'complete');
});

test('the cap: maxSeries keeps the first series with one warning; the allow-list keeps more families, buckets included', async () => {
  const body = (counts: ServerCounts): MetricsAnswer => ({
    body: `${vllmMetrics(counts).body}# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le="1"} 1\nvllm:e2e_request_latency_seconds_bucket{le="+Inf"} 1\nvllm:e2e_request_latency_seconds_sum 0.5\nvllm:e2e_request_latency_seconds_count 1\n`,
  });
  const capped = await runAgainst(body, { maxSeries: 2 });
  assert.equal(new Set(runSeries(capped.doc).map((s) => s.name)).size, 2);
  assert.equal(capped.doc.warnings?.length, 1);
  assert.match(capped.doc.warnings?.[0] ?? '', /more than 2 series \(maxSeries\)/);
  const allowed = await runAgainst(body, { allowList: ['vllm:e2e_request_latency_seconds'] });
  const names = new Set(runSeries(allowed.doc).map((s) => s.name));
  assert.ok(names.has('vllm:e2e_request_latency_seconds_bucket') && names.has('vllm:e2e_request_latency_seconds_sum'));
  assert.deepEqual(allowed.doc.serverMetrics?.allowList, ['vllm:e2e_request_latency_seconds']);
  const plain = await runAgainst(body);
  assert.ok(!runSeries(plain.doc).some((s) => s.name.startsWith('vllm:e2e_request_latency_seconds')), 'not read by the views, not kept');
});

test('an allow-listed family keeps its samples by every suffix a sample may carry, typed or not: a gauge histogram\'s _gsum and _gcount too', async () => {
  // No # TYPE line: the samples' family is known only by taking a suffix off their names.
  const body = (counts: ServerCounts): MetricsAnswer => ({ body: `${vllmMetrics(counts).body}queue_wait_gsum 2.5\nqueue_wait_gcount 4\nqueue_wait_sum 2.5\nqueue_wait_created 1.7e9\n` });
  const { doc } = await runAgainst(body, { allowList: ['queue_wait'] });
  const names = new Set(runSeries(doc).map((s) => s.name));
  assert.deepEqual(['queue_wait_gsum', 'queue_wait_gcount', 'queue_wait_sum'].filter((name) => !names.has(name)), [], `kept: ${[...names].join(', ')}`);
  assert.ok(!names.has('queue_wait_created'), 'a creation time is not a measurement: never kept');
});

test('a URL set by hand is scraped instead of the endpoint\'s, and recorded without its credentials', async () => {
  const elsewhere = await startRunnerServer();
  try {
    const url = new URL('/metrics', elsewhere.baseUrl);
    url.username = 'scraper';
    url.password = 'hunter2';
    const { doc, server, text } = await runAgainst(vllmMetrics, { url: url.href });
    assert.equal(server.metricsRequests, 0);
    assert.ok(elsewhere.metricsRequests > 0);
    assert.equal(doc.serverMetrics?.url, new URL('/metrics', elsewhere.baseUrl).href);
    assert.ok(!text.includes('hunter2'));
  } finally {
    await elsewhere.close();
  }
});
