/**
 * The live panel's state, built from the engine's run events on the host. The host keeps the one
 * current state (a hidden webview receives nothing, so the panel is sent the whole state when it
 * can show it). The state is updated in place, since events arrive many times per second, and
 * its time series are bounded: at MAX_SERIES_POINTS, neighbouring points are merged pairwise, so a
 * long run keeps its whole shape at an even, coarser resolution.
 */
import type { RunEvent } from '../format/events';
import { LIVE_SERVER_QUANTITIES, type LiveLine, type LiveServer, type LiveServerLines, type LiveState } from '../format/messages/live';
import type { ResultDocument } from '../format/result';
import type { MetricSeries, ServerMetricsInfo } from '../format/server-metrics';
import { commonSeries, mergeSeries, seriesByEndpoint } from '../views/server-quantities';

export const MAX_SERIES_POINTS = 1500;
const MAX_LOGS = 30;

/** A run as the front end knows it before the engine starts: its plan comes with the engine's run-start. */
export type LiveRunStart = Omit<LiveState['run'], 'plan'> & Partial<Pick<LiveState['run'], 'plan'>>;

export function newLiveState(run: LiveRunStart): LiveState {
  return {
    run: { ...run, plan: run.plan ?? [] },
    phase: 'starting',
    status: null,
    statusReason: null,
    elapsedSec: 0,
    workers: null,
    steps: [],
    current: null,
    series: { t: [], requestsPerSecond: [], outputTokensPerSecond: [], inFlight: [], failed: [], sentPerSecond: [], stride: 1, lastCount: 0 },
    server: null,
    errors: {},
    logs: [],
  };
}

/** Applies one event, stamped `atSec` seconds after the run started. */
export function applyRunEvent(state: LiveState, event: RunEvent, atSec: number): void {
  state.elapsedSec = Math.max(state.elapsedSec, atSec);
  switch (event.type) {
    case 'run-start':
      state.phase = state.phase === 'cancelling' ? 'cancelling' : 'running';
      state.run.resultPath = event.resultPath ?? state.run.resultPath;
      // The engine's own count of its steps (a sweep's rates and the repeats included).
      state.run.expectedSteps = event.stepCount > 0 ? event.stepCount : null;
      state.run.plan = event.plannedSteps;
      if (event.repeat) state.run.repeat = event.repeat;
      state.workers = event.workers ?? null;
      if (event.serverMetrics) state.server = newLiveServer(event.serverMetrics);
      return;
    case 'step-start':
      // Server samples are stamped on the engine's run clock; this panel's clock is the host's.
      if (event.startMs !== undefined) scraping(state).clockOffsetSec = atSec - event.startMs / 1000;
      // Indexes come in order; a step never leaves a hole, which would not survive JSON.
      state.steps.splice(Math.min(event.stepIndex, state.steps.length), 1, {
        name: event.name,
        profile: event.profile,
        ...(event.repeat !== undefined ? { repeat: event.repeat } : {}),
        startedAtSec: atSec,
        summary: null,
      });
      state.current = null;
      return;
    case 'progress': {
      state.current = event.snapshot;
      const failedBefore = state.steps
        .slice(0, event.snapshot.stepIndex)
        .reduce((sum, step) => sum + (step.summary?.requests.failed ?? 0), 0);
      appendSample(state.series, {
        t: atSec,
        requestsPerSecond: event.snapshot.requestsPerSecond,
        outputTokensPerSecond: event.snapshot.outputTokensPerSecond,
        inFlight: event.snapshot.inFlight,
        failed: failedBefore + event.snapshot.failed,
        sentPerSecond: event.snapshot.sentPerSecond ?? 0,
      });
      return;
    }
    case 'step-end': {
      const step = state.steps[event.stepIndex];
      if (step) step.summary = event.summary;
      for (const [kind, count] of Object.entries(event.summary.errors)) state.errors[kind] = (state.errors[kind] ?? 0) + count;
      if (state.current?.stepIndex === event.stepIndex) state.current = null;
      return;
    }
    case 'sampled':
      addServerSamples(state, event.engine, event.series);
      return;
    case 'sampling-problem':
      // The GPU's readings are not drawn in the strip; its problems stay in the log.
      if (event.source === 'server' && state.server) state.server.problem = event.message;
      return;
    case 'log':
      state.logs.push({ level: event.level, message: event.message });
      if (state.logs.length > MAX_LOGS) state.logs.splice(0, state.logs.length - MAX_LOGS);
      return;
    case 'run-end':
      state.phase = 'finished';
      state.status = event.status;
      state.statusReason = event.reason;
      state.run.resultPath = event.resultPath ?? state.run.resultPath;
      state.current = null;
      return;
  }
}

/**
 * The state of a run whose extension host went away while it ran (a window reload): finished as
 * its result file now says, each step summarized from the requests the file kept (which may be
 * more than the state last showed). A partial run says `reason`: the old host may have finished
 * the file itself as it shut down, calling that a cancel, which the user did not ask for. Without a
 * readable file, the state as it was, marked partial.
 */
export function interruptedState(state: LiveState, file: ResultDocument | null, reason: string): LiveState {
  const finished = { ...state, phase: 'finished' as const, current: null };
  if (!file) return { ...finished, status: 'partial', statusReason: reason };
  const steps = file.steps.map((step, index) => ({
    name: step.name,
    profile: step.profile,
    ...(step.repeat !== undefined ? { repeat: step.repeat } : {}),
    startedAtSec: state.steps[index]?.startedAtSec ?? state.elapsedSec,
    summary: step.summary,
  }));
  const status = file.status === 'running' ? 'partial' : file.status;
  return { ...finished, steps, status, statusReason: status === 'partial' ? reason : (file.statusReason ?? null) };
}

type SeriesKey = 't' | 'requestsPerSecond' | 'outputTokensPerSecond' | 'inFlight' | 'failed' | 'sentPerSecond';
const AVERAGED: SeriesKey[] = ['t', 'requestsPerSecond', 'outputTokensPerSecond', 'inFlight', 'sentPerSecond'];
const LATEST: SeriesKey[] = ['failed'];

/** Parallel arrays bounded to MAX_SERIES_POINTS: each point holds `stride` samples. */
type Bounded<K extends string> = Record<K, number[]> & { t: number[]; stride: number; lastCount: number };

function appendSample(series: LiveState['series'], sample: Record<SeriesKey, number>): void {
  // A state kept before sends were counted has no such series: it starts level with the others.
  if (series.sentPerSecond.length !== series.t.length) series.sentPerSecond = series.t.map(() => 0);
  appendBounded(series, sample, AVERAGED, LATEST);
}

/**
 * Adds a sample. Every point holds `stride` samples (the `averaged` keys averaged, the `latest`
 * keys, cumulative counts, the latest), so the resolution is the same over the whole run.
 */
function appendBounded<K extends string>(series: Bounded<K>, sample: Record<K, number>, averaged: readonly K[], latest: readonly K[]): void {
  const last = series.t.length - 1;
  if (last >= 0 && series.lastCount < series.stride) {
    const n = series.lastCount;
    for (const key of averaged) series[key][last] = ((series[key][last] ?? 0) * n + sample[key]) / (n + 1);
    for (const key of latest) series[key][last] = sample[key];
    series.lastCount = n + 1;
    return;
  }
  if (series.t.length === MAX_SERIES_POINTS) halveResolution(series, averaged, latest);
  for (const key of [...averaged, ...latest]) series[key].push(sample[key]);
  series.lastCount = 1;
}

/** Merges each pair of (complete) points into one, doubling the stride. */
function halveResolution<K extends string>(series: Bounded<K>, averaged: readonly K[], latest: readonly K[]): void {
  for (const key of averaged) series[key] = pairwise(series[key], (a, b) => (a + b) / 2) as Bounded<K>[K];
  for (const key of latest) series[key] = pairwise(series[key], (_, b) => b) as Bounded<K>[K];
  series.stride *= 2;
}

function pairwise(values: number[], merge: (a: number, b: number) => number): number[] {
  const merged: number[] = [];
  for (let i = 0; i + 1 < values.length; i += 2) merged.push(merge(values[i] ?? 0, values[i + 1] ?? 0));
  return merged;
}

const emptyLine = (): LiveLine => ({ t: [], v: [], stride: 1, lastCount: 0 });
const emptyLines = (): LiveServerLines => ({ runningRequests: emptyLine(), waitingRequests: emptyLine(), kvCacheUsage: emptyLine(), generatedTokens: emptyLine() });

function newLiveServer(info: ServerMetricsInfo): LiveServer {
  return {
    url: info.url,
    engine: info.engine,
    intervalMs: info.intervalMs,
    scrapes: 0,
    problem: null,
    lines: emptyLines(),
    replicas: (info.urls ?? []).length > 1 ? (info.urls ?? []).map((_, i) => ({ endpoint: String(i), lines: emptyLines() })) : [],
  };
}

/** What the host keeps of a run's scraping beyond its state: each series' last sample (a counter's rate needs it) and the clock offset. */
interface Scraping {
  last: MetricSeries[];
  clockOffsetSec: number;
  /** Run-clock time of the last point added to each line. */
  lastAddedMs: Partial<Record<string, number>>;
}

const scrapingOf = new WeakMap<LiveState, Scraping>();

function scraping(state: LiveState): Scraping {
  let found = scrapingOf.get(state);
  if (!found) scrapingOf.set(state, (found = { last: [], clockOffsetSec: 0, lastAddedMs: {} }));
  return found;
}

/**
 * A scrape's new samples become points of the strip's lines: mapped to the common quantities with
 * each series' previous sample in front (so a counter's first new sample has a rate), and placed on
 * this panel's clock.
 */
function addServerSamples(state: LiveState, engine: LiveServer['engine'], series: MetricSeries[]): void {
  const server = state.server;
  const scraped = series.filter((s) => s.source === 'server');
  if (!server || scraped.length === 0) return;
  const kept = scraping(state);
  const window = mergeSeries(kept.last.map((s) => ({ ...s, samples: [...s.samples] })), scraped);
  server.engine = engine;
  server.scrapes++;
  const addLines = (lines: LiveServerLines, own: MetricSeries[], key: string): void => {
    const common = commonSeries(own, engine);
    for (const quantity of LIVE_SERVER_QUANTITIES) {
      for (const point of common[quantity] ?? []) {
        if (point.tMs <= (kept.lastAddedMs[`${key}${quantity}`] ?? -Infinity)) continue;
        appendBounded(lines[quantity], { t: point.tMs / 1000 + kept.clockOffsetSec, v: point.value }, ['t', 'v'], []);
        kept.lastAddedMs[`${key}${quantity}`] = point.tMs;
      }
    }
  };
  // Over several endpoints the strip's lines are their sum (a round's samples share one time); each endpoint's own beside them.
  addLines(server.lines, window, '');
  for (const { endpoint, series: own } of seriesByEndpoint(window)) {
    const replica = server.replicas.find((r) => r.endpoint === endpoint);
    if (replica) addLines(replica.lines, own, `${endpoint}:`);
  }
  kept.last = window.map((s) => ({ ...s, samples: s.samples.slice(-1) }));
}
