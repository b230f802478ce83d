/**
 * Server metrics built by hand for the view tests: a two-step vLLM run scraped every second, its
 * numbers chosen so that each step's figures are easy to work out (see test/unit/server-views.test.ts).
 * Views proven on real scrapes use the simulator through the real engine instead.
 */
import type { ResultDocument } from '../../src/format/result';
import type { MetricKind, MetricSeries, ServerMetricsInfo } from '../../src/format/server-metrics';
import { makeDocument } from './result-documents';

/** Scrape times, ms on the run's clock: step 1 spans 0..3000, step 2 3000..7000. */
export const SCRAPE_TIMES = [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000];

export const VLLM_VALUES: Record<string, { kind: MetricKind; values: number[] }> = {
  'vllm:num_requests_running': { kind: 'gauge', values: [0, 1, 1, 1, 8, 8, 8, 0] },
  'vllm:num_requests_waiting': { kind: 'gauge', values: [0, 0, 0, 0, 2, 3, 1, 0] },
  'vllm:kv_cache_usage_perc': { kind: 'gauge', values: [0, 0.1, 0.1, 0.1, 0.5, 0.96, 0.97, 0] },
  'vllm:generation_tokens_total': { kind: 'counter', values: [0, 50, 100, 150, 550, 950, 1350, 1410] },
  'vllm:prompt_tokens_total': { kind: 'counter', values: [0, 100, 200, 300, 1100, 1900, 2700, 2700] },
  'vllm:num_preemptions_total': { kind: 'counter', values: [0, 0, 0, 0, 0, 1, 3, 3] },
  'vllm:prefix_cache_hits_total': { kind: 'counter', values: [0, 0, 50, 100, 300, 500, 700, 700] },
  'vllm:prefix_cache_queries_total': { kind: 'counter', values: [0, 100, 200, 300, 1100, 1900, 2700, 2700] },
};

export const METRICS_INFO: ServerMetricsInfo = {
  url: 'http://127.0.0.1:8000/metrics',
  engine: 'vllm',
  intervalMs: 1000,
  families: Object.keys(VLLM_VALUES),
  allowList: [],
  maxSeries: 64,
};

/** The series of `values` with the samples whose times pass `keep`. */
export function vllmSeries(keep: (tMs: number) => boolean = () => true, values = VLLM_VALUES): MetricSeries[] {
  return Object.entries(values).map(([name, { kind, values: v }]) => ({
    source: 'server',
    name,
    kind,
    labels: { model_name: 'test-model' },
    samples: SCRAPE_TIMES.flatMap((t, i): [number, number][] => (keep(t) ? [[t, v[i] ?? 0]] : [])),
  }));
}

/** A two-step concurrency run (1, then 8) with the series above, chunked per step as the writer stores them. */
export function runWithServerMetrics(values = VLLM_VALUES): ResultDocument {
  const doc = makeDocument([
    { name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 10, ttftMs: 20, gapMs: 5, chunks: 16 },
    { name: 'concurrency@8', profile: { kind: 'concurrency', concurrency: 8 }, requests: 10, ttftMs: 80, gapMs: 9, chunks: 16 },
  ]);
  const [first, second] = doc.steps;
  Object.assign(first!, { startMs: 0, endMs: 3000, sampled: vllmSeries((t) => t <= 3000, values) });
  Object.assign(second!, { startMs: 3000, endMs: 7000, sampled: vllmSeries((t) => t > 3000, values) });
  // The client received what the server generated: 150 tokens in step 1's 3 s, 1,260 in step 2's 4 s.
  first!.summary = { ...first!.summary!, outputTokensPerSecond: 50 };
  second!.summary = { ...second!.summary!, outputTokensPerSecond: 315 };
  return { ...doc, serverMetrics: METRICS_INFO, tokenCrossCheck: { serverTokens: 1410, clientTokens: 1410, clientTokensAtMost: 1410, tolerance: 28, agree: true } };
}
