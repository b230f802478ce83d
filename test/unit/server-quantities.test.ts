// src/views/server-quantities.ts: any engine's names mapped to the common quantities, rates derived
// from raw counters (restarts included), per-step figures over a window of the run's clock, and
// the marks the report draws. Series are built from the engines' real expositions
// (test/fixtures/server-metrics) read twice, a second apart, with their counters advanced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePrometheusText } from '../../src/observe/prometheus';
import { recogniseEngine, viewFamilies, type MetricSeries } from '../../src/format/server-metrics';
import { commonSeries, firstReached, firstSustainedAbove, mergeSeries, runSeries, stepAt, stepServerFigures, type ServerPoint } from '../../src/views/server-quantities';
import { repoRoot } from '../helpers/limited-child';

const fixture = (name: string): string => readFileSync(join(repoRoot, 'test', 'fixtures', 'server-metrics', name), 'utf8');

/** The exposition as series sampled at `tMs`, each value changed by `advance(name, value)`. */
function sampled(text: string, tMs: number, advance: (name: string, value: number) => number = (_, v) => v): MetricSeries[] {
  return parsePrometheusText(text).samples.map((s) => ({ source: 'server' as const, name: s.name, kind: s.kind, labels: s.labels, samples: [[tMs, advance(s.name, s.value)]] }));
}

/** Two readings a second apart, as a run's series. */
function twoScrapes(text: string, advance: (name: string, value: number) => number): MetricSeries[] {
  return mergeSeries(sampled(text, 0), sampled(text, 1000, advance));
}

const last = (points: ServerPoint[] | undefined): number | undefined => points?.at(-1)?.value;

test('SGLang: gauges as they are, token counters as rates, the cache hit rate gauge', () => {
  const text = fixture('sglang-production-metrics-doc.prom');
  const series = twoScrapes(text, (name, v) => (name === 'sglang:generation_tokens_total' ? v + 2500 : name === 'sglang:prompt_tokens_total' ? v + 4000 : name === 'sglang:queue_time_seconds_sum' ? v + 1 : v));
  assert.equal(recogniseEngine(series.map((s) => s.name)), 'sglang');
  const common = commonSeries(series);
  assert.equal(last(common.runningRequests), 162);
  assert.equal(last(common.waitingRequests), 2826);
  assert.equal(last(common.kvCacheUsage), 0.28);
  assert.equal(last(common.prefixCacheHitRate), 0.007507552643049313);
  assert.equal(last(common.generatedTokens), 2500);
  assert.equal(last(common.promptTokens), 4000);
  assert.equal(common.preemptions, undefined, 'SGLang exposes no preemption counter here: absent, not zero');
});

test('TGI: batch and queue gauges, tokens from the histograms\' sums, queue time as Δsum/Δcount', () => {
  const text = fixture('tgi-llmtop-test.prom');
  const series = twoScrapes(text, (name, v) =>
    name === 'tgi_request_generated_tokens_sum' ? v + 640 : name === 'tgi_request_queue_duration_sum' ? v + 0.5 : name === 'tgi_request_queue_duration_count' ? v + 10 : v,
  );
  const common = commonSeries(series, 'tgi');
  assert.equal(last(common.runningRequests), 5);
  assert.equal(last(common.waitingRequests), 3);
  assert.equal(last(common.generatedTokens), 640);
  assert.equal(last(common.queueTime), 50, '0.5 s over 10 requests: 50 ms each');
  assert.equal(common.kvCacheUsage, undefined);
});

test('llama.cpp: processing and deferred requests, predicted tokens per second', () => {
  const series = twoScrapes(fixture('llamacpp-0.7.0.prom'), (name, v) => (name === 'llamacpp:tokens_predicted_total' ? v + 1200 : name === 'llamacpp:requests_processing' ? 4 : v));
  const common = commonSeries(series, 'llama.cpp');
  assert.equal(last(common.runningRequests), 4);
  assert.equal(last(common.waitingRequests), 0);
  assert.equal(last(common.generatedTokens), 1200);
});

test('llama.cpp: its cached prompt tokens kept beside the computed ones, the prefix-cache hit rate and prompt tokens/s counting both', () => {
  // Debian's 0.7.0 counts computed prompt tokens in prompt_tokens_total and those its cache served apart, in prompt_tokens_cached_total.
  const series = twoScrapes(fixture('llamacpp-0.7.0.prom'), (name, v) => (name === 'llamacpp:prompt_tokens_total' ? v + 100 : name === 'llamacpp:prompt_tokens_cached_total' ? v + 300 : v));
  const common = commonSeries(series, 'llama.cpp');
  assert.equal(last(common.prefixCacheHitRate), 300 / (100 + 300));
  assert.equal(last(common.promptTokens), 400, 'computed and cached prompt tokens, a second apart');
  const figures = stepServerFigures(series, { startMs: 0, endMs: 1000 }, 'llama.cpp');
  assert.equal(figures.prefixCacheHitRate, 0.75);
  assert.equal(figures.promptTokensPerSecond, 400);
});

test('vLLM: the older gpu_cache_usage_perc when kv_cache_usage_perc is absent, the prefix-cache hit rate from its two counters, restarts', () => {
  const at = (t: number, hits: number, queries: number, generated: number, preemptions: number): MetricSeries[] => [
    { source: 'server', name: 'vllm:gpu_cache_usage_perc', kind: 'gauge', labels: { engine: '0' }, samples: [[t, 0.5]] },
    { source: 'server', name: 'vllm:gpu_cache_usage_perc', kind: 'gauge', labels: { engine: '1' }, samples: [[t, 0.7]] },
    { source: 'server', name: 'vllm:num_requests_running', kind: 'gauge', labels: { engine: '0' }, samples: [[t, 3]] },
    { source: 'server', name: 'vllm:num_requests_running', kind: 'gauge', labels: { engine: '1' }, samples: [[t, 4]] },
    { source: 'server', name: 'vllm:prefix_cache_hits_total', kind: 'counter', labels: {}, samples: [[t, hits]] },
    { source: 'server', name: 'vllm:prefix_cache_queries_total', kind: 'counter', labels: {}, samples: [[t, queries]] },
    { source: 'server', name: 'vllm:generation_tokens_total', kind: 'counter', labels: {}, samples: [[t, generated]] },
    { source: 'server', name: 'vllm:num_preemptions_total', kind: 'counter', labels: {}, samples: [[t, preemptions]] },
  ];
  // A restart between 2 s and 3 s: the counters start again from zero.
  const series = mergeSeries(mergeSeries(mergeSeries(at(0, 0, 0, 1000, 0), at(1000, 300, 400, 1500, 1)), at(2000, 300, 400, 2000, 3)), at(3000, 50, 100, 200, 0));
  const common = commonSeries(series);
  assert.deepEqual(
    common.kvCacheUsage?.map((p) => p.value),
    [0.6, 0.6, 0.6, 0.6],
    'two data-parallel engines: their usage averaged',
  );
  assert.deepEqual(
    common.runningRequests?.map((p) => p.value),
    [7, 7, 7, 7],
    'their requests added',
  );
  assert.deepEqual(common.prefixCacheHitRate, [
    { tMs: 1000, value: 0.75 },
    { tMs: 3000, value: 0.5 },
  ]);
  assert.deepEqual(
    common.generatedTokens?.map((p) => p.value),
    [500, 500, 200],
  );
  const figures = stepServerFigures(series, { startMs: 500, endMs: 3000 });
  assert.equal(figures.preemptions, 3, 'increases within the window, from the last sample before it; the restart adds nothing');
  assert.equal(figures.generatedTokensPerSecond, (500 + 500 + 200) / 3);
  assert.equal(figures.prefixCacheHitRate, (300 + 50) / (400 + 100));
  assert.equal(figures.runningMean, 7);
  assert.equal(figures.kvCacheUsageMax, 0.6);
  assert.equal(figures.queueTimeMeanMs, null, 'no queue-time histogram: null, not zero');
});

test('the report\'s marks: the first sample at 95% KV cache, the first stretch of waiting requests that lasted', () => {
  const kv = [0.2, 0.9, 0.96, 0.99, 0.5].map((value, i) => ({ tMs: i * 1000, value }));
  assert.equal(firstReached(kv, 0.95), 2000);
  assert.equal(firstReached(kv, 1), null);
  const waiting = [0, 2, 0, 1, 3, 5, 0].map((value, i) => ({ tMs: i * 1000, value }));
  assert.equal(firstSustainedAbove(waiting, 0, 2000), 3000, 'the blip at 1 s does not count; 3 s to 5 s does');
  assert.equal(firstSustainedAbove(waiting, 0, 5000), null);
  assert.equal(stepAt([{ startMs: 0, endMs: 2500 }, { startMs: 2600, endMs: 6000 }, {}], 3000), 1);
  assert.equal(stepAt([{ startMs: 0, endMs: 2500 }], 2550), null);
});

test('runSeries joins a file\'s per-step chunks and the samples after the last step, in time order', () => {
  const chunk = (t: number): MetricSeries[] => [{ source: 'server', name: 'vllm:num_requests_running', kind: 'gauge', labels: { model_name: 'm' }, samples: [[t, t / 1000]] }];
  const gpu: MetricSeries = { source: 'gpu', name: 'gpu:memory_used_mib', kind: 'gauge', labels: { gpu: '0' }, samples: [[500, 1024]] };
  const series = runSeries({
    steps: [{ sampled: [...chunk(0), gpu] }, {}, { sampled: chunk(1000) }] as never,
    sampledAfterSteps: chunk(2000),
  });
  assert.deepEqual(
    series.map((s) => [s.source, s.name, s.samples.length]),
    [
      ['server', 'vllm:num_requests_running', 3],
      ['gpu', 'gpu:memory_used_mib', 1],
    ],
  );
});

test('the families kept per engine are those the views read: for an unknown engine, every engine\'s', () => {
  assert.ok(viewFamilies('vllm').includes('vllm:kv_cache_usage_perc') && viewFamilies('vllm').includes('vllm:gpu_cache_usage_perc'));
  assert.ok(!viewFamilies('vllm').some((f) => f.startsWith('sglang:')));
  assert.ok(viewFamilies('sglang').includes('sglang:gen_throughput'));
  const all = viewFamilies('unknown');
  for (const name of ['vllm:num_requests_waiting', 'sglang:num_queue_reqs', 'llamacpp:requests_deferred', 'tgi_queue_size']) assert.ok(all.includes(name), name);
});
