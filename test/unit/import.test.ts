/**
 * Importers against the real files other tools wrote (../shared/fixtures, see its PROVENANCE.md):
 * every number is checked against the value in the file. EvalScope has no public output file, so
 * its test writes files in the layout of EvalScope's source (evalscope/perf/utils/db_util.py).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ResultDocumentSchema, type ResultDocument, type StepSummary } from '../../src/format/result';
import { detectTool, importPaths } from '../../src/import';
import { formatMarkdownTable, formatVllmBlock } from '../../src/report/tables';

const repoRoot = process.env['LLMBENCH_ROOT'] ?? process.cwd();
const fixtures = resolve(repoRoot, '../shared/fixtures');
const fixturesPresent = existsSync(fixtures);
// In CI the fixtures must be there; on a user's clone without ../shared the fixture tests say so and skip.
const skip = !fixturesPresent && process.env['CI'] !== 'true' ? `no ${fixtures} (a clone without ../shared): fixture tests skipped` : false;
const fixture = (name: string) => join(fixtures, name);
const readJson = (name: string) => JSON.parse(readFileSync(fixture(name), 'utf8')) as Record<string, unknown>;

async function imported(...paths: string[]): Promise<ResultDocument> {
  const outcome = await importPaths(paths);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error);
  // Every imported document is a valid result file the viewers can open.
  return ResultDocumentSchema.parse(outcome.value);
}

function onlySummary(doc: ResultDocument): StepSummary {
  assert.equal(doc.steps.length, 1);
  const summary = doc.steps[0]?.summary;
  assert.ok(summary);
  return summary;
}

test('vLLM --save-result (llm-d, v0.8): aggregates, the "request_goodput:" key, metadata as labels', { skip }, async () => {
  const name = 'vllm/llmd_exp7_h100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json';
  const file = readJson(name);
  assert.equal(detectTool(readFileSync(fixture(name), 'utf8')), 'vllm');
  const doc = await imported(fixture(name));
  const s = onlySummary(doc);
  assert.equal(doc.importedFrom?.tool, 'vllm bench serve');
  assert.equal(doc.endpoint.model, file['model_id']);
  assert.equal(doc.labels['timestamp'], file['timestamp']);
  assert.equal(doc.steps[0]?.name, 'asynchronous@3.60 req/sec');
  assert.deepEqual(doc.steps[0]?.profile, { kind: 'rate', rate: 3.6, arrival: 'gamma', burstiness: 100 });
  assert.deepEqual(s.requests, { total: 200, completed: file['completed'], failed: 0 });
  assert.equal(s.durationSec, file['duration']);
  assert.equal(s.requestsPerSecond, file['request_throughput']);
  assert.equal(s.outputTokensPerSecond, file['output_throughput']);
  assert.equal(s.totalTokensPerSecond, file['total_token_throughput']);
  assert.equal(s.goodput, null);
  assert.equal(s.ttftMs?.mean, file['mean_ttft_ms']);
  assert.equal(s.ttftMs?.p50, file['median_ttft_ms']);
  assert.equal(s.ttftMs?.std, file['std_ttft_ms']);
  assert.equal(s.ttftMs?.p95, file['p95_ttft_ms']);
  assert.equal(s.ttftMs?.p99, file['p99_ttft_ms']);
  assert.equal(s.ttftMs?.p90, null, 'a percentile the file lacks stays null');
  assert.equal(s.tpotMs?.mean, file['mean_tpot_ms']);
  assert.equal(s.itlMs?.p99, file['p99_itl_ms']);
  assert.equal(s.itlMs?.count, null, 'vLLM does not say how many ITL gaps it pooled');
  assert.equal(s.latencyMs, null, 'no e2el statistics in this file');
  assert.equal(s.inputTokens?.mean, 1599800 / 200);
  assert.ok(doc.importedFrom?.notes.some((n) => /e2el/.test(n)));
  assert.match(formatVllmBlock(doc, 0), /Total input tokens:\s+1599800\s/);
});

test('vLLM (Ascend fork, rate "inf"): missing duration, counts and throughput stay missing', { skip }, async () => {
  const name = 'vllm/ascend-fork_serving_llama8B_tp1_qps_inf.json';
  const file = readJson(name);
  const doc = await imported(fixture(name));
  const s = onlySummary(doc);
  assert.equal(doc.steps[0]?.name, 'throughput');
  assert.equal(s.durationSec, null);
  assert.equal(s.requestsPerSecond, null);
  assert.equal(s.outputTokensPerSecond, null);
  assert.deepEqual(s.requests, { total: 0, completed: 0, failed: 0 });
  assert.equal(s.ttftMs?.mean, file['mean_ttft_ms']);
  assert.equal(s.ttftMs?.count, null);
  assert.equal(s.tpotMs?.p99, file['p99_tpot_ms']);
  assert.equal(s.itlMs?.std, file['std_itl_ms']);
  assert.ok(doc.importedFrom?.notes.some((n) => /no duration, completed, request_throughput, output_throughput/.test(n)));
  const row = formatMarkdownTable(doc).split('\n')[2];
  assert.equal(row, `| throughput | n/a | n/a | ${(file['mean_ttft_ms'] as number).toFixed(2)} ms | ${(file['mean_tpot_ms'] as number).toFixed(2)} ms | n/a |`);
});

test('GuideLLM benchmarks.json (before 0.3): GuideLLM ITL becomes our TPOT, latency seconds become ms', { skip }, async () => {
  const name = 'guidellm/guidellm_repo_benchmarks_stripped_pre0.3.json';
  const b = (readJson(name)['benchmarks'] as Record<string, any>[])[0]!;
  const doc = await imported(fixture(name));
  const s = onlySummary(doc);
  const m = b['metrics'];
  assert.equal(doc.importedFrom?.tool, 'GuideLLM');
  assert.equal(doc.importedFrom?.version, null);
  assert.equal(doc.endpoint.model, b['worker']['backend_model']);
  assert.equal(doc.steps[0]?.name, 'synchronous');
  assert.deepEqual(s.requests, { total: 46, completed: b['request_totals']['successful'], failed: 0 });
  assert.equal(s.durationSec, b['duration']);
  // Ours is completed / duration; GuideLLM's duration-weighted rate is kept under its own name.
  assert.equal(s.requestsPerSecond, b['request_totals']['successful'] / b['duration']);
  assert.notEqual(s.requestsPerSecond, m['requests_per_second']['successful']['mean']);
  assert.deepEqual(doc.config['guidellmRequestsPerSecond'], { synchronous: m['requests_per_second']['successful']['mean'] });
  assert.equal(s.outputTokensPerSecond, m['output_tokens_per_second']['successful']['mean']);
  assert.equal(s.ttftMs?.mean, m['time_to_first_token_ms']['successful']['mean']);
  assert.equal(s.ttftMs?.p90, m['time_to_first_token_ms']['successful']['percentiles']['p90']);
  assert.equal(s.tpotMs?.mean, m['inter_token_latency_ms']['successful']['mean']);
  assert.equal(s.tpotMs?.count, 46);
  assert.equal(s.tpotMs?.definition, undefined, 'before 0.4 GuideLLM\'s ITL statistics are per request');
  assert.equal(s.itlMs, null);
  assert.equal(s.latencyMs?.mean, m['request_latency']['successful']['mean'] * 1000);
  assert.equal(s.latencyMs?.p99, m['request_latency']['successful']['percentiles']['p99'] * 1000);
  assert.equal(s.latencyMs?.p66, null);
  assert.equal(s.outputTokens?.mean, m['output_token_count']['successful']['mean']);
  assert.ok(doc.importedFrom?.notes.some((n) => /"ITL".*our TPOT/.test(n)));
});

test('GuideLLM 0.4+ layout (metadata, config.strategy, metrics.request_totals) is read too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-guidellm-'));
  const dist = (mean: number) => ({ mean, median: mean, mode: mean, variance: 0, std_dev: 0, min: mean, max: mean, count: 10, total_sum: mean * 10, percentiles: { p50: mean, p90: mean + 1, p99: mean + 2 } });
  const status = (mean: number) => ({ successful: dist(mean), errored: dist(0), incomplete: dist(0), total: dist(mean) });
  const benchmark = (strategy: object) => ({
    type_: 'generative_benchmark',
    config: { strategy, backend: { model: 'Qwen/Qwen3-8B', target: 'http://127.0.0.1:8000' } },
    scheduler_metrics: { measure_start_time: 100, measure_end_time: 130 },
    metrics: {
      request_totals: { successful: 10, errored: 2, incomplete: 1, total: 13 },
      requests_per_second: status(3.2),
      request_concurrency: status(4),
      request_latency: status(1.5),
      time_to_first_token_ms: status(80),
      inter_token_latency_ms: status(12),
      time_per_output_token_ms: status(14),
      output_tokens_per_second: status(320),
      tokens_per_second: status(900),
    },
    start_time: 100,
    end_time: 130,
    duration: 30,
  });
  const path = join(dir, 'benchmarks.json');
  writeFileSync(
    path,
    JSON.stringify({
      metadata: { version: 1, guidellm_version: '0.4.0', python_version: '3.12', platform: 'Linux' },
      benchmarks: [benchmark({ type_: 'constant', rate: 2.5 }), benchmark({ type_: 'concurrent', streams: 8 })],
    }),
  );
  const doc = await imported(path);
  assert.equal(doc.importedFrom?.version, '0.4.0');
  assert.equal(doc.endpoint.model, 'Qwen/Qwen3-8B');
  assert.deepEqual(doc.steps.map((s) => s.name), ['concurrency@8', 'asynchronous@2.50 req/sec']);
  const s = doc.steps[1]?.summary;
  assert.deepEqual(s?.requests, { total: 12, completed: 10, failed: 2 });
  assert.equal(s?.latencyMs?.mean, 1500);
  assert.equal(s?.tpotMs?.p90, 13);
  assert.equal(s?.targetRate, 2.5);
});

test('AIPerf 0.1.1: summary with its per-request records beside it, cancellations neither completed nor failed', { skip }, async () => {
  const name = 'aiperf/aiperf-0.1.1_run1_profile_export_aiperf.json';
  const records = (readJson(name)['records'] as Record<string, Record<string, number>>);
  const doc = await imported(fixture(name));
  const s = onlySummary(doc);
  assert.equal(doc.endpoint.model, 'openai/gpt-oss-20b');
  assert.equal(doc.steps[0]?.name, 'concurrency@100');
  // The 11 errored requests of the file are cancellations (--request-cancellation-rate): not failures.
  assert.equal(records['error_request_count']!['avg'], 11);
  assert.deepEqual(s.requests, { total: records['request_count']!['avg'], completed: records['request_count']!['avg'], failed: 0 });
  assert.equal(s.durationSec, records['benchmark_duration']!['avg']);
  assert.equal(s.requestsPerSecond, records['request_throughput']!['avg']);
  assert.equal(s.outputTokensPerSecond, records['output_token_throughput']!['avg']);
  assert.equal(s.ttftMs?.mean, records['ttft']!['avg']);
  assert.equal(s.ttftMs?.p50, records['ttft']!['p50']);
  assert.equal(s.ttftMs?.p99, records['ttft']!['p99']);
  assert.equal(s.tpotMs?.mean, records['inter_token_latency']!['avg']);
  assert.equal(s.itlMs?.mean, records['inter_chunk_latency']!['avg']);
  assert.equal(s.itlMs?.count, records['inter_chunk_latency']!['count']);
  assert.equal(s.latencyMs?.max, records['request_latency']!['max']);
  assert.equal(s.outputTokens?.mean, records['output_sequence_length']!['avg']);
  assert.deepEqual(s.errors, { cancelled: 11 });
  const requests = doc.steps[0]?.requests ?? [];
  assert.equal(requests.length, 100);
  const lines = readFileSync(fixture('aiperf/aiperf-0.1.1_run1_profile_export.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const firstOk = requests.findIndex((r) => r.error === null);
  const line = lines[firstOk];
  const r = requests[firstOk]!;
  assert.ok(Math.abs(r.firstTokenMs! - r.sentMs - line.metrics.ttft.value) < 1e-6);
  assert.ok(Math.abs(r.endMs! - r.sentMs - line.metrics.request_latency.value) < 1e-6);
  assert.equal(r.chunkMs.length, line.metrics.inter_chunk_latency.value.length + 1);
  assert.equal(r.outputTokens, line.metrics.output_sequence_length.value);
});

test('LLMPerf: summary in seconds, individual responses beside it give our TPOT', { skip }, async () => {
  const summaryFile = readJson('llmperf/leaderboard_summary_together_7b.json');
  const individual = JSON.parse(readFileSync(fixture('llmperf/leaderboard_individual_together_7b.json'), 'utf8')) as Record<string, number>[];
  const doc = await imported(fixture('llmperf/leaderboard_summary_together_7b.json'));
  const s = onlySummary(doc);
  assert.equal(doc.importedFrom?.version, '2023-08-31');
  assert.equal(doc.steps[0]?.name, 'concurrency@5');
  assert.equal(doc.labels['framework'], 'together');
  assert.deepEqual(s.requests, { total: 150, completed: 150, failed: 0 });
  assert.equal(s.requestsPerSecond, (summaryFile['results_num_completed_requests_per_min'] as number) / 60);
  assert.equal(s.outputTokensPerSecond, summaryFile['results_mean_output_throughput_token_per_s']);
  assert.equal(s.ttftMs?.mean, (summaryFile['results_ttft_s_mean'] as number) * 1000);
  assert.equal(s.ttftMs?.p90, (summaryFile['results_ttft_s_quantiles_p90'] as number) * 1000);
  assert.equal(s.latencyMs?.p50, (summaryFile['results_end_to_end_latency_s_quantiles_p50'] as number) * 1000);
  assert.equal(s.inputTokens?.min, 550, 'the string "550" is read as a number');
  const tpots = individual.map((r) => ((r['end_to_end_latency_s']! - r['ttft_s']!) / (r['number_output_tokens']! - 1)) * 1000);
  assert.equal(s.tpotMs?.count, 150);
  assert.ok(Math.abs(s.tpotMs!.mean - tpots.reduce((a, b) => a + b, 0) / tpots.length) < 1e-9);
  assert.equal(doc.steps[0]?.requests.length, 150);
});

test('EvalScope perf: a sweep folder of parallel_N_number_M runs, both key sets, percentile tables beside', async () => {
  // Written by this test in EvalScope's layouts (no public EvalScope output exists to use).
  const root = mkdtempSync(join(tmpdir(), 'llmbench-evalscope-'));
  const write = (dir: string, name: string, value: unknown) => {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, name), JSON.stringify(value));
  };
  write('parallel_8_number_100', 'benchmark_summary.json', {
    'Time taken for tests (s)': 50, 'Number of concurrency': 8, 'Total requests': 100, 'Succeed requests': 98, 'Failed requests': 2,
    'Output token throughput (tok/s)': 400.5, 'Total token throughput (tok/s)': 900.25, 'Request throughput (req/s)': 1.96,
    'Average latency (s)': 4.1, 'Average time to first token (s)': 0.25, 'Average time per output token (s)': 0.02,
    'Average inter-token latency (s)': 0.019, 'Average input tokens per request': 255, 'Average output tokens per request': 204,
  });
  write('parallel_8_number_100', 'benchmark_percentile.json', [
    { Percentiles: '10%', 'TTFT (s)': 0.1, 'ITL (s)': 0.01, 'TPOT (s)': 0.015, 'Latency (s)': 3 },
    { Percentiles: '50%', 'TTFT (s)': 0.22, 'ITL (s)': 0.018, 'TPOT (s)': 0.019, 'Latency (s)': 4 },
    { Percentiles: '66%', 'TTFT (s)': 0.26, 'ITL (s)': 0.02, 'TPOT (s)': 0.02, 'Latency (s)': 4.2 },
    { Percentiles: '99%', 'TTFT (s)': 0.6, 'ITL (s)': 0.05, 'TPOT (s)': 0.03, 'Latency (s)': 6 },
  ]);
  write('parallel_8_number_100', 'benchmark_args.json', { model: 'qwen2.5-7b', url: 'http://127.0.0.1:8000/v1/chat/completions' });
  write('parallel_1_number_20', 'benchmark_summary.json', {
    'Test Duration (s)': 20, Concurrency: 1, 'Total Requests': 20, 'Success Requests': 20, 'Failed Requests': 0,
    'Req Throughput (req/s)': 1, 'Avg Latency (s)': 1, 'TTFT (ms)': 50, 'TPOT (ms)': 10, 'ITL (ms)': 9.5,
    'Output Throughput (tok/s)': 100, 'Total Throughput (tok/s)': 300, 'Avg Input Tokens': 200, 'Avg Output Tokens': 100,
  });
  write('parallel_1_number_20', 'benchmark_percentile.json', [
    { Percentiles: 'min', 'TTFT (ms)': 40, 'Latency (s)': 0.8 },
    { Percentiles: '50%', 'TTFT (ms)': 49, 'Latency (s)': 0.99 },
    { Percentiles: '99%', 'TTFT (ms)': 70, 'Latency (s)': 1.3 },
    { Percentiles: 'max', 'TTFT (ms)': 71, 'Latency (s)': 1.31 },
  ]);
  write('parallel_1_number_20', 'benchmark_args.json', { model: 'qwen2.5-7b' });
  const doc = await imported(root);
  assert.equal(doc.importedFrom?.tool, 'EvalScope perf');
  assert.equal(doc.endpoint.model, 'qwen2.5-7b');
  assert.deepEqual(doc.steps.map((s) => s.name), ['concurrency@1', 'concurrency@8']);
  const [one, eight] = doc.steps.map((s) => s.summary!);
  assert.deepEqual(eight!.requests, { total: 100, completed: 98, failed: 2 });
  assert.equal(eight!.durationSec, 50);
  assert.equal(eight!.requestsPerSecond, 1.96);
  assert.equal(eight!.latencyMs?.mean, 4100);
  assert.equal(eight!.ttftMs?.mean, 250);
  assert.equal(eight!.ttftMs?.p50, 220);
  assert.equal(eight!.ttftMs?.p66, 260);
  assert.equal(eight!.tpotMs?.p99, 30);
  assert.ok(Math.abs(eight!.itlMs!.mean - 19) < 1e-9);
  assert.equal(eight!.latencyMs?.p99, 6000);
  assert.equal(one!.ttftMs?.mean, 50);
  assert.equal(one!.ttftMs?.min, 40);
  assert.equal(one!.ttftMs?.max, 71);
  assert.equal(one!.latencyMs?.p50, 990);
  assert.equal(one!.outputTokens?.mean, 100);
});

test('unreadable files get a message naming the tool and version expected and what was missing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-bad-'));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const fail = async (path: string) => {
    const outcome = await importPaths([path]);
    assert.equal(outcome.ok, false);
    return outcome.ok ? '' : outcome.error;
  };
  assert.match(await fail(write('a.json', '{"hello": 1}')), /of no tool LLM Bench knows.*vLLM bench serve.*GuideLLM benchmarks\.json/);
  assert.match(await fail(write('b.txt', 'not json at all')), /b\.txt: no benchmark result found\. In text LLM Bench reads vLLM's "Serving Benchmark Result" block/);
  assert.match(
    await fail(write('benchmarks.json', JSON.stringify({ benchmarks: [{ metrics: {}, args: { strategy: { type_: 'synchronous' } } }] }))),
    /GuideLLM benchmarks\.json \(0\.2 to 0\.8.*lacks metrics\.requests_per_second/,
  );
  assert.match(await fail(write('c.yaml', 'benchmarks: []')), /YAML.*--output-path benchmarks\.json/);
  assert.match(await fail(join(dir, 'missing.json')), /does not exist/);
  const percentiles = write('benchmark_percentile.json', JSON.stringify([{ Percentiles: '50%', 'TTFT (s)': 1 }]));
  assert.match(await fail(percentiles), /percentile table alone: import the benchmark_summary\.json/);
});

test('Python NaN and Infinity in a vLLM file read as missing values', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-nan-'));
  const path = join(dir, 'vllm.json');
  writeFileSync(path, '{"model_id": "m", "request_rate": Infinity, "duration": 10, "completed": 4, "request_throughput": 0.4, "mean_ttft_ms": NaN, "median_ttft_ms": NaN, "mean_tpot_ms": 5, "note": "NaN stays text"}');
  const doc = await imported(path);
  const s = onlySummary(doc);
  assert.equal(s.ttftMs, null);
  assert.equal(s.tpotMs?.mean, 5);
  assert.equal(doc.labels['note'], 'NaN stays text');
  assert.equal(doc.steps[0]?.name, 'throughput');
});

test('files of different tools are not merged into one result', { skip }, async () => {
  const outcome = await importPaths([fixture('vllm/ascend-fork_serving_llama8B_tp1_qps_inf.json'), fixture('guidellm/guidellm_repo_benchmarks_stripped_pre0.3.json')]);
  assert.equal(outcome.ok, false);
  assert.match(outcome.ok ? '' : outcome.error, /cannot join .* import them to separate files/);
});
