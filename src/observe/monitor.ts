/**
 * What a run watches beside its requests: the server's /metrics (ServerMetricsScraper) and the
 * GPUs of this machine (GpuSampler), on the run's clock. Opened before the result file exists (its
 * head records how and what), started with the first step, drained at each step's end, finished
 * with a last scrape after the last request; then it compares the server's count of generated
 * tokens with the client's. Nothing here can fail a run: every problem becomes one warning.
 */
import type { Labels, RunConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import { SERVER_METRIC_NAMES, SERVER_METRICS_INTERVAL, type Hardware, type MetricSeries, type ServerMetricsInfo } from '../format/server-metrics';
import { detectHardware, GpuSampler, gpuSamples, hardwareLabels } from './hardware';
import { withApiKey } from './probe-core';
import { defaultMetricsUrl, SeriesStore, ServerMetricsScraper } from './metrics-scraper';

/**
 * The server's and the client's generated-token counts may differ by this share of the larger
 * (and at least CROSS_CHECK_MIN_TOKENS) before the run warns: engines count a request's tokens
 * when it finishes, and a scrape lands up to one interval after the last request.
 */
export const CROSS_CHECK_TOLERANCE = 0.02;
export const CROSS_CHECK_MIN_TOKENS = 16;

type Emit = (event: RunEvent) => void;

export class RunMonitor {
  private readonly scraper: ServerMetricsScraper | null;
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
  /** Whether the last scrape, after the last request, read the metrics: the cross-check needs its counter. */
  private finalRead = false;
  private emit: Emit = () => undefined;

  /**
   * Looks at what can be watched: one scrape of /metrics (it names the engine and tells whether the
   * URL answers) and one reading of the GPU tools, both bounded in time. `now` is the run's clock.
   */
  static async open(config: RunConfig, apiKey: string | undefined, now: () => number): Promise<RunMonitor> {
    const monitor = new RunMonitor(config, apiKey, now);
    const [detected] = await Promise.all([detectHardware((message) => monitor.warn('gpu', message)), monitor.scraper?.scrapeOnce()]);
    monitor.hardware = detected?.hardware;
    if (detected) for (const series of gpuSamples(detected.readings, now())) monitor.gpuStore.add(series, series.samples[0]!);
    return monitor;
  }

  private constructor(
    config: RunConfig,
    apiKey: string | undefined,
    private readonly now: () => number,
  ) {
    const settings = config.serverMetrics;
    this.gpuIntervalMs = Math.max(settings.intervalMs, SERVER_METRICS_INTERVAL.defaultMs);
    this.scraper =
      settings.url === 'off'
        ? null
        : new ServerMetricsScraper({
            url: settings.url ?? defaultMetricsUrl(config.endpoint.baseUrl),
            config: settings,
            headers: withApiKey(config.endpoint.headers, apiKey),
            now,
            warn: (message) => this.warn('server', message),
            onSamples: (series, engine) => {
              this.noteGenerated(series);
              this.emit({ type: 'sampled', engine, series });
            },
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
   * generated tokens during the run than the client received, beyond the tolerance. Null when it
   * agrees, or cannot be judged (no counter, no scrape after the last request, the client's counts
   * estimated).
   */
  crossCheck(client: { outputTokens: number; estimated: boolean; failed: number }): { counts: { serverTokens: number; clientTokens: number; tolerance: number }; warning: string | null } | null {
    if (client.estimated || !this.finalRead || this.generatedAtStart === null || this.generatedAtEnd === null) return null;
    const server = this.generatedAtEnd - this.generatedAtStart;
    const tolerance = Math.max(CROSS_CHECK_TOLERANCE * Math.max(server, client.outputTokens), CROSS_CHECK_MIN_TOKENS);
    const counts = { serverTokens: server, clientTokens: client.outputTokens, tolerance: Math.round(tolerance) };
    if (Math.abs(server - client.outputTokens) <= tolerance) return { counts, warning: null };
    const why =
      server > client.outputTokens
        ? `the server generated ${server - client.outputTokens} more: another client on the same server, or streams this client lost${client.failed > 0 ? ` (${client.failed} requests failed)` : ''}`
        : 'the client counted more than the server generated: its token counts may not be the server\'s (check usage), or the server\'s counter was reset';
    return { counts, warning: `Server/client token cross-check: the server counted ${server} generated tokens during the run, the client received ${client.outputTokens} (tolerance ${Math.round(tolerance)}); ${why}.` };
  }

  private warn(source: 'server' | 'gpu', message: string): void {
    if (this.sink) this.sink(source, message);
    else this.early.push({ source, message });
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
