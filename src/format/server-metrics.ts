/**
 * What a run records of the server's own Prometheus metrics and of the GPUs beside it: the shapes
 * stored in a result file (see ResultDocumentSchema) and carried by live events, and the table of
 * metric names per engine that the scraper keeps and the views read (src/views/server-quantities.ts).
 */
import * as z from 'zod';

export const ServerEngineSchema = z.enum(['vllm', 'sglang', 'llama.cpp', 'tgi', 'unknown']);
export type ServerEngine = z.infer<typeof ServerEngineSchema>;

/**
 * The `# TYPE` of the family a series belongs to (a histogram's `_sum`, `_count` and `_bucket`
 * series are all `histogram`); `untyped` when the exposition did not say.
 */
export const MetricKindSchema = z.enum(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
export type MetricKind = z.infer<typeof MetricKindSchema>;

/**
 * `[tMs, value]`: milliseconds on the run's clock (the origin of every step's `startMs`, so a
 * request's `sentMs + step.startMs` is on the same axis), and the value; null stands for NaN and
 * ±Inf, which JSON cannot hold.
 */
export const MetricSampleSchema = z.tuple([z.number(), z.number().nullable()]);
export type MetricSample = z.infer<typeof MetricSampleSchema>;

export const MetricSeriesSchema = z.object({
  /** `server`: the inference server's /metrics; `gpu`: nvidia-smi or npu-smi on this machine. */
  source: z.enum(['server', 'gpu']),
  /**
   * The sample name as exposed, suffix included: `vllm:num_requests_running`,
   * `vllm:request_queue_time_seconds_sum`, `vllm:request_queue_time_seconds_bucket`; GPU series
   * are named `gpu:memory_used_mib`, `gpu:utilization_percent`, `gpu:power_watts`.
   */
  name: z.string(),
  kind: MetricKindSchema,
  labels: z.record(z.string(), z.string()),
  samples: z.array(MetricSampleSchema),
});
export type MetricSeries = z.infer<typeof MetricSeriesSchema>;

/**
 * One series' identity: its source, name and labels, the labels in name order (an exposition may
 * write them in any order; two orders are one series). The one key of a series, for the scraper
 * that collects samples and the views that join a file's chunks. JSON keeps every part apart
 * whatever characters a label value holds.
 */
export function seriesKey(series: Pick<MetricSeries, 'source' | 'name' | 'labels'>): string {
  const labels = Object.keys(series.labels)
    .sort()
    .map((name) => [name, series.labels[name]]);
  return JSON.stringify([series.source, series.name, labels]);
}

/** The label a run over several endpoints adds to each server series: the endpoint's index ("0", "1", ...). */
export const ENDPOINT_LABEL = 'llmbench_endpoint';

/** Defaults and bounds of the scraper, shared by the config schema, the flags and the settings. */
export const SERVER_METRICS_INTERVAL = { defaultMs: 1000, minMs: 100, maxMs: 60_000 } as const;
/** Series kept per run: beyond it (labels exploding, a huge allow-list) new series are dropped, with one warning. */
export const DEFAULT_MAX_SERVER_SERIES = 64;

/** How the server's metrics were scraped: fixed when the run starts, written with the document's head. */
export const ServerMetricsInfoSchema = z.object({
  /** The scraped URL, credentials and secret query parameters removed (the first endpoint's, in a run over several). */
  url: z.string(),
  /**
   * A run over several endpoints scrapes each one's /metrics at the same instants: their URLs, in
   * the endpoints' order; each series carries its endpoint's index in the label ENDPOINT_LABEL.
   */
  urls: z.array(z.string()).optional(),
  /** The engine the first scrape's metric names show; `unknown` when none matched (or it failed). */
  engine: ServerEngineSchema,
  intervalMs: z.number().int().positive(),
  /**
   * Families stored: those the views read (SERVER_METRIC_NAMES) plus `allowList`; every other
   * family is dropped, which caps the file's size. Histogram buckets are kept only for allow-listed
   * families (`_sum` and `_count` are enough for the views' means).
   */
  families: z.array(z.string()),
  allowList: z.array(z.string()),
  maxSeries: z.number().int().positive(),
});
export type ServerMetricsInfo = z.infer<typeof ServerMetricsInfoSchema>;

export const GpuSchema = z.object({
  index: z.number().int().nonnegative(),
  name: z.string(),
  memoryTotalMiB: z.number().nonnegative().nullable(),
});
export type Gpu = z.infer<typeof GpuSchema>;

/** The accelerators found on this machine when the run started; their series are `gpu` series. */
export const HardwareSchema = z.object({
  tool: z.enum(['nvidia-smi', 'npu-smi']),
  driver: z.string().nullable(),
  gpus: z.array(GpuSchema),
});
export type Hardware = z.infer<typeof HardwareSchema>;

/** The common quantities the views show, whatever the engine calls them. */
export const COMMON_SERVER_METRICS = [
  'runningRequests',
  'waitingRequests',
  'kvCacheUsage',
  'preemptions',
  'prefixCacheHitRate',
  'generatedTokens',
  'promptTokens',
  'queueTime',
  'prefillTime',
] as const;
export type CommonServerMetric = (typeof COMMON_SERVER_METRICS)[number];

/**
 * Where a common quantity comes from in one engine's exposition:
 * - `gauge`: a level, aggregated over label sets by `across` (requests add up over data-parallel
 *   ranks; a usage fraction is averaged);
 * - `counter`: a raw cumulative count, turned into a rate or a per-step increase by the views;
 *   `plus`: further counters whose counts add to it (llama.cpp counts prompt tokens served from its
 *   cache apart from those it computed);
 * - `ratio`: two counters, increase of `hits` over increase of `queries` (plus those of `queriesPlus`);
 * - `histogram`: a family whose `_sum` and `_count` give a mean per interval (seconds), optionally
 *   only its series with the given labels (TGI's prefill batches).
 * Alternatives are tried in order: the first with samples wins (vLLM's `kv_cache_usage_perc`
 * replaced `gpu_cache_usage_perc`).
 */
export type MetricSource =
  | { kind: 'gauge'; family: string; across: 'sum' | 'mean' }
  | { kind: 'counter'; sample: string; plus?: readonly string[] }
  | { kind: 'ratio'; hits: string; queries: string; queriesPlus?: readonly string[] }
  | { kind: 'histogram'; family: string; labels?: Record<string, string> };

const gauge = (family: string, across: 'sum' | 'mean' = 'sum'): MetricSource => ({ kind: 'gauge', family, across });
/** A counter by its exposed sample name (`..._total`, or a histogram's `_sum` for TGI's token counts). */
const counter = (sample: string): MetricSource => ({ kind: 'counter', sample });

/**
 * The names each engine exposes for the common quantities, checked against their sources (see
 * docs/server-metrics.md for the versions). llama.cpp and TGI have no preemption counters, TGI no
 * prefix-cache counters; TGI counts tokens only in histograms of finished requests.
 */
export const SERVER_METRIC_NAMES: Record<Exclude<ServerEngine, 'unknown'>, Partial<Record<CommonServerMetric, MetricSource[]>>> = {
  vllm: {
    runningRequests: [gauge('vllm:num_requests_running')],
    waitingRequests: [gauge('vllm:num_requests_waiting')],
    kvCacheUsage: [gauge('vllm:kv_cache_usage_perc', 'mean'), gauge('vllm:gpu_cache_usage_perc', 'mean')],
    preemptions: [counter('vllm:num_preemptions_total')],
    prefixCacheHitRate: [
      { kind: 'ratio', hits: 'vllm:prefix_cache_hits_total', queries: 'vllm:prefix_cache_queries_total' },
      { kind: 'ratio', hits: 'vllm:gpu_prefix_cache_hits_total', queries: 'vllm:gpu_prefix_cache_queries_total' },
    ],
    generatedTokens: [counter('vllm:generation_tokens_total')],
    promptTokens: [counter('vllm:prompt_tokens_total')],
    queueTime: [{ kind: 'histogram', family: 'vllm:request_queue_time_seconds' }],
    prefillTime: [{ kind: 'histogram', family: 'vllm:request_prefill_time_seconds' }],
  },
  sglang: {
    runningRequests: [gauge('sglang:num_running_reqs')],
    waitingRequests: [gauge('sglang:num_queue_reqs')],
    kvCacheUsage: [gauge('sglang:token_usage', 'mean')],
    prefixCacheHitRate: [gauge('sglang:cache_hit_rate', 'mean')],
    generatedTokens: [counter('sglang:generation_tokens_total')],
    promptTokens: [counter('sglang:prompt_tokens_total')],
    queueTime: [{ kind: 'histogram', family: 'sglang:queue_time_seconds' }],
  },
  'llama.cpp': {
    runningRequests: [gauge('llamacpp:requests_processing')],
    waitingRequests: [gauge('llamacpp:requests_deferred')],
    kvCacheUsage: [gauge('llamacpp:kv_cache_usage_ratio', 'mean')],
    // `prompt_tokens_total` counts only the prompt tokens llama.cpp computed; those its cache
    // served are in `prompt_tokens_cached_total` (Debian's 0.7.0 build b11669 has both).
    prefixCacheHitRate: [{ kind: 'ratio', hits: 'llamacpp:prompt_tokens_cached_total', queries: 'llamacpp:prompt_tokens_total', queriesPlus: ['llamacpp:prompt_tokens_cached_total'] }],
    generatedTokens: [counter('llamacpp:tokens_predicted_total')],
    promptTokens: [{ kind: 'counter', sample: 'llamacpp:prompt_tokens_total', plus: ['llamacpp:prompt_tokens_cached_total'] }],
  },
  tgi: {
    runningRequests: [gauge('tgi_batch_current_size')],
    waitingRequests: [gauge('tgi_queue_size')],
    generatedTokens: [counter('tgi_request_generated_tokens_sum')],
    promptTokens: [counter('tgi_request_input_length_sum')],
    queueTime: [{ kind: 'histogram', family: 'tgi_request_queue_duration' }],
    prefillTime: [{ kind: 'histogram', family: 'tgi_batch_inference_duration', labels: { method: 'prefill' } }],
  },
};

/**
 * Where an engine counts the requests its clients abandoned mid-response, for the cross-check of a
 * run's cancellations: vLLM's finish-reason counter with `finished_reason="abort"` (some vLLM
 * versions leave it at 0, vllm#31503). The other engines expose no such count.
 */
export const SERVER_ABORT_COUNTERS: Partial<Record<Exclude<ServerEngine, 'unknown'>, { sample: string; labels: Record<string, string> }>> = {
  vllm: { sample: 'vllm:request_success_total', labels: { finished_reason: 'abort' } },
};

/** SGLang reports its own generation throughput as a gauge; used when its token counter is absent. */
export const SGLANG_GENERATION_THROUGHPUT = 'sglang:gen_throughput';

/** The names a source reads: sample names for counters, family names for gauges and histograms. */
function namesOf(source: MetricSource): string[] {
  if (source.kind === 'ratio') return [source.hits, source.queries, ...(source.queriesPlus ?? [])];
  return source.kind === 'counter' ? [source.sample, ...(source.plus ?? [])] : [source.family];
}

/**
 * Every name the views and the run's cross-checks read, per engine: what the scraper keeps without
 * an allow-list. A sample is kept when its name, or its name without a `_total`, `_sum`, `_count`
 * or `_bucket` suffix, is listed.
 */
export function viewFamilies(engine: ServerEngine): string[] {
  const engines = engine === 'unknown' ? Object.values(SERVER_METRIC_NAMES) : [SERVER_METRIC_NAMES[engine]];
  const families = engines.flatMap((names) => Object.values(names).flatMap((sources) => sources.flatMap(namesOf)));
  const aborts = engine === 'unknown' ? Object.values(SERVER_ABORT_COUNTERS) : [SERVER_ABORT_COUNTERS[engine]];
  for (const counter of aborts) if (counter !== undefined) families.push(counter.sample);
  if (engine === 'sglang' || engine === 'unknown') families.push(SGLANG_GENERATION_THROUGHPUT);
  return [...new Set(families)];
}

/** Metric name prefixes that tell the engines apart (TGI's names have no colon). */
const ENGINE_PREFIXES: [Exclude<ServerEngine, 'unknown'>, string][] = [
  ['vllm', 'vllm:'],
  ['sglang', 'sglang:'],
  ['llama.cpp', 'llamacpp:'],
  ['tgi', 'tgi_'],
];

/** The engine whose names appear most among `names` (families or sample names); `unknown` when none does. */
export function recogniseEngine(names: Iterable<string>): ServerEngine {
  const counts = new Map<ServerEngine, number>();
  for (const name of names) {
    const match = ENGINE_PREFIXES.find(([, prefix]) => name.startsWith(prefix));
    if (match) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
  }
  let best: ServerEngine = 'unknown';
  let most = 0;
  for (const [engine, count] of counts) if (count > most) [best, most] = [engine, count];
  return best;
}

/** Names of the GPU series (source `gpu`, label `gpu` = the device index). */
export const GPU_SERIES = {
  memoryUsedMiB: 'gpu:memory_used_mib',
  utilizationPercent: 'gpu:utilization_percent',
  powerWatts: 'gpu:power_watts',
} as const;
