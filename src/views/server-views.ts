/**
 * The server's side of the views, from its own /metrics (the common quantities of
 * src/views/server-quantities.ts): the charts over run time of running and waiting requests, KV-cache
 * usage and server tokens/s (the live panel's strip, the result editor), the table of each step's
 * server figures (result editor, compare), and the report's marks of where the KV cache first filled
 * and where requests first kept waiting. Pure: unit-tested in Node.
 */
import { stepLabel } from '../format/step-name';
import type { ResultDocument, Step } from '../format/result';
import type { MetricSeries, ServerEngine } from '../format/server-metrics';
import { fixed, formatCount, formatMetric, formatSeconds, NOT_AVAILABLE } from './number-format';
import type { TableColumn } from './chart-spec';
import { commonSeries, engineOf, firstReached, firstSustainedAbove, runSeries, stepAt, stepServerFigures, stepWindow, type CommonSeries, type ServerPoint, type StepServerFigures } from './server-quantities';
import { english, type Translate } from './l10n';

export const ENGINE_NAMES: Record<ServerEngine, string> = {
  vllm: 'vLLM',
  sglang: 'SGLang',
  'llama.cpp': 'llama.cpp',
  tgi: 'TGI',
  unknown: 'an engine LLM Bench does not recognise',
};

/** [seconds since the run started, value] pairs, time ascending. */
export type TimePoints = [number, number][];

/** The quantities the server charts draw, on one time axis in seconds. */
export interface ServerLines {
  runningRequests?: TimePoints;
  waitingRequests?: TimePoints;
  /** A fraction, 0..1 (drawn in percent). */
  kvCacheUsage?: TimePoints;
  /** Tokens per second. */
  generatedTokens?: TimePoints;
  promptTokens?: TimePoints;
}

export interface TimeLine {
  label: string;
  points: TimePoints;
  /** A palette index, or a theme colour by role (src/views/chart-spec.ts SeriesSpec.color). */
  color: number | 'muted';
  dashed?: boolean;
}

export type ServerChartId = 'server-requests' | 'server-kv-cache' | 'server-tokens';

export interface ServerTimeChart {
  id: ServerChartId;
  title: string;
  description: string;
  yTitle: string;
  /** KV-cache usage tops out at 100%. */
  yMax?: number;
  lines: TimeLine[];
}

/** Usage at or above this share of the KV cache counts as full (the report's mark). */
export const KV_CACHE_FULL = 0.95;
/** Requests waiting in every scrape for this long (ms) are a queue, not arrivals passing through (the report's mark). */
export const QUEUE_HELD_MS = 1000;

const percent = (points: TimePoints): TimePoints => points.map(([t, v]) => [t, v * 100]);

/**
 * The server charts over run time: each drawn when the engine exports one of its quantities,
 * the others named in `missing`. `clientTokens`: the client's output tokens/s on the same axis,
 * drawn dashed beside the server's count for a check by eye.
 */
export function serverTimeCharts(lines: ServerLines, clientTokens?: TimePoints): { charts: ServerTimeChart[]; missing: string[] } {
  const missing: string[] = [];
  const present = (label: string, points: TimePoints | undefined, color: TimeLine['color'], dashed = false): TimeLine[] => {
    if (points && points.length > 0) return [{ label, points, color, ...(dashed ? { dashed } : {}) }];
    missing.push(label);
    return [];
  };
  const charts: ServerTimeChart[] = [
    {
      id: 'server-requests',
      title: 'Server: running and waiting requests',
      description: 'Requests the server was running in its batch, and requests it had accepted but kept waiting (queued), as its /metrics said at each scrape.',
      yTitle: 'Requests',
      lines: [...present('running', lines.runningRequests, 2), ...present('waiting', lines.waitingRequests, 1)],
    },
    {
      id: 'server-kv-cache',
      title: 'Server: KV-cache usage',
      description: `Share of the server's KV cache in use at each scrape. Near ${KV_CACHE_FULL * 100}% the server cannot admit more requests: they wait, or running ones are preempted.`,
      yTitle: 'KV cache used (%)',
      yMax: 100,
      lines: present('KV-cache usage', lines.kvCacheUsage && percent(lines.kvCacheUsage), 3),
    },
    {
      id: 'server-tokens',
      title: 'Server: tokens per second',
      description: "Tokens the server counted per second between scrapes (the increase of its counters). The client's output tokens/s, dashed, should follow the generated line; a gap means lost streams or another client.",
      yTitle: 'tok/s',
      lines: [
        ...present('generated tok/s', lines.generatedTokens, 0),
        ...(lines.promptTokens ? present('prompt tok/s', lines.promptTokens, 6) : []),
        ...(clientTokens && clientTokens.length > 0 ? [{ label: 'client output tok/s', points: clientTokens, color: 'muted' as const, dashed: true }] : []),
      ],
    },
  ];
  return { charts: charts.filter((chart) => chart.lines.some((line) => line.label !== 'client output tok/s')), missing };
}

/** A result's common series on its run clock, in seconds. */
export function serverLinesOf(common: CommonSeries): ServerLines {
  const lines: ServerLines = {};
  for (const key of ['runningRequests', 'waitingRequests', 'kvCacheUsage', 'generatedTokens', 'promptTokens'] as const) {
    const points = common[key];
    if (points) lines[key] = points.map((p) => [p.tMs / 1000, p.value]);
  }
  return lines;
}

type FigureKey = keyof StepServerFigures;

/** A column of the server table: the figures it shows (several in one cell, "3.8 / 4") and how each is written. */
interface FigureColumn {
  keys: FigureKey[];
  column: TableColumn;
  format: (value: number) => string;
}

/** The columns of the server table, in order; a column no step has a value for is left out. */
const FIGURE_COLUMNS: FigureColumn[] = [
  { keys: ['runningMean', 'runningMax'], column: { label: 'Running', unit: 'mean / max', numeric: true, description: "Requests in the server's running batch: the mean over the step's scrapes, and the most at any of them." }, format: (v) => (Number.isInteger(v) ? formatCount(v) : formatMetric('achievedConcurrency', v)) },
  { keys: ['waitingMax'], column: { label: 'Waiting', unit: 'max', numeric: true, description: 'Most requests queued by the server (accepted, not yet running) at any scrape of the step.' }, format: formatCount },
  { keys: ['kvCacheUsageMax'], column: { label: 'KV cache', unit: 'max %', numeric: true, description: 'Highest share of the KV cache in use at any scrape of the step.' }, format: (v) => fixed(v * 100, 1) },
  { keys: ['preemptions'], column: { label: 'Preempted', unit: 'count', numeric: true, description: 'Requests the server preempted (evicted from the batch to free KV cache) during the step.' }, format: formatCount },
  { keys: ['prefixCacheHitRate'], column: { label: 'Prefix hits', unit: '%', numeric: true, description: 'Prompt tokens found in the prefix cache, as a share of those looked up, during the step.' }, format: (v) => fixed(v * 100, 1) },
  { keys: ['generatedTokensPerSecond', 'promptTokensPerSecond'], column: { label: 'Server tok/s', unit: 'generated / prompt', numeric: true, description: 'Tokens the server counted as generated, and prompt tokens it counted as processed, during the step, per second.' }, format: (v) => formatMetric('outputTokensPerSecond', v) },
  { keys: ['queueTimeMeanMs'], column: { label: 'Queue time', unit: 'mean ms', numeric: true, description: "Time requests spent in the server's queue before running, mean over those that left it during the step." }, format: (v) => formatMetric('queueMs', v) },
];

const STEP_COLUMN: TableColumn = { label: 'Step' };

export interface StepFigures {
  name: string;
  /** Null for a step without a span on the run's clock (older files). */
  figures: StepServerFigures | null;
}

export interface TextTable {
  columns: TableColumn[];
  rows: string[][];
}

const present = (figures: StepServerFigures | null | undefined, key: FigureKey): boolean => figures?.[key] !== null && figures?.[key] !== undefined;

const shownColumns = (steps: readonly StepFigures[]) => FIGURE_COLUMNS.filter(({ keys }) => steps.some((s) => keys.some((key) => present(s.figures, key))));

const cellOf = (figures: StepServerFigures | null, { keys, format }: FigureColumn): string =>
  // Joined by no-break spaces: a narrow cell wraps between runs (at " \u2192 "), never inside one's figures.
  keys.some((key) => present(figures, key)) ? keys.map((key) => (present(figures, key) ? format(figures![key]!) : NOT_AVAILABLE)).join('\u00a0/\u00a0') : NOT_AVAILABLE;

/** One row a step: its server figures, in the columns some step has. */
export function serverTable(steps: readonly StepFigures[]): TextTable {
  const columns = shownColumns(steps);
  return {
    columns: [STEP_COLUMN, ...columns.map((c) => c.column)],
    rows: steps.map((step) => [step.name, ...columns.map((column) => cellOf(step.figures, column))]),
  };
}

/** Both runs' step figures, paired as compare pairs its steps; null when neither run has server figures. */
export function compareServerFigures(a: ResultDocument, b: ResultDocument, pair: (a: StepFigures[], b: StepFigures[]) => [StepFigures, StepFigures][]): { table: TextTable; notes: string[] } | null {
  const runs = [a, b].map((doc) => {
    const series = runSeries(doc);
    return { steps: stepFiguresOf(doc.steps, series, engineOf(doc, series)), recorded: series.some((s) => s.source === 'server') };
  });
  const table = compareServerTable(pair(runs[0]!.steps, runs[1]!.steps));
  if (table.columns.length <= 1) return null;
  const without = runs.flatMap((run, i) => (run.recorded ? [] : [`${i === 0 ? 'A' : 'B'} has no server metrics: its cells read n/a.`]));
  return { table, notes: without };
}

/** Paired steps of two runs, each cell A's figure then B's ("12.0 → 15.5"), in the columns either run has. */
export function compareServerTable(pairs: readonly [StepFigures, StepFigures][]): TextTable {
  const columns = shownColumns(pairs.flat());
  return {
    // The heading above the table says "A \u2192 B" once; the columns keep their own units.
    columns: [STEP_COLUMN, ...columns.map((c) => c.column)],
    rows: pairs.map(([a, b]) => [
      a.name === b.name ? a.name : `${a.name} / ${b.name}`,
      ...columns.map((column) => `${cellOf(a.figures, column)} \u2192 ${cellOf(b.figures, column)}`),
    ]),
  };
}

/** Each step's server figures over its own span of the run (`series`: the run's, from runSeries). */
export function stepFiguresOf(steps: readonly Step[], series: readonly MetricSeries[], engine: ServerEngine): StepFigures[] {
  return steps.map((step) => {
    const window = stepWindow(step);
    // Each repeat of a step has its own span on the run's clock, so its own row, named apart.
    return { name: stepLabel(step), figures: window ? stepServerFigures(series, window, engine) : null };
  });
}

/** A server and a client figure this far apart (a share of the client's) are said to differ. */
const TOKEN_RATE_DIFFERENCE = 0.1;

/**
 * Why the server's tokens/s of a step may differ from the client's output tokens/s: the server's is
 * its counter's increase between two scrapes, which start up to one interval before the step and
 * end up to one interval before its end, so over a step not much longer than the interval it spans
 * another stretch of time than the client's (first send to last end); and it counts the warm-up
 * requests the client leaves out. A step whose two figures differ by more than that allows is said
 * apart, with the reasons that remain. The run's own cross-check (its whole count) is said too: that
 * it ran and agreed, or that it could not.
 */
export function tokenRateNotes(doc: Pick<ResultDocument, 'steps' | 'serverMetrics' | 'tokenCrossCheck'>, figures: readonly StepFigures[], t: Translate = english): string[] {
  const intervalSec = (doc.serverMetrics?.intervalMs ?? 1000) / 1000;
  const explained: string[] = [];
  const unexplained: string[] = [];
  doc.steps.forEach((step, i) => {
    const server = figures[i]?.figures?.generatedTokensPerSecond;
    const client = step.summary?.outputTokensPerSecond;
    const window = stepWindow(step);
    if (typeof server !== 'number' || !client || client <= 0 || window === null) return;
    const difference = Math.abs(server - client) / client;
    if (difference <= TOKEN_RATE_DIFFERENCE) return;
    const lengthSec = (window.endMs - window.startMs) / 1000;
    // Up to one interval of time too many or too few at each end of the step.
    const granularity = lengthSec > 0 ? (2 * intervalSec) / lengthSec : Infinity;
    const text = t('{0} ({1} against {2} over {3})', stepLabel(step), fixed(server, 0), fixed(client, 0), formatSeconds(lengthSec, 1, t));
    (difference <= granularity + TOKEN_RATE_DIFFERENCE ? explained : unexplained).push(text);
  });
  const every = formatSeconds(intervalSec, intervalSec % 1 === 0 ? 0 : 1, t);
  const notes: string[] = [];
  if (explained.length) {
    notes.push(
      t("Server tok/s differs from the client's output tok/s in {0}: /metrics is read every {1}, so the server's figure is its counter's increase over scrapes that can start up to {1} before a step and end up to {1} before its end, and it counts the warm-up requests; over steps this short the two do not compare. The run's cross-check below compares the whole run's counts.", explained.join(', '), every),
    );
  }
  if (unexplained.length) {
    notes.push(
      t("Server tok/s differs from the client's output tok/s in {0}, by more than scrapes every {1} explain: the server also counts warm-up requests and any other client's, and an engine that counts a request's tokens only when it finishes (TGI) lags the client.", unexplained.join(', '), every),
    );
  }
  const check = doc.tokenCrossCheck;
  if (check) {
    const count = formatCount;
    const client =
      check.clientTokensAtMost === check.clientTokens
        ? count(check.clientTokens)
        : check.clientTokensAtMost === null
          ? t('at least {0} (some counts are estimates, unbounded above)', count(check.clientTokens))
          : t('between {0} and {1} (some counts are estimates)', count(check.clientTokens), count(check.clientTokensAtMost));
    notes.push(
      check.agree
        ? t('Token cross-check over the whole run: the server counted {0} generated tokens, the client received {1} (warm-up and failed requests included): they agree within {2}.', count(check.serverTokens), client, count(check.tolerance))
        : t('Token cross-check over the whole run: the server counted {0} generated tokens, the client received {1} (warm-up and failed requests included): they disagree (see the warning above).', count(check.serverTokens), client),
    );
  } else if (figures.some((f) => typeof f.figures?.generatedTokensPerSecond === 'number')) {
    notes.push(t('No token cross-check in this file: the run was cut short, /metrics was not read after its last request, or it predates the check.'));
  }
  return notes;
}

/** Where each step began on the run's clock, in seconds: the marks of the charts over time, named as the tables name the step (its repeat too). */
export function stepMarkers(steps: readonly Pick<Step, 'name' | 'repeat' | 'startMs'>[]): { x: number; label: string }[] {
  return steps.flatMap((step) => (step.startMs === undefined ? [] : [{ x: step.startMs / 1000, label: stepLabel(step) }]));
}

/** "vLLM metrics from http://…/metrics every 1 s". */
export function serverSourceText(doc: Pick<ResultDocument, 'serverMetrics'>, engine: ServerEngine, t: Translate = english): string {
  const info = doc.serverMetrics;
  if (!info) return t('{0} metrics', ENGINE_NAMES[engine]);
  const every = info.intervalMs % 1000 === 0 ? `${info.intervalMs / 1000} s` : `${info.intervalMs} ms`;
  return engine === 'unknown' ? t('Metrics from {0}, scraped every {1}', info.url, every) : t('{0} metrics from {1}, scraped every {2}', ENGINE_NAMES[engine], info.url, every);
}

/** A moment of a run the report marks: when, and in which step. */
export interface RunMark {
  atSec: number;
  step: string | null;
}

/** A mark: where it happened, `never` when no scrape saw it, null when the engine did not say (no such metric, or none scraped). */
export type MarkState = RunMark | 'never' | null;

export interface ServerMarks {
  kvCacheFull: MarkState;
  queueing: MarkState;
}

/**
 * Where a run's KV cache first reached KV_CACHE_FULL, and where waiting requests first stayed
 * above zero in every scrape for QUEUE_HELD_MS, in two scrapes at least: a request waits for the
 * scheduler's next step as it arrives, so frequent scrapes see bursts that are not a queue.
 */
export function serverMarks(doc: ResultDocument): ServerMarks {
  const series = runSeries(doc);
  const common = commonSeries(series, engineOf(doc, series));
  const intervalMs = doc.serverMetrics?.intervalMs ?? 1000;
  const mark = (points: readonly ServerPoint[] | undefined, find: (points: readonly ServerPoint[]) => number | null): MarkState => {
    if (!points || points.length === 0) return null;
    const tMs = find(points);
    if (tMs === null) return 'never';
    const index = stepAt(doc.steps, tMs);
    return { atSec: tMs / 1000, step: index === null ? null : (doc.steps[index]?.name ?? null) };
  };
  return {
    kvCacheFull: mark(common.kvCacheUsage, (points) => firstReached(points, KV_CACHE_FULL)),
    // Held for QUEUE_HELD_MS, and in two scrapes at least: scrapes are an interval apart, give or take the scraper's jitter.
    queueing: mark(common.waitingRequests, (points) => firstSustainedAbove(points, 0, Math.max(QUEUE_HELD_MS, intervalMs) - intervalMs / 2)),
  };
}

/**
 * A mark as a table cell: "concurrency@16 at 42.0 s"; "not seen" when no scrape caught it (a step
 * shorter than two scrape intervals can hide a queue); n/a when the server did not say.
 */
export function markText(mark: MarkState | undefined, t: Translate = english): string {
  if (mark === null || mark === undefined) return NOT_AVAILABLE;
  if (mark === 'never') return t('not seen');
  return t('{0} at {1}', mark.step ?? t('between steps'), formatSeconds(mark.atSec, 1, t));
}
