/**
 * The /metrics of every endpoint of a run over several (replicas of one model), scraped together:
 * one scraper per endpoint, each series labelled with its endpoint's index (ENDPOINT_LABEL), and
 * every scrape of a round stamped with the round's instant. Equal times let the views sum (or
 * average) a quantity over the replicas sample by sample, exactly as over the label sets of one
 * server, and show each replica on its own by its label. The samples of a round go out together.
 */
import { ENDPOINT_LABEL, type MetricSeries, type ServerEngine, type ServerMetricsInfo } from '../format/server-metrics';
import type { ServerMetricsConfig } from '../format/config';
import { fillPlaceholders, REPLICA_WARNING_TEXT } from '../format/warning-text';
import { ServerMetricsScraper } from './metrics-scraper';

/** What the run's monitor asks of its /metrics scraping, one server or several. */
export interface MetricsScraping {
  readonly engine: ServerEngine;
  info(): ServerMetricsInfo;
  scrapeOnce(): Promise<boolean>;
  start(): void;
  take(): MetricSeries[];
  stop(final: boolean): Promise<boolean>;
}

export interface ReplicaTarget {
  url: string;
  /** Sent as they are sent to that endpoint's API (its key included); never written anywhere. */
  headers: Record<string, string>;
}

export class ReplicaScrapers implements MetricsScraping {
  private readonly scrapers: ServerMetricsScraper[];
  /** The round's instant on the run's clock: every scrape of the round is stamped with it. */
  private roundMs = 0;
  private gathered: MetricSeries[] = [];
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<boolean> | null = null;
  private stopped = false;

  constructor(
    targets: readonly ReplicaTarget[],
    private readonly config: ServerMetricsConfig,
    private readonly now: () => number,
    warn: (message: string) => void,
    private readonly onSamples: (series: MetricSeries[], engine: ServerEngine) => void,
  ) {
    this.scrapers = targets.map(
      (target, i) =>
        new ServerMetricsScraper({
          url: target.url,
          config,
          headers: target.headers,
          now: () => this.roundMs,
          warn: (message) => warn(fillPlaceholders(REPLICA_WARNING_TEXT, [i, message])),
          onSamples: (series) => this.gathered.push(...series),
          labels: { [ENDPOINT_LABEL]: String(i) },
        }),
    );
  }

  /** The first replica's engine that its names told (replicas of one model run one engine). */
  get engine(): ServerEngine {
    return this.scrapers.find((s) => s.engine !== 'unknown')?.engine ?? 'unknown';
  }

  info(): ServerMetricsInfo {
    const infos = this.scrapers.map((s) => s.info());
    const first = infos[0] as ServerMetricsInfo;
    return { ...first, engine: this.engine, urls: infos.map((i) => i.url) };
  }

  /** One round over every replica; resolves true when any read its metrics. */
  scrapeOnce(): Promise<boolean> {
    this.current ??= this.round((scraper) => scraper.scrapeOnce()).finally(() => {
      this.current = null;
    });
    return this.current;
  }

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      const startedAt = this.now();
      void this.scrapeOnce().then(() => {
        if (this.stopped) return;
        this.timer = setTimeout(tick, Math.max(0, this.config.intervalMs - (this.now() - startedAt)));
      });
    };
    this.timer = setTimeout(tick, this.config.intervalMs);
  }

  take(): MetricSeries[] {
    return this.scrapers.flatMap((s) => s.take());
  }

  /** Stops every replica's scraping, after a last round when `final`; true when every replica's last scrape read its metrics. */
  async stop(final: boolean): Promise<boolean> {
    if (this.stopped) return false;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.current;
    return this.round((scraper) => scraper.stop(final), true);
  }

  private async round(scrape: (scraper: ServerMetricsScraper) => Promise<boolean>, all = false): Promise<boolean> {
    this.roundMs = this.now();
    this.gathered = [];
    const read = await Promise.all(this.scrapers.map(scrape));
    const fresh = this.gathered;
    this.gathered = [];
    if (fresh.length > 0) this.onSamples(fresh, this.engine);
    return all ? read.every(Boolean) : read.some(Boolean);
  }
}
