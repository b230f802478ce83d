// The Prometheus text parser against the engines' real expositions (test/fixtures/server-metrics,
// sources in SOURCE.md), the simulator's live /metrics, and the corners of the format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePrometheusText, parsePromValue, type PromSample } from '../../src/observe/prometheus';
import { SeriesStore } from '../../src/observe/metrics-scraper';
import { mergeSeries } from '../../src/views/server-quantities';
import type { MetricSeries } from '../../src/format/server-metrics';
import { recogniseEngine } from '../../src/format/server-metrics';
import { startSimServer } from '../../src/sim';
import { repoRoot } from '../helpers/limited-child';

const fixture = (name: string): string => readFileSync(join(repoRoot, 'test', 'fixtures', 'server-metrics', name), 'utf8');
const value = (samples: PromSample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

test('vLLM (its design doc output): gauges, counters and a histogram; the doc’s “...” elisions are reported, not fatal', () => {
  const parsed = parsePrometheusText(fixture('vllm-design-doc.prom'));
  assert.deepEqual(
    parsed.problems.map((p) => p.line),
    [4, 8, 14],
  );
  assert.equal(value(parsed.samples, 'vllm:num_requests_running'), 8);
  const running = parsed.samples.find((s) => s.name === 'vllm:num_requests_running');
  assert.deepEqual(running?.labels, { model_name: 'meta-llama/Llama-3.1-8B-Instruct' });
  assert.equal(running?.kind, 'gauge');
  assert.equal(value(parsed.samples, 'vllm:generation_tokens_total'), 27453);
  assert.equal(value(parsed.samples, 'vllm:request_success_total', { finished_reason: 'length' }), 131);
  const bucket = parsed.samples.find((s) => s.name === 'vllm:time_to_first_token_seconds_bucket' && s.labels['le'] === '0.04');
  assert.equal(bucket?.family, 'vllm:time_to_first_token_seconds');
  assert.equal(bucket?.kind, 'histogram');
  assert.equal(bucket?.value, 97);
  assert.equal(parsed.families.get('vllm:time_to_first_token_seconds')?.help, 'Histogram of time to first token in seconds.');
  assert.equal(recogniseEngine(parsed.families.keys()), 'vllm');
});

test('SGLang (its production metrics doc): exponents, +Inf buckets, long float labels', () => {
  const parsed = parsePrometheusText(fixture('sglang-production-metrics-doc.prom'));
  assert.deepEqual(parsed.problems, []);
  assert.equal(value(parsed.samples, 'sglang:prompt_tokens_total'), 8_128_902);
  assert.equal(value(parsed.samples, 'sglang:num_running_reqs'), 162);
  assert.equal(value(parsed.samples, 'sglang:num_queue_reqs'), 2826);
  assert.equal(value(parsed.samples, 'sglang:token_usage'), 0.28);
  assert.equal(value(parsed.samples, 'sglang:time_to_first_token_seconds_bucket', { le: '+Inf' }), 11008);
  assert.equal(value(parsed.samples, 'sglang:func_latency_seconds_bucket', { le: '0.07500000000000001', name: 'generate_request' }), 14006);
  assert.equal(value(parsed.samples, 'sglang:time_per_output_token_seconds_count'), 7_400_757);
  assert.equal(parsed.samples.find((s) => s.name === 'sglang:prompt_tokens_total')?.kind, 'counter');
  assert.equal(recogniseEngine(parsed.families.keys()), 'sglang');
});

test('TGI: unlabelled samples, histograms whose _sum counts tokens', () => {
  const parsed = parsePrometheusText(fixture('tgi-llmtop-test.prom'));
  assert.deepEqual(parsed.problems, []);
  assert.equal(value(parsed.samples, 'tgi_queue_size'), 3);
  assert.equal(value(parsed.samples, 'tgi_batch_current_size'), 5);
  assert.equal(value(parsed.samples, 'tgi_request_generated_tokens_sum'), 12500);
  assert.equal(value(parsed.samples, 'tgi_batch_inference_count', { method: 'prefill' }), 150);
  assert.equal(parsed.samples.find((s) => s.name === 'tgi_request_queue_duration_count')?.family, 'tgi_request_queue_duration');
  assert.equal(recogniseEngine(parsed.families.keys()), 'tgi');
});

test('llama.cpp (captured from llama-server --metrics): every family typed, counters with _total', () => {
  const parsed = parsePrometheusText(fixture('llamacpp-0.7.0.prom'));
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.samples.length, 15);
  assert.ok(parsed.samples.every((s) => s.kind === 'counter' || s.kind === 'gauge'));
  assert.equal(value(parsed.samples, 'llamacpp:tokens_predicted_total'), 16);
  assert.equal(value(parsed.samples, 'llamacpp:requests_processing'), 0);
  assert.equal(recogniseEngine(parsed.families.keys()), 'llama.cpp');
});

test("the simulator's live /metrics parses without a problem and reads as vLLM", async () => {
  const sim = await startSimServer({ preset: 'tiny', seed: 3 });
  try {
    const text = await (await fetch(new URL('/metrics', sim.baseUrl))).text();
    const parsed = parsePrometheusText(text);
    assert.deepEqual(parsed.problems, []);
    assert.equal(recogniseEngine(parsed.samples.map((s) => s.name)), 'vllm');
    for (const name of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc', 'vllm:generation_tokens_total', 'vllm:prefix_cache_hits_total']) {
      assert.ok(parsed.samples.some((s) => s.name === name), `${name} in the simulator's exposition`);
    }
  } finally {
    await sim.close();
  }
});

test('label escaping, trailing commas, spaces, timestamps, NaN and infinities', () => {
  const text = [
    '# HELP odd_metric A help with a \\\\ backslash and a \\n newline.',
    '# TYPE odd_metric gauge',
    'odd_metric{path="C:\\\\dir",quote="say \\"hi\\"",nl="a\\nb",} 1.5 1700000000000',
    'odd_metric { spaced = "yes" } NaN',
    'odd_metric{v="up"} +Inf',
    'odd_metric{v="down"} -Inf',
    'odd_metric{v="exp"} 1e-3',
    '{"utf8.metric.name", a="1"} 2',
    'openmetrics_total 7 # {trace_id="abc"} 1.0 1700000000.5',
  ].join('\r\n');
  const parsed = parsePrometheusText(text);
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.families.get('odd_metric')?.help, 'A help with a \\ backslash and a \n newline.');
  const [first, nan, up, down, exp, utf8, open] = parsed.samples;
  assert.deepEqual(first?.labels, { path: 'C:\\dir', quote: 'say "hi"', nl: 'a\nb' });
  assert.equal(first?.value, 1.5);
  assert.equal(first?.timestampMs, 1_700_000_000_000);
  assert.deepEqual(nan?.labels, { spaced: 'yes' });
  assert.ok(Number.isNaN(nan?.value));
  assert.equal(up?.value, Infinity);
  assert.equal(down?.value, -Infinity);
  assert.equal(exp?.value, 0.001);
  assert.equal(utf8?.name, 'utf8.metric.name');
  assert.deepEqual(utf8?.labels, { a: '1' });
  assert.equal(open?.value, 7);
  assert.equal(open?.timestampMs, null);
});

test('malformed lines are each reported with their line number and the rest is read', () => {
  const parsed = parsePrometheusText(['good 1', 'no_value', 'bad{a="1"', 'bad{a=1} 2', 'bad{a="1",a="2"} 3', 'word notanumber', '<html>', 'good2 2 3 4', '# TYPE x sometype', 'last 9'].join('\n'));
  assert.deepEqual(
    parsed.samples.map((s) => s.name),
    ['good', 'last'],
  );
  assert.deepEqual(
    parsed.problems.map((p) => p.line),
    [2, 3, 4, 5, 6, 7, 8, 9],
  );
  assert.match(parsed.problems[3]?.reason ?? '', /appears twice/);
});

test('selectSample skips samples before reading their labels', () => {
  const parsed = parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 2\nh_count 3\nother{a="1"} 4\n', { selectSample: (name, family) => family === 'h' && !name.endsWith('_bucket') });
  assert.deepEqual(
    parsed.samples.map((s) => s.name),
    ['h_sum', 'h_count'],
  );
});

test('parsePromValue reads what Prometheus reads (Go\'s ParseFloat without its Go 1.13 forms) and refuses the rest', () => {
  assert.equal(parsePromValue('12abc'), null);
  assert.equal(parsePromValue(''), null);
  assert.equal(parsePromValue('.5'), 0.5);
  assert.equal(parsePromValue('-1.'), -1);
  assert.equal(parsePromValue('2.5E-3'), 0.0025);
  assert.equal(parsePromValue('Inf'), Infinity);
  assert.equal(parsePromValue('+Infinity'), Infinity);
  assert.equal(parsePromValue('-inf'), -Infinity);
  assert.ok(Number.isNaN(parsePromValue('NaN')));
  // Go reads hex only as a hex float with a p exponent, and Prometheus refuses any p or _:
  for (const refused of ['0x1F', '0x1Fp0', '1_000', '+NaN', '1e400', '- 1', 'infinit']) assert.equal(parsePromValue(refused), null, refused);
  const parsed = parsePrometheusText('# TYPE g gauge\ng{v="hex"} 0x1F\ng{v="ok"} 31\n');
  assert.deepEqual(parsed.samples.map((s) => s.value), [31]);
  assert.match(parsed.problems[0]?.reason ?? '', /"0x1F" is not a number/);
});

test('timestamps: the Prometheus text format\'s are integer milliseconds, OpenMetrics\' (a page ending in # EOF, or served as application/openmetrics-text) seconds, whole or fractional', () => {
  const prometheus = parsePrometheusText('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3 1700000000123\n');
  assert.equal(prometheus.samples[0]?.timestampMs, 1_700_000_000_123);
  const openMetrics = parsePrometheusText('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3 1700000000\nvllm:num_requests_running{engine="1"} 2 1700000000.25\nvllm:num_requests_running{engine="2"} 1 1.7e9\n# EOF\n');
  assert.deepEqual(openMetrics.problems, []);
  assert.deepEqual(openMetrics.samples.map((s) => s.timestampMs), [1_700_000_000_000, 1_700_000_000_250, 1_700_000_000_000]);
  // The Content-Type decides for a page cut before its # EOF; a text/plain one stays in milliseconds.
  const served = (text: string, contentType: string) => parsePrometheusText(text, { contentType }).samples[0]?.timestampMs;
  assert.equal(served('up 1 1700000000\n', 'application/openmetrics-text; version=1.0.0; charset=utf-8'), 1_700_000_000_000);
  assert.equal(served('up 1 1700000000123\n', 'text/plain; version=0.0.4; charset=utf-8'), 1_700_000_000_123);
});

test('one series key: a series whose labels come in another order is the same series for the scraper and for the views', () => {
  const series = (labels: Record<string, string>): Omit<MetricSeries, 'samples'> => ({ source: 'server', name: 'vllm:num_requests_running', kind: 'gauge', labels });
  const store = new SeriesStore();
  store.add(series({ model_name: 'm', engine: '0' }), [0, 1]);
  store.add(series({ engine: '0', model_name: 'm' }), [1000, 2]);
  const taken = store.take();
  assert.equal(taken.length, 1, JSON.stringify(taken));
  assert.deepEqual(taken[0]?.samples, [[0, 1], [1000, 2]]);
  const merged = mergeSeries([], [{ ...series({ model_name: 'm', engine: '0' }), samples: [[0, 1]] }, { ...series({ engine: '0', model_name: 'm' }), samples: [[1000, 2]] }]);
  assert.equal(merged.length, 1);
  // A label value holding what a key might join with stays apart from another split of the same characters.
  const tricky = new SeriesStore();
  tricky.add(series({ a: 'x,b=y' }), [0, 1]);
  tricky.add(series({ a: 'x', b: 'y' }), [0, 2]);
  assert.equal(tricky.take().length, 2);
});
