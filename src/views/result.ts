/**
 * Result document -> what the result view (and, through src/views/compare.ts, compare) draws. Pure (no `vscode`), so it is unit
 * tested and benchmarked on its own. The host runs it and sends the webview only aggregates:
 * a step's thousands of request records become a table row, a few chart points and a
 * fixed-size distribution curve.
 */
import type { ReadResult } from '../results/read-result';
import { latencySamples, quantileOfSorted, quantileRanks } from '../results/stats';
import type {
  ChartSeries,
  ViewChart,
  ResultView,
  RunSummary,
  ServerSection,
  StepRow,
  XAxis,
} from '../format/messages/result';
import { METRICS, metricTitle, type MetricKey } from '../format/metrics';
import { stepLabel } from '../format/step-name';
import { wantsLogAxis } from './axis';
import { formatMetric } from './number-format';
import { hasRepeats, repeatRows } from './repeats';
import { turnCharts } from './turns';
import type { ResultDocument, Step, StepSummary } from '../format/result';
import { ENGINE_NAMES, serverLinesOf, serverSourceText, serverTable, serverTimeCharts, stepFiguresOf, stepMarkers } from './server-views';
import { commonSeries, engineOf, runSeries } from './server-quantities';

/** Points per distribution curve, whatever the number of requests. */
const DISTRIBUTION_POINTS = 51;

/** `axis`: the load axis to draw against, when the caller shares one between runs (compare); else chosen from the steps. */
export function buildResultView({ document: doc, unfinishedSteps }: ReadResult, fileName: string, axis?: XAxis): ResultView {
  const notes = unfinishedSteps.map((index) => {
    const step = doc.steps[index]!;
    return `Step "${step.name}" did not finish: its figures are computed from the ${step.requests.length} requests recorded so far.`;
  });
  if (doc.importedFrom) notes.push(...doc.importedFrom.notes);
  notes.push(...definitionNotes(doc.steps), ...unreachedConcurrencyNotes(doc.steps));
  const xAxis = axis ?? chooseXAxis(doc.steps);
  // The reader gave every step a summary (unfinished ones from their records).
  const rows = doc.steps.map((step, i) => stepRow(step, step.summary as StepSummary, xAxis, unfinishedSteps.includes(i)));
  return {
    summary: runSummary(doc, fileName),
    xAxis,
    rows,
    ...(hasRepeats(doc.steps) ? { repeats: repeatRows(rows) } : {}),
    charts: [...loadCharts(rows, xAxis), ...turnCharts(doc.steps), ...distributionCharts(doc.steps)],
    notes,
    warnings: [...(doc.warnings ?? []), ...stepWarningNotes(doc.steps)],
    server: serverSection(doc),
  };
}

/**
 * The server's figures per step and its charts over the run's time, with a mark where each step
 * began; null when the run recorded no server metrics (scraping off, an older or imported file).
 */
export function serverSection(doc: ResultDocument): ServerSection | null {
  const series = runSeries(doc);
  if (!doc.serverMetrics && series.length === 0) return null;
  const engine = engineOf(doc, series);
  const source = serverSourceText(doc, engine);
  const { charts, missing } = serverTimeCharts(serverLinesOf(commonSeries(series, engine)));
  if (charts.length === 0) {
    const why = series.some((s) => s.source === 'server') ? 'none of the metrics LLM Bench reads was among them' : 'no sample was scraped (see the warnings above)';
    return { source, table: { columns: [], rows: [] }, charts: [], notes: [`No server figures: ${why}.`] };
  }
  const steps = stepFiguresOf(doc.steps, series, engine);
  const unplaced = steps.filter((step) => step.figures === null).map((step) => step.name);
  const notes = [
    ...(missing.length ? [`${ENGINE_NAMES[engine]} does not export: ${missing.join(', ')}.`] : []),
    ...(unplaced.length ? [`No span on the run's clock for: ${unplaced.join(', ')} (the file predates it).`] : []),
  ];
  const markers = stepMarkers(doc.steps);
  // One time range for every chart over run time, drawn side by side: the last moment any of them has.
  const end = Math.max(0, ...charts.flatMap((c) => c.lines.flatMap((line) => line.points.map(([t]) => t))));
  return {
    source,
    table: serverTable(steps),
    charts: charts.map((c) => ({
      ...chart(c.id, null, c.title, 'Run time (s)', c.lines.map((line) => ({ label: line.label, points: line.points, colorIndex: typeof line.color === 'number' ? line.color : 0, ...(line.dashed ? { dashed: true } : {}) })), c.yTitle),
      timeAxis: true,
      xMax: end,
      ...(c.yMax !== undefined ? { yMax: c.yMax } : {}),
      ...(markers.length ? { markers } : {}),
    })),
    notes,
  };
}

/** Below this share of its level, a concurrency step is said not to have reached it. */
const REACHED_CONCURRENCY = 0.75;

/**
 * A concurrency step whose requests in flight stayed well below its level (too few requests for
 * it, a slow ramp, failures) measured a lighter load than its name says; its point sits where it was.
 */
function unreachedConcurrencyNotes(steps: Step[]): string[] {
  return steps.flatMap((step) => {
    const level = step.profile.kind === 'concurrency' ? step.profile.concurrency : undefined;
    const mean = step.summary?.achievedConcurrency;
    if (level === undefined || mean === null || mean === undefined || mean >= REACHED_CONCURRENCY * level) return [];
    const requests = step.summary?.requests.total ?? step.requests.length;
    return [`Step "${step.name}" averaged ${formatMetric('achievedConcurrency', mean)} requests in flight, not ${level}: with ${requests} requests it spent much of its time filling up and draining. Raise the requests per step to measure this level; its points are drawn at ${formatMetric('achievedConcurrency', mean)}.`];
  });
}

/** Statistics stored under another tool's definition (`Stats.definition`, e.g. GuideLLM 0.4+'s TPOT), one note per metric and definition. */
export function definitionNotes(steps: Step[]): string[] {
  const stepsByNote = new Map<string, string[]>();
  for (const step of steps) {
    for (const metric of ['latencyMs', 'ttftMs', 'itlMs', 'tpotMs'] as const) {
      const definition = step.summary?.[metric]?.definition;
      if (!definition) continue;
      const note = `${METRICS[metric].label} is not as defined here: ${definition}`;
      stepsByNote.set(note, [...(stepsByNote.get(note) ?? []), step.name]);
    }
  }
  return [...stepsByNote].map(([note, names]) => `${note} (steps: ${names.join(', ')})`);
}

/**
 * The steps' warnings (the client was the limit, docs/metrics.md), one line each with the step's
 * label: what every view and export says beside the figures they doubt.
 */
export function stepWarningNotes(steps: readonly Pick<Step, 'name' | 'repeat' | 'warnings'>[]): string[] {
  return steps.flatMap((step) => (step.warnings ?? []).map((warning) => `${stepLabel(step)}: ${warning.message}`));
}

/** "4 (asked for 4)": the run's workers, for its summary; null for a file that does not say. */
export function workersText(doc: Pick<ResultDocument, 'workers'>): string | null {
  return doc.workers ? `${doc.workers.count} (${doc.workers.reason})` : null;
}

function runSummary(doc: ResultDocument, fileName: string): RunSummary {
  const imported = doc.importedFrom;
  return {
    fileName,
    model: doc.endpoint.model,
    baseUrl: doc.endpoint.baseUrl,
    api: doc.endpoint.api,
    status: doc.status,
    statusReason: doc.statusReason ?? null,
    createdAt: doc.createdAt,
    finishedAt: doc.finishedAt ?? null,
    tool: doc.tool.version === 'unknown' ? doc.tool.name : `${doc.tool.name} ${doc.tool.version}`,
    importedFrom: imported
      ? `${imported.tool} ${imported.version ?? '(version not recorded)'}, from ${imported.file}${imported.lines ? ` lines ${imported.lines.first}-${imported.lines.last}` : ''}`
      : null,
    labels: Object.entries(doc.labels),
    workers: workersText(doc),
    config: JSON.stringify(doc.config, null, 2),
  };
}

/**
 * Closed-loop runs (synchronous and fixed concurrencies) are drawn against concurrency; anything
 * with an open-loop or unbounded step against the request rate, as GuideLLM plots sweeps. Either
 * way each step sits at the load it achieved, never at one it was offered and did not reach.
 */
export function chooseXAxis(steps: Step[]): XAxis {
  const closedLoop = steps.length > 0 && steps.every((s) => s.profile.kind === 'synchronous' || s.profile.kind === 'concurrency');
  return closedLoop
    ? { kind: 'concurrency', label: 'Concurrency (measured mean in flight)' }
    : { kind: 'rate', label: 'Achieved request rate (req/s)' };
}

function stepX(step: Step, summary: StepSummary, axis: XAxis): number | null {
  if (axis.kind === 'rate') return summary.requestsPerSecond;
  // Imported runs may lack the measured concurrency: their configured one is all there is.
  return summary.achievedConcurrency ?? (step.profile.kind === 'synchronous' ? 1 : (step.profile.concurrency ?? null));
}

/** A step as a row of the result view's tables (and the HTML export's step tables). */
export function stepRow(step: Step, summary: StepSummary, axis: XAxis, unfinished: boolean): StepRow {
  return {
    name: step.name,
    ...(step.repeat !== undefined ? { repeat: step.repeat } : {}),
    x: stepX(step, summary, axis),
    partial: unfinished,
    requestsPerSecond: summary.requestsPerSecond,
    outputTokensPerSecond: summary.outputTokensPerSecond,
    latencyMs: summary.latencyMs,
    ttftMs: summary.ttftMs,
    itlMs: summary.itlMs,
    tpotMs: summary.tpotMs,
    completed: summary.requests.completed,
    failed: summary.requests.failed,
    total: summary.requests.total,
    errors: Object.entries(summary.errors).filter(([, n]) => n > 0),
  };
}

export type RowValue = (row: StepRow) => number | null | undefined;

/** [x, y] for each row that has both, sorted by x (a sweep may measure rates out of order). */
export function pointsOf(rows: StepRow[], value: RowValue): [number, number][] {
  const points: [number, number][] = [];
  for (const row of rows) {
    const y = value(row);
    if (row.x !== null && typeof y === 'number' && Number.isFinite(y)) points.push([row.x, y]);
  }
  return points.sort((p, q) => p[0] - q[0]);
}

type StatsMetric = 'latencyMs' | 'ttftMs' | 'itlMs';

/**
 * p50, p90 and p99 of one metric, the upper two shading the band to the one below; each
 * percentile in its own colour (the palette's first three, as the live panel draws them) and dash.
 */
function percentileBand(rows: StepRow[], metric: StatsMetric): ChartSeries[] {
  const band = (['p50', 'p90', 'p99'] as const).map((p, i) => ({
    label: p,
    points: pointsOf(rows, (r) => r[metric]?.[p]),
    colorIndex: i,
    percentile: p,
    fillToPrevious: i > 0,
  }));
  return band.filter((s) => s.points.length > 0);
}

export function chart(id: string, metric: MetricKey | null, title: string, xLabel: string, series: ChartSeries[], yLabel?: string): ViewChart {
  return { id, title, metric, xLabel, yLabel: yLabel ?? (metric ? metricTitle(metric) : ''), series };
}

function loadCharts(rows: StepRow[], axis: XAxis): ViewChart[] {
  const simple = (metric: MetricKey, value: RowValue, colorIndex: number) => [
    { label: METRICS[metric].label, points: pointsOf(rows, value), colorIndex },
  ];
  const xLog = wantsLogAxis(rows.map((r) => r.x));
  const charts = [
    chart('output-throughput', 'outputTokensPerSecond', 'Output tokens per second', axis.label, simple('outputTokensPerSecond', (r) => r.outputTokensPerSecond, 0)),
    chart('requests', 'requestsPerSecond', 'Requests per second', axis.label, simple('requestsPerSecond', (r) => r.requestsPerSecond, 1)),
    chart('latency', 'latencyMs', 'Latency percentiles', axis.label, percentileBand(rows, 'latencyMs')),
    chart('ttft', 'ttftMs', 'TTFT percentiles', axis.label, percentileBand(rows, 'ttftMs')),
    chart('itl', 'itlMs', 'ITL percentiles', axis.label, percentileBand(rows, 'itlMs')),
  ];
  return xLog ? charts.map((c) => ({ ...c, xLog })) : charts;
}

/**
 * The cumulative distribution as [value, percent of samples at or below it], at fixed quantiles by
 * the one percentile rule (src/results/stats.ts), so the curve passes through the table's p50 and
 * p99: the values a sort would put at the ranks each quantile reads, found without sorting (a big
 * run's chunk gaps are a quarter of a million per step, and sorting them was most of building its view).
 */
export function distributionCurve(samples: readonly number[], points = DISTRIBUTION_POINTS): [number, number][] {
  if (samples.length === 0) return [];
  const values = Float64Array.from(samples);
  const quantiles = Array.from({ length: points }, (_, i) => i / (points - 1));
  const ranks = new Set<number>();
  for (const q of quantiles) {
    const { below, above } = quantileRanks(values.length, q);
    ranks.add(below).add(above);
  }
  placeRanks(values, [...ranks].sort((a, b) => a - b), 0, values.length - 1);
  return quantiles.map((q) => [quantileOfSorted(values, q), q * 100]);
}

/**
 * Reorders values[lo..hi] so that each of `ranks` (ascending, within lo..hi) holds the value a
 * sort would put there: select the middle rank, then the ranks on either side within their half.
 */
function placeRanks(values: Float64Array, ranks: number[], lo: number, hi: number): void {
  if (ranks.length === 0) return;
  const middle = ranks.length >> 1;
  const rank = ranks[middle] as number;
  selectRank(values, rank, lo, hi);
  placeRanks(values, ranks.slice(0, middle), lo, rank - 1);
  placeRanks(values, ranks.slice(middle + 1), rank + 1, hi);
}

/**
 * Quickselect (Hoare partitioning): afterwards values[rank] is the value a sort would put there,
 * with nothing larger before it and nothing smaller after it. The pivot is random so that no
 * file's order of values can make it quadratic.
 */
function selectRank(values: Float64Array, rank: number, lo: number, hi: number): void {
  while (lo < hi) {
    const pivot = values[lo + Math.floor(Math.random() * (hi - lo + 1))] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const swapped = values[i] as number;
        values[i++] = values[j] as number;
        values[j--] = swapped;
      }
    }
    // values[lo..j] <= pivot <= values[i..hi], and everything between equals the pivot.
    if (rank <= j) hi = j;
    else if (rank >= i) lo = i;
    else return;
  }
}

function distributionCharts(steps: Step[]): ViewChart[] {
  const ttft: ChartSeries[] = [];
  const itl: ChartSeries[] = [];
  steps.forEach((step, i) => {
    const samples = latencySamples(step.requests);
    const add = (list: ChartSeries[], values: number[]) => {
      const points = distributionCurve(values);
      if (points.length > 0) list.push({ label: step.name, points, colorIndex: i });
    };
    add(ttft, samples.ttft);
    add(itl, samples.itl);
  });
  const share = 'Share of requests (%)';
  // A cumulative share ends at 100%: no headroom above it.
  return [
    { ...chart('ttft-distribution', 'ttftMs', 'TTFT distribution (cumulative)', metricTitle('ttftMs'), ttft, share), yMax: 100 },
    { ...chart('itl-distribution', 'itlMs', 'ITL distribution (cumulative)', metricTitle('itlMs'), itl, 'Share of chunk gaps (%)'), yMax: 100 },
  ];
}

/** Largest y (and x) over a chart's series; 0 for an empty chart. */
function extent(spec: ViewChart, axis: 0 | 1): number {
  let max = 0;
  for (const s of spec.series) for (const p of s.points) max = Math.max(max, p[axis]);
  return max;
}

/**
 * Gives charts with the same id in both views the same axis maxima, so two runs shown side by
 * side read on the same scale. Returns new views; the inputs are not changed.
 */
export function alignAxes(a: ResultView, b: ResultView): [ResultView, ResultView] {
  const limits = new Map<string, { xMax: number; yMax: number; xLog: boolean; loads: number[] }>();
  const loadLabels = new Set([a.xAxis.label, b.xAxis.label]);
  for (const spec of [...a.charts, ...b.charts]) {
    const seen = limits.get(spec.id) ?? { xMax: 0, yMax: 0, xLog: false, loads: [] };
    // A load axis follows the one rule over both runs' loads: 1-4 and 8-16 together span 16.
    const loads = loadLabels.has(spec.xLabel) ? [...seen.loads, ...spec.series.flatMap((series) => series.points.map(([x]) => x))] : seen.loads;
    limits.set(spec.id, {
      xMax: Math.max(seen.xMax, extent(spec, 0)),
      // A chart's own ceiling (KV-cache usage at 100%) holds for both.
      yMax: Math.max(seen.yMax, spec.yMax ?? 0, extent(spec, 1)),
      xLog: seen.xLog || spec.xLog === true || wantsLogAxis(loads),
      loads,
    });
  }
  const apply = (view: ResultView): ResultView => ({
    ...view,
    charts: view.charts.map((spec) => {
      const limit = limits.get(spec.id);
      if (!limit || limit.yMax <= 0) return spec;
      return { ...spec, xMax: limit.xMax, yMax: limit.yMax, ...(limit.xLog ? { xLog: true } : {}) };
    }),
  });
  return [apply(a), apply(b)];
}
