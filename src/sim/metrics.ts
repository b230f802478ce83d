/**
 * Prometheus text exposition with vLLM's metric names, so that server-side charts (running and
 * waiting requests, KV-cache usage, token counters, latency histograms) can be built and tested
 * without a GPU.
 */

const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const E2E_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];

export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (value <= (this.buckets[i] as number)) this.counts[i]!++;
  }

  render(labels: string): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    this.buckets.forEach((le, i) => lines.push(`${this.name}_bucket{${labels},le="${le}"} ${this.counts[i]}`));
    lines.push(`${this.name}_bucket{${labels},le="+Inf"} ${this.count}`);
    lines.push(`${this.name}_sum{${labels}} ${this.sum}`, `${this.name}_count{${labels}} ${this.count}`);
    return lines.join('\n');
  }
}

export class SimMetrics {
  readonly ttft = new Histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TTFT_BUCKETS);
  readonly e2e = new Histogram('vllm:e2e_request_latency_seconds', 'Histogram of end to end request latency in seconds.', E2E_BUCKETS);
  readonly itl = new Histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ITL_BUCKETS);
  /**
   * Finished requests by finish reason (vllm:request_success_total); a request its client abandoned
   * is `abort`, as vLLM's enum names it. vLLM exposes each reason from the start, at 0.
   */
  readonly finished = new Map<string, number>([
    ['stop', 0],
    ['length', 0],
    ['abort', 0],
  ]);

  countFinished(reason: string): void {
    this.finished.set(reason, (this.finished.get(reason) ?? 0) + 1);
  }
}

export interface EngineGauges {
  running: number;
  waiting: number;
  kvUsage: number;
  promptTokens: number;
  generationTokens: number;
  preemptions: number;
  prefixQueryTokens: number;
  prefixHitTokens: number;
}

export function renderMetrics(model: string, gauges: EngineGauges, metrics: SimMetrics): string {
  const labels = `model_name=${JSON.stringify(model)}`;
  const one = (name: string, type: 'gauge' | 'counter', help: string, value: number): string =>
    `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name}{${labels}} ${value}`;
  const successLines = [...metrics.finished].map(([reason, n]) => `vllm:request_success_total{${labels},finished_reason="${reason}"} ${n}`);
  return (
    [
      one('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', gauges.running),
      one('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', gauges.waiting),
      one('vllm:gpu_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', gauges.kvUsage),
      one('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', gauges.kvUsage),
      one('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', gauges.promptTokens),
      one('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', gauges.generationTokens),
      one('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemptions from the engine.', gauges.preemptions),
      one('vllm:prefix_cache_queries_total', 'counter', 'Prefix cache queries, in tokens.', gauges.prefixQueryTokens),
      one('vllm:prefix_cache_hits_total', 'counter', 'Prefix cache hits, in tokens.', gauges.prefixHitTokens),
      ['# HELP vllm:request_success_total Count of successfully processed requests.', '# TYPE vllm:request_success_total counter', ...successLines].join('\n'),
      metrics.ttft.render(labels),
      metrics.itl.render(labels),
      metrics.e2e.render(labels),
    ].join('\n') + '\n'
  );
}
