/**
 * Scrapes the server's Prometheus /metrics during a run, off the measuring path: its own undici
 * Agent (one connection, never the steps' pools), a deadline shorter than the interval, never two
 * scrapes at once, and a body size cap; what fails is said once per kind of failure, never per
 * scrape. Samples are kept (only the families the views read plus an allow-list, up to a number of
 * series) on the run's clock, and handed out in chunks: one per step, written with its summary.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { ServerMetricsConfig } from '../format/config';
import { redactUrl } from '../format/config';
import { recogniseEngine, seriesKey, viewFamilies, type MetricSeries, type ServerEngine, type ServerMetricsInfo } from '../format/server-metrics';
import { errorCode } from '../format/errors';
import { fillPlaceholders, SCRAPE_PROBLEM_TEXT, SERVER_METRICS_TEXT } from '../format/warning-text';
import { parsePrometheusText, withoutSampleSuffix } from './prometheus';
import { serverRoute } from './probe-core';

/** A larger exposition is not read (the biggest engines' pages are a few hundred kB). */
export const METRICS_BODY_LIMIT = 8 * 1024 * 1024;
/** The share of the interval a scrape may take, so that the next one starts on time. */
const DEADLINE_SHARE = 0.8;
/** The last scrape, after the last request, is off the measuring path: it may take this long (the cross-check needs it). */
const FINAL_SCRAPE_TIMEOUT_MS = 3000;

/** The /metrics URL of an endpoint: its server root (the base URL without /v1) plus /metrics. */
export function defaultMetricsUrl(baseUrl: string): string {
  return serverRoute(baseUrl, '/metrics');
}

export interface ScraperOptions {
  url: string;
  config: ServerMetricsConfig;
  /** Sent as they are sent to the API (the Bearer key included); never written anywhere. */
  headers: Record<string, string>;
  /** Milliseconds on the run's clock. */
  now: () => number;
  /** Each problem once, worded for the user. */
  warn: (message: string) => void;
  /** The new samples of each scrape. */
  onSamples?: (series: MetricSeries[], engine: ServerEngine) => void;
  /** Added to every series' labels (which endpoint of several a series came from). */
  labels?: Record<string, string>;
}

/**
 * Samples not yet written, by series (source, name and labels): added scrape after scrape, handed
 * out as one chunk per step. At most `maxSeries` series: `add` answers false for a new one beyond.
 */
export class SeriesStore {
  private readonly pending = new Map<string, MetricSeries>();

  constructor(private readonly maxSeries = Infinity) {}

  add(series: Omit<MetricSeries, 'samples'>, sample: MetricSeries['samples'][number]): boolean {
    const key = seriesKey(series);
    let known = this.pending.get(key);
    if (!known) {
      if (this.pending.size >= this.maxSeries) return false;
      known = { ...series, samples: [] };
      this.pending.set(key, known);
    }
    known.samples.push(sample);
    return true;
  }

  /** The samples added since the previous call, as series. */
  take(): MetricSeries[] {
    const chunk: MetricSeries[] = [];
    for (const series of this.pending.values()) {
      if (series.samples.length === 0) continue;
      chunk.push({ ...series });
      series.samples = [];
    }
    return chunk;
  }
}

type Failure = 'http' | 'timeout' | 'connect' | 'malformed' | 'too-large' | 'empty' | 'series';

export class ServerMetricsScraper {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly shownUrl: string;
  private readonly store: SeriesStore;
  private readonly warned = new Set<Failure>();
  /** Which samples are kept: decided by the engine once the first scrape has shown it. */
  private selectSample: (name: string, family: string) => boolean;
  private readonly allow: Set<string>;
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<boolean> | null = null;
  private readonly stopping = new AbortController();
  private stopped = false;
  /** The engine the first successful scrape's names showed. */
  engine: ServerEngine = 'unknown';
  /** Successful scrapes. */
  scrapes = 0;

  constructor(private readonly options: ScraperOptions) {
    this.timeoutMs = Math.max(50, Math.floor(options.config.intervalMs * DEADLINE_SHARE));
    this.agent = new Agent({ connections: 1, connectTimeout: this.timeoutMs, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
    this.shownUrl = redactUrl(options.url);
    this.allow = new Set(options.config.allowList);
    this.store = new SeriesStore(options.config.maxSeries);
    this.selectSample = this.sampleSelector(viewFamilies('unknown'));
  }

  /** What the result file says about this scraping (fixed after the first scrape). */
  info(): ServerMetricsInfo {
    return {
      url: this.shownUrl,
      engine: this.engine,
      intervalMs: this.options.config.intervalMs,
      families: viewFamilies(this.engine),
      allowList: [...this.allow],
      maxSeries: this.options.config.maxSeries,
    };
  }

  /** Selects the samples of the families the views read and of the allow-list's names; never a creation time. */
  private sampleSelector(families: string[]): (name: string, family: string) => boolean {
    const view = new Set(families);
    const allow = this.allow;
    return (name, family) => {
      if (name.endsWith('_created')) return false;
      const base = withoutSampleSuffix(name);
      if (allow.has(name) || allow.has(family) || allow.has(base)) return true;
      // Buckets multiply a histogram's series by its bucket count; the views need only _sum and _count.
      if (name.endsWith('_bucket')) return false;
      return view.has(name) || view.has(family) || view.has(base);
    };
  }

  /** One scrape now (the first, before the run starts): resolves true when it read the server's metrics; never rejects. */
  scrapeOnce(timeoutMs = this.timeoutMs): Promise<boolean> {
    if (this.current) return this.current;
    this.current = this.scrape(timeoutMs).finally(() => {
      this.current = null;
    });
    return this.current;
  }

  /** Scrapes every interval until stop(); the next scrape starts an interval after the previous one started, or when it ended if it took longer. */
  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      const startedAt = performance.now();
      void this.scrapeOnce().then(() => {
        if (this.stopped) return;
        const wait = Math.max(0, this.options.config.intervalMs - (performance.now() - startedAt));
        this.timer = setTimeout(tick, wait);
      });
    };
    this.timer = setTimeout(tick, this.options.config.intervalMs);
  }

  /** Samples taken since the previous call. */
  take(): MetricSeries[] {
    return this.store.take();
  }

  /**
   * Stops scraping, after a last scrape when `final` (for the run's end: one under way is waited
   * for first), and frees the connection. Resolves true when that last scrape read the metrics.
   */
  async stop(final: boolean): Promise<boolean> {
    if (this.stopped) return false;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    let read = false;
    if (final) {
      await this.current;
      this.current = null;
      read = await this.scrape(Math.max(this.timeoutMs, FINAL_SCRAPE_TIMEOUT_MS), true);
    }
    this.stopping.abort();
    await this.current;
    await this.agent.destroy().catch(() => undefined);
    return read;
  }

  private warnOnce(kind: Failure, message: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.options.warn(message);
  }

  private async scrape(timeoutMs: number, final = false): Promise<boolean> {
    if (this.stopped && !final) return false;
    const sentAt = this.options.now();
    let text: string;
    let contentType: string | undefined;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.stopping.signal]);
      const response = await request(this.options.url, {
        method: 'GET',
        headers: { ...this.options.headers, accept: 'text/plain;version=0.0.4;q=1,*/*;q=0.1' },
        dispatcher: this.agent,
        signal,
      });
      if (response.statusCode !== 200) {
        await response.body.dump().catch(() => undefined);
        this.warnOnce(
          'http',
          fillPlaceholders(response.statusCode === 404 ? SCRAPE_PROBLEM_TEXT.http404 : SCRAPE_PROBLEM_TEXT.http, [this.shownUrl, response.statusCode]),
        );
        return false;
      }
      const type = response.headers['content-type'];
      contentType = Array.isArray(type) ? type[0] : type;
      const parts: Buffer[] = [];
      let size = 0;
      for await (const part of response.body) {
        const chunk = part as Buffer;
        size += chunk.length;
        if (size > METRICS_BODY_LIMIT) {
          response.body.destroy();
          this.warnOnce('too-large', fillPlaceholders(SCRAPE_PROBLEM_TEXT.tooLarge, [this.shownUrl, METRICS_BODY_LIMIT / 1024 / 1024]));
          return false;
        }
        parts.push(chunk);
      }
      text = Buffer.concat(parts).toString('utf8');
    } catch (error) {
      if (this.stopping.signal.aborted) return false;
      const timedOut = (error as Error).name === 'TimeoutError' || ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'].includes(errorCode(error) ?? '');
      if (timedOut) {
        this.warnOnce('timeout', fillPlaceholders(final ? SCRAPE_PROBLEM_TEXT.timeoutLast : SCRAPE_PROBLEM_TEXT.timeout, [this.shownUrl, timeoutMs, this.options.config.intervalMs]));
      } else {
        this.warnOnce('connect', fillPlaceholders(SERVER_METRICS_TEXT.cannotRead, [this.shownUrl, (error as Error).message]));
      }
      return false;
    }
    const receivedAt = this.options.now();
    return this.record(text, contentType, (sentAt + receivedAt) / 2);
  }

  /** Keeps the samples of one exposition, taken at `tMs` (halfway between sending and the answer: when the server most likely rendered it). */
  private record(text: string, contentType: string | undefined, tMs: number): boolean {
    const format = contentType === undefined ? {} : { contentType };
    let { samples, problems } = this.scrapes === 0 ? parsePrometheusText(text, format) : parsePrometheusText(text, { ...format, selectSample: this.selectSample });
    if (this.scrapes === 0) {
      // The first exposition is read whole: its names tell the engine, which decides what is kept.
      if (samples.length === 0) {
        this.warnOnce('empty', fillPlaceholders(SCRAPE_PROBLEM_TEXT.empty, [this.shownUrl]));
        return false;
      }
      this.engine = recogniseEngine(samples.map((s) => s.name));
      this.selectSample = this.sampleSelector(viewFamilies(this.engine));
      samples = samples.filter((s) => this.selectSample(s.name, s.family));
    }
    if (problems.length > 0) {
      const first = problems[0]!;
      this.warnOnce('malformed', fillPlaceholders(SCRAPE_PROBLEM_TEXT.malformed, [this.shownUrl, problems.length, first.line, first.reason]));
    }
    this.scrapes++;
    const fresh: MetricSeries[] = [];
    for (const sample of samples) {
      const series = { source: 'server' as const, name: sample.name, kind: sample.kind, labels: this.options.labels ? { ...sample.labels, ...this.options.labels } : sample.labels };
      const point: [number, number | null] = [Math.round(tMs * 1000) / 1000, Number.isFinite(sample.value) ? sample.value : null];
      if (!this.store.add(series, point)) {
        this.warnOnce('series', fillPlaceholders(SCRAPE_PROBLEM_TEXT.series, [this.options.config.maxSeries, sample.name]));
        continue;
      }
      fresh.push({ ...series, samples: [point] });
    }
    if (fresh.length > 0) this.options.onSamples?.(fresh, this.engine);
    return true;
  }
}
