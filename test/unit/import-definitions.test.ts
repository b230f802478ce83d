/**
 * Imported numbers mean what docs/metrics.md says (issue 11, section 2): vLLM's zeros for "no
 * samples", its failures by kind, its --save-detailed lists and `bench sweep` output; GuideLLM
 * 0.4+'s token-weighted TPOT percentiles and its rate; AIPerf's cancellations; LLMPerf's sample std.
 * vLLM and GuideLLM 0.4+ files are written here in those tools' layouts; AIPerf and LLMPerf are
 * the real files of ../shared/fixtures (read there, copied only to a temporary folder).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { importPaths, importRuns } from '../../src/import';
import { buildResultView } from '../../src/views/result';
import { buildReportModel } from '../../src/views/report';
import { renderHtmlReport } from '../../src/report/html';

const repoRoot = process.env['LLMBENCH_ROOT'] ?? process.cwd();
const fixtures = resolve(repoRoot, '../shared/fixtures');
const skip = !existsSync(fixtures) && process.env['CI'] !== 'true' ? `no ${fixtures} (a clone without ../shared): fixture tests skipped` : false;

const folder = (prefix: string) => mkdtempSync(join(tmpdir(), `llmbench-${prefix}-`));
function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

async function importOne(path: string): Promise<ResultDocument> {
  const outcome = await importPaths([path]);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  return ResultDocumentSchema.parse(outcome.value);
}

/** vLLM's statistics keys for a metric, every one at `value` (vLLM writes 0 for all of them when it has no sample). */
const vllmMetric = (metric: string, value: number) =>
  Object.fromEntries(['mean', 'median', 'std', 'p99'].map((stat) => [`${stat}_${metric}_ms`, value]));

test('vLLM: a run where every request failed is failed, with no statistics and its failures by kind', async () => {
  const dir = folder('vllm-failed');
  const messages = [
    'Traceback (most recent call last):\n  ...\naiohttp.client_exceptions.ClientConnectorError: Cannot connect to host 127.0.0.1:8000',
    'Not Found',
    'Traceback (most recent call last):\n  ...\naiohttp.client_exceptions.ClientConnectorError: Cannot connect to host 127.0.0.1:8000',
    'Internal Server Error',
    'Traceback (most recent call last):\n  ...\nasyncio.exceptions.TimeoutError',
  ];
  const path = writeJson(dir, 'vllm.json', {
    model_id: 'm',
    request_rate: 'inf',
    duration: 0.8,
    completed: 0,
    failed: 5,
    total_input_tokens: 0,
    total_output_tokens: 0,
    request_throughput: 0,
    output_throughput: 0,
    total_token_throughput: 0,
    ...vllmMetric('ttft', 0),
    ...vllmMetric('tpot', 0),
    ...vllmMetric('itl', 0),
    ...vllmMetric('e2el', 0),
    input_lens: [0, 0, 0, 0, 0],
    output_lens: [0, 0, 0, 0, 0],
    ttfts: [0, 0, 0, 0, 0],
    itls: [[], [], [], [], []],
    generated_texts: ['', '', '', '', ''],
    errors: messages,
  });
  const doc = await importOne(path);
  assert.equal(doc.status, 'failed');
  assert.match(doc.statusReason ?? '', /every request failed \(5\)/);
  const s = doc.steps[0]?.summary;
  assert.deepEqual(s?.requests, { total: 5, completed: 0, failed: 5 });
  for (const metric of ['ttftMs', 'tpotMs', 'itlMs', 'latencyMs'] as const) assert.equal(s?.[metric], null, `${metric} has no sample`);
  assert.deepEqual(s?.errors, { connect: 2, http: 2, 'timeout-total': 1 });
  assert.deepEqual(
    doc.steps[0]?.requests.map((r) => r.error?.kind),
    ['connect', 'http', 'connect', 'http', 'timeout-total'],
  );

  // Without per-request messages the kind is unknown: the failures still count, as "other".
  const aggregates = writeJson(dir, 'aggregates.json', { model_id: 'm', completed: 0, failed: 3, duration: 1, ...vllmMetric('ttft', 0), ...vllmMetric('tpot', 0) });
  const bare = await importOne(aggregates);
  assert.equal(bare.status, 'failed');
  assert.deepEqual(bare.steps[0]?.summary?.errors, { other: 3 });
  assert.equal(bare.steps[0]?.summary?.ttftMs, null);
});

test('vLLM: a metric with no samples (non-streaming endpoint: TTFT, TPOT, ITL all 0) is null, the others are kept', async () => {
  const dir = folder('vllm-nostream');
  const path = writeJson(dir, 'vllm.json', {
    model_id: 'm',
    request_rate: 'inf',
    duration: 10,
    completed: 20,
    failed: 0,
    request_throughput: 2,
    ...vllmMetric('ttft', 0),
    ...vllmMetric('tpot', 0),
    ...vllmMetric('itl', 0),
    ...vllmMetric('e2el', 950),
  });
  const doc = await importOne(path);
  const s = doc.steps[0]?.summary;
  assert.equal(doc.status, 'complete');
  assert.equal(s?.ttftMs, null);
  assert.equal(s?.tpotMs, null);
  assert.equal(s?.itlMs, null);
  assert.equal(s?.latencyMs?.mean, 950);
  assert.equal(s?.latencyMs?.count, 20);
});

test('vLLM --save-detailed lists (seconds) become one record per request, in ms from the first submit', async () => {
  const dir = folder('vllm-detailed');
  const submit = 1_750_000_000.25;
  const file = {
    model_id: 'Qwen/Qwen2-7B-Instruct',
    request_rate: 4,
    burstiness: 1,
    duration: 2.5,
    completed: 3,
    failed: 1,
    ...vllmMetric('ttft', 100),
    input_lens: [512, 512, 480, 500],
    output_lens: [4, 3, 0, 2],
    ttfts: [0.105, 0.2, 0, 0.09],
    itls: [[0.01, 0.012, 0.011], [0.02, 0.03], [], [0.015]],
    request_submit_times: [submit, submit + 0.25, submit + 0.5, submit + 0.75],
    errors: ['', '', 'Service Unavailable', ''],
    generated_texts: ['a b c d', 'a b c', '', 'a b'],
  };
  const doc = await importOne(writeJson(dir, 'detailed.json', file));
  const requests = doc.steps[0]?.requests ?? [];
  assert.equal(requests.length, 4);
  const close = (actual: number | null | undefined, expected: number, what: string) =>
    assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-6, `${what}: ${actual} != ${expected}`);
  for (const [index, r] of requests.entries()) {
    const sent = (file.request_submit_times[index]! - submit) * 1000;
    close(r.sentMs, sent, `request ${index} sentMs`);
    assert.equal(r.inputTokens, file.input_lens[index]);
    assert.equal(r.outputTokens, file.output_lens[index]);
    if (file.errors[index]) {
      assert.deepEqual(r.error, { kind: 'http', message: 'Service Unavailable' });
      assert.equal(r.firstTokenMs, null);
      assert.equal(r.endMs, null);
      assert.deepEqual(r.chunkMs, []);
      continue;
    }
    assert.equal(r.error, null);
    const first = sent + file.ttfts[index]! * 1000;
    close(r.firstTokenMs, first, `request ${index} firstTokenMs`);
    const expectedChunks = [first];
    for (const gap of file.itls[index]!) expectedChunks.push(expectedChunks.at(-1)! + gap * 1000);
    assert.equal(r.chunkMs.length, expectedChunks.length);
    expectedChunks.forEach((t, i) => close(r.chunkMs[i], t, `request ${index} chunk ${i}`));
    close(r.endMs, expectedChunks.at(-1)!, `request ${index} endMs (the last chunk)`);
  }
  assert.deepEqual(doc.steps[0]?.summary?.errors, { http: 1 });
});

/** A bench-serve result as `vllm bench sweep serve` collects it: the run's number and both sides' overrides added. */
const sweepEntry = (maxNumSeqs: number, concurrency: number, ttft: number) => ({
  date: '20251020-101500',
  model_id: 'Qwen/Qwen3-8B',
  request_rate: 'inf',
  max_concurrency: concurrency,
  duration: 20,
  completed: 100,
  failed: 0,
  request_throughput: 5,
  output_throughput: 640,
  total_token_throughput: 3200,
  ...vllmMetric('ttft', ttft),
  ...vllmMetric('tpot', 12),
  ...vllmMetric('itl', 11),
  ...vllmMetric('e2el', 1600),
  run_number: 0,
  max_num_seqs: maxNumSeqs,
  max_num_batched_tokens: 4096,
});

test('vLLM bench sweep: summary.json (a list of results) is one run with a step per entry', async () => {
  const dir = folder('vllm-sweep-list');
  const path = writeJson(dir, 'summary.json', [sweepEntry(64, 16, 90), sweepEntry(64, 4, 40), sweepEntry(64, 64, 300)]);
  const doc = await importOne(path);
  assert.deepEqual(doc.steps.map((s) => s.name), ['concurrency@4', 'concurrency@16', 'concurrency@64']);
  assert.deepEqual(doc.steps.map((s) => s.summary?.ttftMs?.mean), [40, 90, 300]);
  assert.equal(doc.labels['max_num_seqs'], '64');
  assert.equal(doc.labels['run_number'], undefined, 'the run number is not a label');
  assert.equal(doc.importedFrom?.file, path);
});

test('vLLM bench sweep folder: each server configuration is a run, labels from the SERVE--/BENCH-- folder names', async () => {
  const dir = folder('vllm-sweep-dir');
  for (const seqs of [32, 128]) {
    for (const concurrency of [8, 32]) {
      const combination = join(dir, `SERVE--max_num_seqs=${seqs}-max_num_batched_tokens=4096-BENCH--max_concurrency=${concurrency}`);
      const entry = sweepEntry(seqs, concurrency, seqs + concurrency);
      writeJson(combination, 'run=0.json', entry);
      // The combination's summary.json repeats its runs: it must not add steps.
      writeJson(combination, 'summary.json', [entry]);
    }
  }
  writeFileSync(join(dir, 'summary.csv'), 'not read\n');
  const outcome = await importRuns([dir]);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  const runs = outcome.value.map((doc) => ResultDocumentSchema.parse(doc));
  assert.equal(runs.length, 2);
  assert.deepEqual(runs.map((r) => r.labels['max_num_seqs']), ['32', '128'], 'folders in numeric order');
  for (const run of runs) {
    assert.equal(run.labels['max_num_batched_tokens'], '4096');
    assert.equal(run.labels['max_concurrency'], undefined, 'a parameter that differs between steps is the steps\' load, not a label');
    assert.deepEqual(run.steps.map((s) => s.name), ['concurrency@8', 'concurrency@32']);
    const seqs = Number(run.labels['max_num_seqs']);
    assert.deepEqual(run.steps.map((s) => s.summary?.ttftMs?.mean), [seqs + 8, seqs + 32]);
  }
  const single = await importPaths([dir]);
  assert.equal(single.ok, false);
  assert.match(single.ok ? '' : single.error, /hold 2 runs that cannot join in one result.*--out FOLDER/);
});

test('GuideLLM 0.4+: TPOT percentiles stay GuideLLM\'s token-weighted values, marked so, with count = requests; requests/s is ours', async () => {
  const dir = folder('guidellm-04');
  // Four requests whose token-weighted distribution puts p90, p95 and p99 on the maximum, as GuideLLM 0.4+ writes them.
  const tokenWeighted = { mean: 20.1, median: 20, std_dev: 2, min: 15, max: 31, count: 4092, total_sum: 82249, percentiles: { p50: 20, p75: 25, p90: 31, p95: 31, p99: 31 } };
  const perRequest = (mean: number) => ({ mean, median: mean, std_dev: 1, min: mean - 1, max: mean + 1, count: 4, percentiles: { p50: mean, p90: mean + 1, p99: mean + 1 } });
  const status = (successful: object) => ({ successful, errored: null, incomplete: null, total: successful });
  writeJson(dir, 'benchmarks.json', {
    metadata: { version: 1, guidellm_version: '0.4.1' },
    benchmarks: [
      {
        config: { strategy: { type_: 'synchronous' }, backend: { model: 'm' } },
        duration: 8,
        metrics: {
          request_totals: { successful: 4, errored: 0, incomplete: 0, total: 4 },
          requests_per_second: status(perRequest(0.62)),
          request_latency: status(perRequest(2)),
          time_to_first_token_ms: status(perRequest(60)),
          inter_token_latency_ms: status(tokenWeighted),
        },
      },
    ],
  });
  const doc = await importOne(join(dir, 'benchmarks.json'));
  const s = doc.steps[0]?.summary;
  assert.equal(s?.tpotMs?.count, 4, 'count is requests, not the 4,092 tokens of the weights');
  assert.deepEqual([s?.tpotMs?.p90, s?.tpotMs?.p95, s?.tpotMs?.p99, s?.tpotMs?.max], [31, 31, 31, 31], 'GuideLLM\'s values are kept');
  assert.match(s?.tpotMs?.definition ?? '', /token-weighted.*nearest-rank/);
  assert.equal(s?.ttftMs?.definition, undefined);
  // The result view says so beside the figures.
  const view = buildResultView({ document: doc, unfinishedSteps: [] }, 'benchmarks.llmbench.json');
  assert.ok(view.notes.some((n) => n.startsWith('TPOT is not as defined here: GuideLLM 0.4+: token-weighted') && n.endsWith('(steps: synchronous)')), view.notes.join('\n'));
  // So does the report, in the extension's view model and in the HTML export, with the tool's version.
  const run = { name: 'guidellm run', doc, source: join(dir, 'benchmarks.json') };
  const model = buildReportModel([run]);
  assert.equal(model.runs[0]?.importedFrom, 'GuideLLM 0.4.1');
  assert.ok(model.runs[0]?.definitionNotes.some((n) => n.startsWith('TPOT is not as defined here: GuideLLM 0.4+')), JSON.stringify(model.runs[0]));
  assert.match(renderHtmlReport(model, [run], 'report'), /<li>TPOT is not as defined here: GuideLLM 0\.4\+: token-weighted/);
  assert.equal(s?.requestsPerSecond, 4 / 8);
  assert.deepEqual(doc.config['guidellmRequestsPerSecond'], { synchronous: 0.62 });
});

test('AIPerf summary alone: cancelled requests are cancelled (from error_summary), not failed', { skip }, async () => {
  const dir = folder('aiperf-alone');
  const path = join(dir, 'profile_export_aiperf.json');
  copyFileSync(join(fixtures, 'aiperf/aiperf-0.1.1_run1_profile_export_aiperf.json'), path);
  const file = JSON.parse(readFileSync(path, 'utf8')) as { records: Record<string, { avg: number }>; error_summary: { count: number }[] };
  const doc = await importOne(path);
  const s = doc.steps[0]?.summary;
  assert.equal(doc.steps[0]?.requests.length, 0, 'no per-request records beside it');
  assert.deepEqual(s?.errors, { cancelled: file.error_summary[0]?.count });
  assert.deepEqual(s?.requests, { total: file.records['request_count']?.avg, completed: file.records['request_count']?.avg, failed: 0 });
});

test('LLMPerf: pandas\' sample stddev is stored as the population std', { skip }, async () => {
  const summary = JSON.parse(readFileSync(join(fixtures, 'llmperf/leaderboard_summary_together_7b.json'), 'utf8')) as Record<string, number>;
  const doc = await importOne(join(fixtures, 'llmperf/leaderboard_summary_together_7b.json'));
  const s = doc.steps[0]?.summary;
  const n = summary['results_num_completed_requests']!;
  const expected = summary['results_ttft_s_stddev']! * Math.sqrt((n - 1) / n) * 1000;
  assert.ok(Math.abs((s?.ttftMs?.std ?? 0) - expected) < 1e-9, `${s?.ttftMs?.std} != ${expected}`);
  assert.ok((s?.ttftMs?.std ?? 0) < summary['results_ttft_s_stddev']! * 1000);
  assert.ok(doc.importedFrom?.notes.some((note) => /sample standard deviation/.test(note)));
});
