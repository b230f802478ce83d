/**
 * What a run watches beside its requests: the server's /metrics (ServerMetricsScraper) and the
 * GPUs of this machine (GpuSampler), on the run's clock. Opened before the result file exists (its
 * head records how and what), started with the first step, drained at each step's end, finished
 * with a last scrape after the last request; then it compares the server's count of generated
 * tokens with the client's. Nothing here can fail a run: every problem becomes one warning.
 */
import type { Labels, RunConfig } from '../format/config';
import type { TokenCrossCheck } from '../format/result';
import { ABORT_CHECK_TEXT, CROSS_CHECK_TEXT, fillPlaceholders } from '../format/warning-text';
import type { RunEvent } from '../format/events';
import { SERVER_ABORT_COUNTERS, SERVER_METRIC_NAMES, SERVER_METRICS_INTERVAL, type Hardware, type MetricSeries, type ServerEngine, type ServerMetricsInfo } from '../format/server-metrics';
import { detectHardware, GpuSampler, gpuSamples, hardwareLabels } from './hardware';
import { withApiKey } from './probe-core';
import { defaultMetricsUrl, SeriesStore, ServerMetricsScraper } from './metrics-scraper';
import { ReplicaScrapers, type MetricsScraping } from './replica-metrics';

/**
 * The server's and the client's generated-token counts may differ by this share of the larger
 * (and at least CROSS_CHECK_MIN_TOKENS) before the run warns: engines count a request's tokens
 * when it finishes, and a scrape lands up to one interval after the last request.
 */
export const CROSS_CHECK_TOLERANCE = 0.02;
export const CROSS_CHECK_MIN_TOKENS = 16;

type Emit = (event: RunEvent) => void;

/** The server's running and waiting requests at one scrape (summed over label sets), on the run's clock. */
export interface ServerLoad {
  tMs: number;
  running: number;
  waiting: number;
}

/**
 * The client's side of the cross-check: output tokens it can count (the server's usage, or the
 * tokenizer over the whole text), and the bounds of those it only estimated (usage off, or a
 * stream cut before its usage came): at least a token per content chunk, at most max_tokens
 * (Infinity when nothing bounds a request's output).
 */
export interface ClientOutputTokens {
  counted: number;
  estimated: { requests: number; atLeast: number; atMost: number };
  /** Requests that failed (not cancelled): streams the client lost. */
  failed: number;
}

/**
 * The abort cross-check's line from its counts: the server's aborts during the run (by `engine`'s
 * counter) against the client's requests cancelled mid-response. Written from templates
 * (ABORT_CHECK_TEXT), so that a view words a stored warning again in its language.
 */
export function abortCrossCheck(server: number, clientCancelled: number, engine: ServerEngine): { level: 'info' | 'warn'; message: string } {
  const counter = SERVER_ABORT_COUNTERS[engine as 'vllm'];
  const head = counter
    ? fillPlaceholders(ABORT_CHECK_TEXT.head, [`${counter.sample}{${Object.entries(counter.labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`, server, clientCancelled])
    : fillPlaceholders(ABORT_CHECK_TEXT.headUnnamed, [server, clientCancelled]);
  if (Math.abs(server - clientCancelled) <= Math.max(1, CROSS_CHECK_TOLERANCE * Math.max(server, clientCancelled))) return { level: 'info', message: fillPlaceholders(ABORT_CHECK_TEXT.agree, [head]) };
  const { ending } = ABORT_CHECK_TEXT;
  const why = server === 0 ? ending.notCounted : server > clientCancelled ? ending.serverMore : ending.serverFewer;
  return { level: 'warn', message: fillPlaceholders(why, [head]) };
}

/**
 * The server's count of generated tokens during the run against the client's: the counts compared,
 * and a warning when they differ beyond the tolerance or only the lower side could be checked
 * (worded from CROSS_CHECK_TEXT, so that a view can say it again in its language).
 */
export function tokenCrossCheck(server: number, client: ClientOutputTokens): { counts: TokenCrossCheck; warning: string | null } {
  const { counted, estimated, failed } = client;
  const low = counted + estimated.atLeast;
  const high = counted + estimated.atMost;
  const tolerance = Math.max(CROSS_CHECK_TOLERANCE * Math.max(server, low), CROSS_CHECK_MIN_TOKENS);
  const { received: words, ending } = CROSS_CHECK_TEXT;
  const received =
    estimated.requests === 0
      ? fillPlaceholders(words.counted, [counted])
      : estimated.atMost === Infinity
        ? fillPlaceholders(words.atLeast, [counted, estimated.atLeast, estimated.requests])
        : fillPlaceholders(words.between, [counted, estimated.atLeast, estimated.atMost, estimated.requests]);
  const counts: TokenCrossCheck = { serverTokens: server, clientTokens: low, clientTokensAtMost: high === Infinity ? null : high, tolerance: Math.round(tolerance), agree: server <= high + tolerance && server >= low - tolerance };
  const head = fillPlaceholders(CROSS_CHECK_TEXT.head, [server, received, Math.round(tolerance)]);
  if (server > high + tolerance) {
    return { counts, warning: failed > 0 ? fillPlaceholders(ending.serverMoreFailed, [head, server - high, failed]) : fillPlaceholders(ending.serverMore, [head, server - high]) };
  }
  if (server < low - tolerance) return { counts, warning: fillPlaceholders(ending.clientMore, [head]) };
  if (high === Infinity) return { counts, warning: fillPlaceholders(ending.lowerOnly, [head]) };
  return { counts, warning: null };
}

export class RunMonitor {
  private readonly scraper: MetricsScraping | null;
  private readonly gpuStore = new SeriesStore();
  private gpuSampler: GpuSampler | null = null;
  private readonly gpuIntervalMs: number;
  /** The accelerators found when the run started. */
  hardware: Hardware | undefined;
  /** Warnings said before the run could emit them (while the monitor opened). */
  private readonly early: { source: 'server' | 'gpu'; message: string }[] = [];
  private sink: ((source: 'server' | 'gpu', message: string) => void) | null = null;
  /** The server's generated-token counter at the first and the last scrape (summed over label sets). */
  private generatedAtStart: number | null = null;
  private generatedAtEnd: number | null = null;
  /** The server's count of aborted requests at the first and the last scrape, where it keeps one. */
  private abortedAtStart: number | null = null;
  private abortedAtEnd: number | null = null;
  /** Whether the last scrape, after the last request, read the metrics: the cross-check needs its counter. */
  private finalRead = false;
  private emit: Emit = () => undefined;
  /** The gauges at the latest scrape that had both. */
  private load: ServerLoad | null = null;

  /**
   * Looks at what can be watched: one scrape of /metrics (it names the engine and tells whether the
   * URL answers) and one reading of the GPU tools, both bounded in time. `now` is the run's clock.
   */
  static async open(config: RunConfig, apiKey: string | undefined, now: () => number, apiKeys?: readonly (string | undefined)[]): Promise<RunMonitor> {
    const monitor = new RunMonitor(config, apiKey, now, apiKeys);
    const [detected] = await Promise.all([detectHardware((message) => monitor.warn('gpu', message)), monitor.scraper?.scrapeOnce()]);
    monitor.hardware = detected?.hardware;
    if (detected) for (const series of gpuSamples(detected.readings, now())) monitor.gpuStore.add(series, series.samples[0]!);
    return monitor;
  }

  private constructor(
    config: RunConfig,
    apiKey: string | undefined,
    private readonly now: () => number,
    apiKeys?: readonly (string | undefined)[],
  ) {
    const settings = config.serverMetrics;
    this.gpuIntervalMs = Math.max(settings.intervalMs, SERVER_METRICS_INTERVAL.defaultMs);
    const onSamples = (series: MetricSeries[], engine: ServerEngine): void => {
      this.noteGenerated(series);
      this.noteLoad(series);
      this.noteAborted(series);
      this.emit({ type: 'sampled', engine, series });
    };
    // Several endpoints, and no one URL named: each endpoint's own /metrics, scraped together.
    const replicas = config.endpoints !== undefined && settings.url === undefined ? config.endpoints : null;
    this.scraper =
      settings.url === 'off'
        ? null
        : replicas !== null
          ? new ReplicaScrapers(
              replicas.map((endpoint, i) => ({ url: defaultMetricsUrl(endpoint.baseUrl), headers: withApiKey(endpoint.headers, apiKeys?.[i] ?? (i === 0 ? apiKey : undefined)) })),
              settings,
              now,
              (message) => this.warn('server', message),
              onSamples,
            )
          : new ServerMetricsScraper({
            url: settings.url ?? defaultMetricsUrl(config.endpoint.baseUrl),
            config: settings,
            headers: withApiKey(config.endpoint.headers, apiKey),
            now,
            warn: (message) => this.warn('server', message),
            onSamples,
          });
  }

  /** How scraping was set up, for the result's head; undefined when it is off. */
  get serverMetrics(): ServerMetricsInfo | undefined {
    return this.scraper?.info();
  }

  /** Labels the hardware gives a run whose user left them empty. */
  labels(): Labels {
    return this.hardware ? hardwareLabels(this.hardware) : {};
  }

  /** From now on, warnings and samples go to the run (the early ones first) and sampling runs on its interval. */
  start(emit: Emit, sink: (source: 'server' | 'gpu', message: string) => void): void {
    this.emit = emit;
    this.sink = sink;
    for (const { source, message } of this.early.splice(0)) sink(source, message);
    this.scraper?.start();
    if (this.hardware) {
      this.gpuSampler = new GpuSampler(
        this.hardware.tool,
        this.gpuIntervalMs,
        this.now,
        (series) => {
          for (const s of series) this.gpuStore.add(s, s.samples[0]!);
          this.emit({ type: 'sampled', engine: this.scraper?.engine ?? 'unknown', series });
        },
        (message) => this.warn('gpu', message),
      );
      this.gpuSampler.start();
    }
  }

  /** The samples taken since the previous call (a step's chunk). */
  take(): MetricSeries[] {
    return [...(this.scraper?.take() ?? []), ...this.gpuStore.take()];
  }

  /** Stops watching; with `finalScrape`, /metrics is read once more first (for the cross-check). */
  async stop(finalScrape: boolean): Promise<void> {
    const [read] = await Promise.all([this.scraper?.stop(finalScrape), this.gpuSampler?.stop()]);
    this.finalRead = read === true;
  }

  /**
   * The cross-check, once the monitor has stopped: a warning when the server counted more or fewer
   * generated tokens during the run than the client received, beyond the tolerance. The client's
   * estimated counts are not compared as counts: only their bounds are (docs/server-metrics.md), and
   * a side the bounds leave open is said to be unchecked. The counts compared are answered too (the
   * result keeps them, and its view says the check ran); null when there is nothing to compare (no
   * counter, no scrape after the last request).
   */
  crossCheck(client: ClientOutputTokens): { counts: TokenCrossCheck; warning: string | null } | null {
    if (!this.finalRead || this.generatedAtStart === null || this.generatedAtEnd === null) return null;
    return tokenCrossCheck(this.generatedAtEnd - this.generatedAtStart, client);
  }

  /**
   * The cross-check of cancellations, once the monitor has stopped: the server's count of aborted
   * requests during the run against the client's requests cancelled mid-response (by design or by
   * a step's end). A warning when they differ, beyond one request or 2%; an info line when they
   * agree; null when it cannot be judged (no abort counter, no scrape after the last request,
   * nothing cancelled and nothing counted).
   */
  abortCheck(clientCancelled: number): { level: 'info' | 'warn'; message: string } | null {
    if (!this.finalRead || this.abortedAtStart === null || this.abortedAtEnd === null) return null;
    const server = this.abortedAtEnd - this.abortedAtStart;
    if (server === 0 && clientCancelled === 0) return null;
    return abortCrossCheck(server, clientCancelled, this.scraper?.engine ?? 'unknown');
  }

  /** Follows the engine's count of aborted requests through the scrapes. */
  private noteAborted(series: MetricSeries[]): void {
    const engine = this.scraper?.engine ?? 'unknown';
    if (engine === 'unknown') return;
    const counter = SERVER_ABORT_COUNTERS[engine];
    if (counter === undefined) return;
    const matching = series.filter((s) => s.name === counter.sample && Object.entries(counter.labels).every(([k, v]) => s.labels[k] === v));
    if (matching.length === 0) return;
    const total = matching.reduce((sum, s) => sum + (s.samples[0]?.[1] ?? 0), 0);
    this.abortedAtStart ??= total;
    this.abortedAtEnd = total;
  }

  /** The server's running and waiting requests at the latest scrape; null when no scrape has read both (off, failing, an engine without them). */
  get latestLoad(): ServerLoad | null {
    return this.load;
  }

  /**
   * Scrapes /metrics now (or joins the scrape under way) and answers the server's running and
   * waiting requests then; null when they cannot be read (scraping off or failing, no such gauges).
   */
  async readLoad(): Promise<ServerLoad | null> {
    if (!this.scraper) return null;
    const before = this.load;
    const read = await this.scraper.scrapeOnce();
    return read && this.load !== before ? this.load : null;
  }

  private warn(source: 'server' | 'gpu', message: string): void {
    if (this.sink) this.sink(source, message);
    else this.early.push({ source, message });
  }

  /** Follows the engine's running and waiting gauges through the scrapes. */
  private noteLoad(series: MetricSeries[]): void {
    const engine = this.scraper?.engine ?? 'unknown';
    if (engine === 'unknown') return;
    const names = SERVER_METRIC_NAMES[engine];
    const sum = (sources: typeof names.runningRequests): { tMs: number; value: number } | null => {
      const gauge = sources?.find((source) => source.kind === 'gauge');
      if (gauge?.kind !== 'gauge') return null;
      const samples = series.filter((s) => s.name === gauge.family).map((s) => s.samples[0]);
      if (samples.length === 0 || samples.some((p) => p === undefined || p[1] === null)) return null;
      return { tMs: (samples[0] as [number, number])[0], value: samples.reduce((total, p) => total + ((p as [number, number])[1]), 0) };
    };
    const running = sum(names.runningRequests);
    const waiting = sum(names.waitingRequests);
    if (running && waiting) this.load = { tMs: running.tMs, running: running.value, waiting: waiting.value };
  }

  /** Follows the engine's generated-token counter through the scrapes. */
  private noteGenerated(series: MetricSeries[]): void {
    const engine = this.scraper?.engine ?? 'unknown';
    if (engine === 'unknown') return;
    const counter = SERVER_METRIC_NAMES[engine].generatedTokens?.find((source) => source.kind === 'counter');
    if (counter?.kind !== 'counter') return;
    const values = series.filter((s) => s.name === counter.sample).map((s) => s.samples[0]?.[1]);
    if (values.length === 0 || values.some((v) => v === null || v === undefined)) return;
    const total = values.reduce<number>((a, b) => a + (b as number), 0);
    this.generatedAtStart ??= total;
    this.generatedAtEnd = total;
  }
}
