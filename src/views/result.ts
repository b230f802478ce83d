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
import { wantsLogAxis } from './axis';
import { formatMetric, NOT_AVAILABLE } from './number-format';
import { groupByName, hasRepeats, meanInterval, repeatRows } from './repeats';
import { stepLabel } from '../format/step-name';
import { turnCharts } from './turns';
import { readableError, runFailure } from './failure';
import type { ResultDocument, Step, StepSummary } from '../format/result';
import { ENGINE_NAMES, serverLinesOf, serverSourceText, serverTable, serverTimeCharts, stepFiguresOf, stepMarkers, tokenRateNotes } from './server-views';
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
  const failure = runFailure(doc);
  // The reader gave every step a summary (unfinished ones from their records).
  const rows = doc.steps.map((step, i) => stepRow(step, step.summary as StepSummary, xAxis, unfinishedSteps.includes(i)));
  const figures = oneLoadFigures(rows, xAxis, doc.steps.every((step) => typeof step.summary?.achievedConcurrency === 'number'));
  return {
    summary: runSummary(doc, fileName),
    xAxis,
    rows,
    ...(hasRepeats(doc.steps) ? { repeats: repeatRows(rows) } : {}),
    // A run that measured nothing has only zeros to chart: its failure is said instead.
    // One load has one point a chart: its figures go in a card instead.
    charts: failure ? [] : [...(figures ? [] : loadCharts(rows, xAxis)), ...turnCharts(doc.steps), ...distributionCharts(doc.steps)],
    notes,
    warnings: doc.warnings ?? [],
    server: serverSection(doc),
    figures: failure ? null : figures,
    failure,
  };
}

/** The figures of a run of one load, as a card: the step table's main figures (the mean across repeats when it repeated). */
function oneLoadFigures(rows: StepRow[], xAxis: XAxis, measuredLoad: boolean): NonNullable<ResultView['figures']> | null {
  const groups = groupByName(rows);
  if (groups.length !== 1) return null;
  const [name, group] = groups[0]!;
  const mean = (value: RowValue) =>
    meanInterval(
      group.flatMap((row) => {
        const v = value(row);
        return typeof v === 'number' && Number.isFinite(v) ? [v] : [];
      }),
    );
  const figure = (metric: MetricKey, label: string, value: RowValue) => {
    const m = mean(value);
    const spread = m?.halfWidth !== null && m?.halfWidth !== undefined ? ` \u00b1 ${formatMetric(metric, m.halfWidth)}` : '';
    return { label, value: `${formatMetric(metric, m?.mean)}${spread}`, unit: METRICS[metric].unit };
  };
  // An imported run may give means where ours give medians: each figure says which it is.
  const stat = (metric: 'ttftMs' | 'tpotMs' | 'latencyMs', p: 'p50' | 'p99') => {
    const has = (key: 'p50' | 'p99' | 'mean') => group.some((row) => typeof row[metric]?.[key] === 'number');
    const key = has(p) ? p : p === 'p50' && has('mean') ? 'mean' : p;
    return figure(metric, `${METRICS[metric].label} ${key}`, (row) => row[metric]?.[key]);
  };
  const x = mean((row) => row.x);
  const at = x === null ? '' : xAxis.kind === 'rate' ? `, at ${formatMetric('requestsPerSecond', x.mean)} req/s achieved` : `, at ${measuredLoad ? formatMetric('achievedConcurrency', x.mean) : String(x.mean)} in flight (${measuredLoad ? 'measured mean' : 'configured: the file has no measured concurrency'})`;
  return {
    load: `${name}${group.length > 1 ? ` (mean of ${group.length} repeats)` : ''}${at}`,
    items: [
      figure('outputTokensPerSecond', 'Output tokens per second', (r) => r.outputTokensPerSecond),
      figure('requestsPerSecond', 'Requests per second', (r) => r.requestsPerSecond),
      stat('ttftMs', 'p50'),
      stat('ttftMs', 'p99'),
      stat('tpotMs', 'p50'),
      stat('latencyMs', 'p50'),
      stat('latencyMs', 'p99'),
    ].filter((item) => !item.value.startsWith(NOT_AVAILABLE)),
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
    ...tokenRateNotes(doc, steps),
  ];
  const markers = stepMarkers(doc.steps);
  return {
    source,
    table: serverTable(steps),
    charts: charts.map((c) => ({
      ...chart(c.id, null, c.title, 'Run time (s)', c.lines.map((line) => ({ label: line.label, points: line.points, colorIndex: typeof line.color === 'number' ? line.color : 0, ...(line.dashed ? { dashed: true } : {}) })), c.yTitle),
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
 * it, a slow ramp) measured a lighter load than its name says; its point sits where it was. Said
 * once per step name: a run with repeats names the repeats that fell short. A step where nothing
 * completed is left to the failure's own words (more requests would not help it).
 */
function unreachedConcurrencyNotes(steps: Step[]): string[] {
  const short = steps.flatMap((step) => {
    const level = step.profile.kind === 'concurrency' ? step.profile.concurrency : undefined;
    const mean = step.summary?.achievedConcurrency;
    if (level === undefined || mean === null || mean === undefined || mean >= REACHED_CONCURRENCY * level) return [];
    if ((step.summary?.requests.completed ?? 0) === 0) return [];
    return [{ step, level, mean, requests: step.summary?.requests.total ?? step.requests.length }];
  });
  return groupByName(short.map((s) => ({ ...s, name: s.step.name }))).map(([name, group]) => {
    const first = group[0]!;
    const means = group.map((s) => formatMetric('achievedConcurrency', s.mean));
    const repeated = group.some((s) => s.step.repeat !== undefined);
    const which = repeated ? ` in repeat${group.length === 1 ? '' : 's'} ${group.map((s) => `#${(s.step.repeat ?? 0) + 1}`).join(', ')}` : '';
    const requests = [...new Set(group.map((s) => s.requests))].join(' or ');
    return `Step "${name}" averaged ${means.join(', ')} requests in flight${which}, not ${first.level}: with ${requests} requests it spent much of its time filling up and draining. Raise the requests per step to measure this level; its points are drawn where they were measured.`;
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
 * A time a file states, or null when it does not know it: an imported file whose tool kept no start
 * time says the epoch (1970-01-01) or something that is not a time at all.
 */
export function knownTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms > 0 ? iso : null;
}

function runSummary(doc: ResultDocument, fileName: string): RunSummary {
  const imported = doc.importedFrom;
  const reason = doc.statusReason ? readableError(doc.statusReason) : null;
  return {
    fileName,
    model: doc.endpoint.model,
    baseUrl: doc.endpoint.baseUrl,
    api: doc.endpoint.api,
    status: doc.status,
    statusReason: reason?.text ?? null,
    statusDetails: reason?.details ?? null,
    createdAt: knownTime(doc.createdAt),
    finishedAt: knownTime(doc.finishedAt),
    tool: doc.tool.version === 'unknown' ? doc.tool.name : `${doc.tool.name} ${doc.tool.version}`,
    importedFrom: imported
      ? `${imported.tool} ${imported.version ?? '(version not recorded)'}, from ${imported.file}${imported.lines ? ` lines ${imported.lines.first}-${imported.lines.last}` : ''}`
      : null,
    labels: Object.entries(doc.labels),
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
  if (!closedLoop) return { kind: 'rate', label: 'Achieved request rate (req/s)' };
  // The axis says what it holds: an imported step without a measured concurrency sits at its configured one.
  const measured = steps.filter((s) => typeof s.summary?.achievedConcurrency === 'number').length;
  const holds = measured === steps.length ? 'measured mean in flight' : measured === 0 ? 'configured' : 'measured mean in flight, else configured';
  return { kind: 'concurrency', label: `Concurrency (${holds})` };
}

function stepX(step: Step, summary: StepSummary, axis: XAxis): number | null {
  if (axis.kind === 'rate') return summary.requestsPerSecond;
  // Imported runs may lack the measured concurrency: their configured one is all there is.
  return summary.achievedConcurrency ?? (step.profile.kind === 'synchronous' ? 1 : (step.profile.concurrency ?? null));
}

function stepRow(step: Step, summary: StepSummary, axis: XAxis, unfinished: boolean): StepRow {
  return {
    name: step.name,
    ...(step.sourceName !== undefined ? { sourceName: step.sourceName } : {}),
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

type StatsMetric = 'latencyMs' | 'ttftMs' | 'itlMs';

/** How a load curve is drawn: its legend name and colour, and what tells it from another run's on the same chart. */
export interface LoadStyle {
  label: string;
  colorIndex: number;
  percentile?: 'p50' | 'p90' | 'p99';
  dashed?: boolean;
  pointStyle?: 'circle' | 'triangle' | 'rect';
}

/** Each row that has a value, at its x, with its step's label; sorted by x. */
function placedRows(rows: StepRow[], value: RowValue): { x: number; y: number; label: string }[] {
  return rows
    .flatMap((row) => {
      const y = value(row);
      return row.x !== null && typeof y === 'number' && Number.isFinite(y) ? [{ x: row.x, y, label: stepLabel(row) }] : [];
    })
    .sort((p, q) => p.x - q.x);
}

/**
 * One curve of a load chart. A run that repeated its profile is drawn as what it measured: one point
 * per step at the mean across its repeats (at the mean load they reached), the 95% interval of that
 * mean as a band (the same numbers as the table across repeats), and each repeat's own point, faint,
 * for the view's toggle; never one line zig-zagging through every repeat. Every point names its step.
 */
export function loadSeries(rows: StepRow[], value: RowValue, style: LoadStyle, metric: MetricKey): ChartSeries[] {
  const placed = placedRows(rows, value);
  const marks = { colorIndex: style.colorIndex, ...(style.pointStyle ? { pointStyle: style.pointStyle } : {}) };
  const own = { ...marks, ...(style.dashed ? { dashed: true } : {}), ...(style.percentile ? { percentile: style.percentile } : {}) };
  if (!hasRepeats(rows)) return [{ label: style.label, points: placed.map((p): [number, number] => [p.x, p.y]), pointLabels: placed.map((p) => p.label), ...own }];
  const steps = groupByName(rows)
    .flatMap(([name, group]) => {
      const x = meanInterval(group.flatMap((row) => (row.x === null ? [] : [row.x])));
      const y = meanInterval(group.flatMap((row) => {
        const v = value(row);
        return typeof v === 'number' && Number.isFinite(v) ? [v] : [];
      }));
      return x && y ? [{ name, x: x.mean, y }] : [];
    })
    .sort((p, q) => p.x - q.x);
  const withInterval = steps.filter((step) => step.y.halfWidth !== null);
  const edge = (sign: 1 | -1) => withInterval.map((step): [number, number] => [step.x, step.y.mean + sign * (step.y.halfWidth ?? 0)]);
  const band: ChartSeries[] = withInterval.length
    ? [
        { label: `${style.label} 95% interval (low)`, points: edge(-1), colorIndex: style.colorIndex, bandEdge: true },
        { label: `${style.label} 95% interval`, points: edge(1), colorIndex: style.colorIndex, bandEdge: true, fillToPrevious: true },
      ]
    : [];
  return [
    ...band,
    {
      label: `${style.label} (mean of repeats)`,
      points: steps.map((step): [number, number] => [step.x, step.y.mean]),
      pointLabels: steps.map((step) => `${step.name}: mean of ${step.y.n} repeat${step.y.n === 1 ? '' : 's'}`),
      pointNotes: steps.map((step) => (step.y.halfWidth === null ? 'one repeat: no interval' : `95% interval \u00b1 ${formatMetric(metric, step.y.halfWidth)}`)),
      ...own,
    },
    { label: `${style.label}, each repeat`, points: placed.map((p): [number, number] => [p.x, p.y]), pointLabels: placed.map((p) => p.label), eachRepeat: true, ...marks },
  ];
}

/**
 * p50, p90 and p99 of one metric, the upper two shading the band to the one below; for a run with
 * repeats, p50 and p99 each as the mean across repeats with its interval (three bands would cover each other).
 */
function percentileBand(rows: StepRow[], metric: StatsMetric, colorIndex: number, prefix = ''): ChartSeries[] {
  if (hasRepeats(rows)) {
    return (['p50', 'p99'] as const).flatMap((p) => loadSeries(rows, (r) => r[metric]?.[p], { label: `${prefix}${p}`, colorIndex, percentile: p }, metric)).filter((s) => s.points.length > 0);
  }
  const band = (['p50', 'p90', 'p99'] as const).map((p, i) => ({
    ...loadSeries(rows, (r) => r[metric]?.[p], { label: `${prefix}${p}`, colorIndex, percentile: p }, metric)[0]!,
    fillToPrevious: i > 0,
  }));
  return band.filter((s) => s.points.length > 0);
}

export function chart(id: string, metric: MetricKey | null, title: string, xLabel: string, series: ChartSeries[], yLabel?: string): ViewChart {
  return { id, title, metric, xLabel, yLabel: yLabel ?? (metric ? metricTitle(metric) : ''), series };
}

function loadCharts(rows: StepRow[], axis: XAxis): ViewChart[] {
  const simple = (metric: MetricKey, value: RowValue, colorIndex: number) => loadSeries(rows, value, { label: METRICS[metric].label, colorIndex }, metric);
  const xLog = wantsLogAxis(rows.map((r) => r.x));
  const charts = [
    chart('output-throughput', 'outputTokensPerSecond', 'Output tokens per second', axis.label, simple('outputTokensPerSecond', (r) => r.outputTokensPerSecond, 0)),
    // Against the achieved request rate, requests per second is that same figure: a diagonal that says nothing.
    ...(axis.kind === 'rate' ? [] : [chart('requests', 'requestsPerSecond', 'Requests per second', axis.label, simple('requestsPerSecond', (r) => r.requestsPerSecond, 1))]),
    chart('latency', 'latencyMs', 'Latency percentiles', axis.label, percentileBand(rows, 'latencyMs', 2)),
    chart('ttft', 'ttftMs', 'TTFT percentiles', axis.label, percentileBand(rows, 'ttftMs', 3)),
    chart('itl', 'itlMs', 'ITL percentiles', axis.label, percentileBand(rows, 'itlMs', 4)),
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
      if (points.length > 0) list.push({ label: stepLabel(step), points, colorIndex: i });
    };
    add(ttft, samples.ttft);
    add(itl, samples.itl);
  });
  const share = 'Share of requests (%)';
  return [
    chart('ttft-distribution', 'ttftMs', 'TTFT distribution (cumulative)', metricTitle('ttftMs'), ttft, share),
    chart('itl-distribution', 'itlMs', 'ITL distribution (cumulative)', metricTitle('itlMs'), itl, 'Share of chunk gaps (%)'),
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
