/**
 * The live panel as pure functions of the host's `LiveState`: progress texts, table rows and chart
 * specs. No DOM here, so all of it is unit-tested in Node; webview/live/main.ts only puts the results on screen.
 */
import { LIVE_SERVER_QUANTITIES, type LiveLine, type LiveServerLines, type LiveState, type LiveStep } from '../format/messages/live';
import { METRICS, metricTitle } from '../format/metrics';
import type { Stats } from '../format/result';
import { stepLabel } from '../format/step-name';
import { wantsLogAxis } from './axis';
import { DECIMATE_ABOVE, timeTicks, type ChartSpec, type Point, type SeriesSpec, type TableColumn } from './chart-spec';
import { fixed, formatMetric, isNumber } from './number-format';
import { MEANS_COLUMNS, MEANS_FOOTNOTE, meansCells } from './result-tables';
import { ENGINE_NAMES, serverTimeCharts, type ServerChartId, type ServerLines, type TimePoints } from './server-views';
import { markedName, NO_BREAK, sayWarning, stepWarnings, WARNING_MARK } from './step-warnings';
import { english, joinSentences, type Translate } from './l10n';

/** The live panel's step table: the table of means (src/views/result-tables.ts), the running step's throughput so far in it. */
export const TABLE_COLUMNS: TableColumn[] = MEANS_COLUMNS;

/** What the live panel says under its table of means. */
export function tableFootnote(t: Translate = english): string {
  return joinSentences(t(MEANS_FOOTNOTE), t("* marks the running step's rate over the last second; {0} a step with a warning (in the log below).", WARNING_MARK));
}

/** One row per step; the running step shows its live throughput. */
export function tableRows(state: LiveState, t: Translate = english): string[][] {
  return state.steps.map((step, index) => {
    if (step.summary) return [markedName(stepLabel(step), stepWarnings(step), NO_BREAK), ...meansCells(step.summary)];
    // A run that ended (its host went away) without the step's figures: no longer running, nothing to show.
    if (state.phase === 'finished') return [t('{0} (stopped)', stepLabel(step)), ...TABLE_COLUMNS.slice(1).map(() => '–')];
    const c = state.current?.stepIndex === index ? state.current : null;
    const live = (metric: 'requestsPerSecond' | 'outputTokensPerSecond', v: number | undefined) => (v === undefined ? '…' : `${formatMetric(metric, v)}*`);
    return [t('{0} (running)', stepLabel(step)), live('requestsPerSecond', c?.requestsPerSecond), live('outputTokensPerSecond', c?.outputTokensPerSecond), '…', '…', '…', c ? `${c.completed} / ${c.failed}` : '…'];
  });
}

/**
 * How many workers send the run's requests and, while a step runs, each one's requests in flight
 * and send lateness (p50 / p99 over its last report); empty before the run says.
 */
export function workersText(state: LiveState, t: Translate = english): string {
  const workers = state.workers;
  if (workers === null) return '';
  // The reason is worded again from its template (src/format/warning-text.ts) where this version has one; else it reads as the engine wrote it.
  const head = t('Workers: {0} ({1})', workers.count, sayWarning(workers.reason, t));
  const each = (state.current?.workers ?? []).map(({ worker, inFlight, sendLatenessMs: late }) =>
    late === null ? t('#{0}: {1} in flight, no send', worker, inFlight) : t('#{0}: {1} in flight, send lateness {2} / {3} ms', worker, inFlight, fixed(late.p50), fixed(late.p99)),
  );
  return each.length === 0 ? head : `${head} · ${each.join(' · ')} (p50 / p99)`;
}

export function errorSummary(state: LiveState, t: Translate = english): string {
  const kinds = Object.entries(state.errors).filter(([, n]) => n > 0);
  return kinds.length === 0 ? '' : t('Errors by kind: {0}', kinds.map(([kind, n]) => `${kind} ${n}`).join(', '));
}

const zip = (xs: number[], ys: number[]): Point[] => xs.map((x, i) => ({ x, y: ys[i] ?? 0 }));

/** Throughput is drawn as a mean over this many seconds: per-second counts of a slow step zig-zag between 0 and 2 completions. */
export const THROUGHPUT_WINDOW_SEC = 5;

/** Each value replaced by the mean of the values sampled in the `windowSec` up to it (times `t` ascending). */
export function movingAverage(t: readonly number[], values: readonly number[], windowSec: number): number[] {
  const out: number[] = [];
  let start = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i] ?? 0;
    while ((t[start] ?? 0) <= (t[i] ?? 0) - windowSec) sum -= values[start++] ?? 0;
    out.push(sum / (i - start + 1));
  }
  return out;
}

export type LiveChartId = 'throughput' | 'load' | 'ttft' | 'tpot' | 'latency' | ServerChartId | `replica-${string}`;

export interface LiveChart {
  id: LiveChartId;
  title: string;
  /** What the chart's metric means (shown on hover). */
  description: string;
  spec: ChartSpec;
}

/** How per-step charts place steps: by concurrency when every step has one, else by measured rate. */
/** Where a finished step sits: at the concurrency or request rate it achieved (as the result view places it). */
export function stepAxis(steps: LiveStep[]): { title: string; x: (step: LiveStep) => number | null } {
  const configured = (step: LiveStep) => (step.profile.kind === 'synchronous' ? 1 : (step.profile.concurrency ?? null));
  if (steps.length > 0 && steps.every((s) => configured(s) !== null)) {
    return { title: 'Concurrency (measured mean in flight)', x: (step) => step.summary?.achievedConcurrency ?? configured(step) };
  }
  return { title: 'Achieved request rate (req/s)', x: (step) => step.summary?.requestsPerSecond ?? null };
}

const PERCENTILE_LINES = ['p50', 'p90', 'p99'] as const;

function percentileSeries(state: LiveState, stats: (step: LiveStep) => Stats | null | undefined): { title: string; series: SeriesSpec[] } {
  const axis = stepAxis(state.steps);
  const placed = state.steps
    .flatMap((step): Array<{ x: number; stats: Stats; label: string }> => {
      const x = axis.x(step);
      const s = stats(step);
      return isNumber(x) && s ? [{ x, stats: s, label: stepLabel(step) }] : [];
    })
    .sort((a, b) => a.x - b.x);
  return {
    title: axis.title,
    series: PERCENTILE_LINES.map((line, i) => {
      const shown = placed.filter((p) => isNumber(p.stats[line]));
      return {
        label: line,
        data: shown.map((p) => ({ x: p.x, y: p.stats[line] as number })),
        // Each point's tooltip names its step, not its bare measured concurrency.
        pointLabels: shown.map((p) => p.label),
        color: i,
        percentile: line,
        showLine: true,
        pointRadius: 3,
      };
    }),
  };
}

/** Where the time charts start: the run's start, or the latest step's when only it is drawn. */
function timeFrom(state: LiveState, choice: TimeChartChoice): number {
  const latestStep = state.steps.at(-1);
  return choice.latestStepOnly && latestStep ? latestStep.startedAtSec : 0;
}

const serverLines = (state: LiveState): LiveLine[] => (state.server ? LIVE_SERVER_QUANTITIES.map((q) => state.server!.lines[q]) : []);

/**
 * The x axis of every chart over time, the client's and the server strip's alike: run time from
 * the start (or the latest step's) to the latest sample of either, so that a moment lines up
 * across the charts.
 */
export function runTimeAxis(state: LiveState, choice: TimeChartChoice): ChartSpec['x'] {
  const min = timeFrom(state, choice);
  const max = Math.max(state.series.t.at(-1) ?? 0, ...serverLines(state).map((line) => line.t.at(-1) ?? 0));
  return { title: 'Run time (s)', unit: 's', min, ...(max > min ? timeTicks(min, max) : {}) };
}

/** A dashed mark where each step began (only the latest one's when only it is drawn). */
function stepMarks(state: LiveState, choice: TimeChartChoice): { x: number; label: string }[] {
  const latestStep = state.steps.at(-1);
  return (choice.latestStepOnly && latestStep ? [latestStep] : state.steps).map((step) => ({ x: step.startedAtSec, label: stepLabel(step) }));
}

/** How the time charts are drawn: the whole run, or only the latest step (its own y scale, not flattened by a busier step). */
export interface TimeChartChoice {
  latestStepOnly: boolean;
  /** A run over several endpoints: the server strip shows each endpoint's own charts instead of their sum. */
  serverOneByOne?: boolean;
}

/** The samples from `fromSec` on: the latest step's part of the run's time series. */
function seriesFrom(series: LiveState['series'], fromSec: number): LiveState['series'] {
  const first = series.t.findIndex((t) => t >= fromSec);
  const from = first === -1 ? series.t.length : first;
  return {
    ...series,
    t: series.t.slice(from),
    requestsPerSecond: series.requestsPerSecond.slice(from),
    outputTokensPerSecond: series.outputTokensPerSecond.slice(from),
    inFlight: series.inFlight.slice(from),
    failed: series.failed.slice(from),
    sentPerSecond: series.sentPerSecond.slice(from),
  };
}

/**
 * The target request rate over run time, for the open-loop steps that have one: a ramp's planned
 * points, a fixed rate as a level over its step. Up to now for the running step; none without open-loop steps.
 */
export function targetRateSeries(state: LiveState, steps: LiveStep[]): SeriesSpec[] {
  const data: Point[] = [];
  for (const step of steps) {
    const index = state.steps.indexOf(step);
    const endSec = state.steps[index + 1]?.startedAtSec ?? state.elapsedSec;
    const { ramp, rate, trace } = step.profile;
    if (ramp) {
      for (const p of ramp.targetRates) if (step.startedAtSec + p.atSec <= endSec) data.push({ x: step.startedAtSec + p.atSec, y: p.rate });
    } else if (trace) {
      // The load the trace recorded (scaled), bucket by bucket: a step level from each bucket's start.
      trace.recordedRates.forEach((p, i) => {
        const from = step.startedAtSec + p.atSec;
        const to = Math.min(endSec, step.startedAtSec + (trace.recordedRates[i + 1]?.atSec ?? trace.scaledSpanSec));
        if (from <= endSec) data.push({ x: from, y: p.rate }, { x: Math.max(from, to), y: p.rate });
      });
    } else if (rate !== undefined) {
      data.push({ x: step.startedAtSec, y: rate }, { x: endSec, y: rate });
    }
  }
  // The label is a key: the page draws it in the display language (localizedSpec).
  return data.length === 0 ? [] : [{ label: steps.some((s) => s.profile.trace) ? 'target (recorded) requests/s' : 'target requests/s', data, color: 1, dashed: true, rightAxis: true }];
}

/** Requests sent per second over run time, when a trace step ran: the load achieved against the trace's recorded one. */
function sentSeries(series: LiveState['series'], steps: LiveStep[]): SeriesSpec[] {
  if (!steps.some((step) => step.profile.trace)) return [];
  return [{ label: 'sent requests/s', data: zip(series.t, movingAverage(series.t, series.sentPerSecond, THROUGHPUT_WINDOW_SEC)), color: 3, rightAxis: true }];
}

export const LATENESS_COLUMNS: TableColumn[] = [
  { label: 'Trace step' },
  { label: 'Requests', numeric: true, description: 'Requests whose send lateness is counted (ended so far).' },
  { label: 'Lateness p50', unit: 'ms', numeric: true, description: 'Send lateness: when a request went out minus when the trace (its recorded time, scaled) said to send it.' },
  { label: 'Lateness p99', unit: 'ms', numeric: true },
  { label: 'Lateness max', unit: 'ms', numeric: true },
];

/** Send lateness of each trace step: a finished step's from its summary, the running step's so far; none without trace steps. */
export function latenessRows(state: LiveState, t: Translate = english): string[][] {
  return state.steps.flatMap((step, index) => {
    if (!step.profile.trace) return [];
    const s = step.summary;
    if (s) return [[stepLabel(step), String(s.queueMs?.count ?? s.requests.total), fixed(s.queueMs?.p50), fixed(s.queueMs?.p99), fixed(s.queueMs?.max)]];
    const live = state.current?.stepIndex === index ? state.current.sendLatenessMs : null;
    return [[t('{0} (running)', stepLabel(step)), live ? String(live.count) : '…', live ? fixed(live.p50) : '…', live ? fixed(live.p99) : '…', live ? fixed(live.max) : '…']];
  });
}

/** The live panel's charts; their titles and descriptions in the display language (axis titles and legends are keys the page looks up as it draws). */
export function liveCharts(state: LiveState, choice: TimeChartChoice = { latestStepOnly: false }, t: Translate = english): LiveChart[] {
  const latestStep = state.steps.at(-1);
  const series = choice.latestStepOnly && latestStep ? seriesFrom(state.series, latestStep.startedAtSec) : state.series;
  const perStep = (id: LiveChartId, title: string, description: string, yTitle: string, stats: (s: LiveStep) => Stats | null | undefined): LiveChart => {
    const p = percentileSeries(state, stats);
    const log = wantsLogAxis(p.series[0]?.data.map((point) => point.x) ?? []);
    return { id, title, description, spec: { kind: 'line', x: { title: p.title, ...(log ? { log } : {}) }, y: { title: yTitle }, series: p.series } };
  };
  /** One time series on each y axis, against run time, with a mark where each step began. */
  type Axis = { title: string; label: string; values: number[]; color: SeriesSpec['color'] };
  const overTime = (id: LiveChartId, title: string, description: string, left: Axis, right: Axis, extra: SeriesSpec[] = []): LiveChart => ({
    id,
    title,
    description,
    spec: {
      kind: 'line',
      x: runTimeAxis(state, choice),
      y: { title: left.title },
      y2: { title: right.title },
      decimateAbove: DECIMATE_ABOVE,
      markers: stepMarks(state, choice),
      series: [
        { label: left.label, data: zip(series.t, left.values), color: left.color },
        { label: right.label, data: zip(series.t, right.values), color: right.color, rightAxis: true },
        ...extra,
      ],
    },
  });
  return [
    overTime(
      'throughput',
      t('Throughput over time ({0} s moving average)', THROUGHPUT_WINDOW_SEC),
      joinSentences(t("Output tokens and completed requests per second, averaged over the last {0} seconds as the run goes; dashed lines mark where each step began. For rate steps, the dashed requests/s line is the target rate (a ramp's as it rises).", THROUGHPUT_WINDOW_SEC), t(METRICS.outputTokensPerSecond.definition)),
      { title: 'Output tok/s', label: 'output tok/s', values: movingAverage(series.t, series.outputTokensPerSecond, THROUGHPUT_WINDOW_SEC), color: 0 },
      { title: 'Requests/s', label: 'requests/s', values: movingAverage(series.t, series.requestsPerSecond, THROUGHPUT_WINDOW_SEC), color: 1 },
      [
        ...targetRateSeries(state, choice.latestStepOnly && latestStep ? [latestStep] : state.steps),
        ...sentSeries(series, choice.latestStepOnly && latestStep ? [latestStep] : state.steps),
      ],
    ),
    overTime(
      'load',
      t('Requests in flight and failures'),
      joinSentences(t('Requests sent and not yet finished, and failed requests so far in the run.'), t(METRICS.failures.definition)),
      { title: 'In flight', label: 'in flight', values: series.inFlight, color: 2 },
      { title: 'Failed (total)', label: 'failed (total)', values: series.failed, color: 'error' },
    ),
    perStep('ttft', t('TTFT per step'), t(METRICS.ttftMs.definition), metricTitle('ttftMs'), (s) => s.summary?.ttftMs),
    perStep('tpot', t('TPOT per step'), t(METRICS.tpotMs.definition), metricTitle('tpotMs'), (s) => s.summary?.tpotMs),
    perStep('latency', t('Latency per step'), t(METRICS.latencyMs.definition), metricTitle('latencyMs'), (s) => s.summary?.latencyMs),
  ];
}

/** Under the client's charts: the server's own metrics on the same time axis, or one line saying why there are none. */
export interface ServerStrip {
  /** Why nothing is drawn (scraping off, no sample yet, /metrics failing); null when there are charts. */
  message: string | null;
  /** Quantities the engine does not export, said under the charts. */
  note: string;
  charts: LiveChart[];
}

const linePoints = (line: LiveLine, from: number): TimePoints => line.t.flatMap((t, i): TimePoints => (t >= from ? [[t, line.v[i] ?? 0]] : []));

export function serverStrip(state: LiveState, choice: TimeChartChoice = { latestStepOnly: false }, t: Translate = english): ServerStrip {
  const server = state.server;
  if (!server) {
    return { message: t('Server metrics: not scraped in this run (turned off).'), note: '', charts: [] };
  }
  const from = timeFrom(state, choice);
  const linesOf = (live: LiveServerLines): ServerLines => {
    const lines: ServerLines = {};
    for (const quantity of LIVE_SERVER_QUANTITIES) {
      const points = linePoints(live[quantity], from);
      if (live[quantity].t.length > 0) lines[quantity] = points;
    }
    return lines;
  };
  const lines = linesOf(server.lines);
  if (Object.keys(lines).length === 0) {
    const message =
      server.problem !== null
        ? t('Server metrics: none from {0}: {1}', server.url, server.problem)
        : server.scrapes > 0
        ? t('Server metrics: {0} answered, but with none of the metrics LLM Bench reads (running and waiting requests, KV cache, tokens).', server.url)
        : state.phase === 'finished'
          ? t('Server metrics: no sample came from {0} during the run (see the warnings below).', server.url)
          : t('Server metrics: waiting for the first sample from {0}…', server.url);
    return { message, note: '', charts: [] };
  }
  const times = state.series.t;
  const client = movingAverage(times, state.series.outputTokensPerSecond, THROUGHPUT_WINDOW_SEC).flatMap((v, i): TimePoints => ((times[i] ?? 0) >= from ? [[times[i] ?? 0, v]] : []));
  const oneByOne = choice.serverOneByOne === true && server.replicas.length > 1;
  const groups = oneByOne ? server.replicas.map((replica) => ({ prefix: `replica-${replica.endpoint}-`, title: t('Endpoint {0}: ', replica.endpoint), lines: linesOf(replica.lines) })) : [{ prefix: '', title: '', lines }];
  const drawn = groups.flatMap((group) => {
    const generated = group.lines.generatedTokens;
    if (generated) group.lines.generatedTokens = smoothed(generated);
    // The client's tokens/s is the whole run's: beside the sum only.
    const { charts, missing } = serverTimeCharts(group.lines, oneByOne ? undefined : client);
    return charts.map((chart) => ({ ...chart, id: `${group.prefix}${chart.id}`, title: `${group.title}${oneByOne ? t(chart.title.replace(/^Server: /, '')) : t(chart.title)}`, missing }));
  });
  const missing = drawn[0]?.missing ?? [];
  const x = runTimeAxis(state, choice);
  const markers = stepMarks(state, choice);
  const replicaNote = server.replicas.length > 1 && !oneByOne ? t('Summed over {0} endpoints (KV-cache usage: their mean).', server.replicas.length) : '';
  return {
    message: null,
    note: [replicaNote, missing.length ? t('{0} does not export: {1}.', ENGINE_NAMES[server.engine], missing.map((quantity) => t(quantity)).join(', ')) : '', server.problem ?? ''].filter(Boolean).join(' '),
    charts: drawn.map((chart) => ({
      id: chart.id as LiveChartId,
      title: chart.id.endsWith('server-tokens') ? t('{0} ({1} s moving average)', chart.title, THROUGHPUT_WINDOW_SEC) : chart.title,
      description: t(chart.description),
      spec: {
        kind: 'line',
        x,
        y: { title: chart.yTitle, ...(chart.yMax !== undefined ? { min: 0, max: chart.yMax } : {}) },
        decimateAbove: DECIMATE_ABOVE,
        markers,
        series: chart.lines.map((line) => ({
          label: line.label,
          data: line.points.map(([px, py]) => ({ x: px, y: py })),
          color: line.color,
          ...(line.dashed ? { dashed: true } : {}),
        })),
      },
    })),
  };
}

/** The server's tokens/s averaged as the client's throughput chart is, so that the two lines compare. */
function smoothed(points: TimePoints): TimePoints {
  const times = points.map(([t]) => t);
  const averaged = movingAverage(times, points.map(([, v]) => v), THROUGHPUT_WINDOW_SEC);
  return points.map(([t], i) => [t, averaged[i] ?? 0]);
}
