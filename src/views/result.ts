/**
 * Result document -> what the result view (and, through src/views/compare.ts, compare) draws. Pure (no `vscode`), so it is unit
 * tested and benchmarked on its own. The host runs it and sends the webview only aggregates:
 * a step's thousands of request records become a table row, a few chart points and a
 * fixed-size distribution curve.
 */
import type { ReadResult } from '../results/read-result';
import { latencySamples, quantileOfSorted, quantileRanks } from '../results/stats';
import {
  rowsEmbedded,
  rowsReasoned,
  type ChartSeries,
  type ViewChart,
  type ResultView,
  type RunSummary,
  type ServerSection,
  type StepRow,
  type XAxis,
} from '../format/messages/result';
import { METRICS, metricTitle, reasoningCountNotes, type MetricKey } from '../format/metrics';
import { wantsLogAxis } from './axis';
import { formatMetric, NOT_AVAILABLE } from './number-format';
import { groupByName, hasRepeats, meanInterval, repeatRows } from './repeats';
import { turnCharts } from './turns';
import { readableError, runFailure } from './failure';
import { localCountsNotes } from './token-counts';
import { unreachedConcurrencyNotes } from './unreached-concurrency';
import { stepLabel } from '../format/step-name';
import type { ResultDocument, Step, StepSummary } from '../format/result';
import { ENGINE_NAMES, serverLinesOf, serverSourceText, serverTable, serverTimeCharts, stepFiguresOf, stepMarkers, tokenRateNotes } from './server-views';
import { commonSeries, engineOf, runSeries, seriesByEndpoint } from './server-quantities';
import { endpointName, endpointNotes, endpointTable } from './endpoint-figures';
import { isTraceStep, loadOverTime, traceNotes, traceTable } from './trace-figures';
import type { TableSection, TraceSection } from '../format/messages/result';
import { olderRatesNote, sayWarning, stepWarningLines, stepWarnings } from './step-warnings';
import { english, type Translate } from './l10n';
import { shardsSection } from './shards';

/** Points per distribution curve, whatever the number of requests. */
const DISTRIBUTION_POINTS = 51;

/**
 * `axis`: the load axis to draw against, when the caller shares one between runs (compare); else
 * chosen from the steps. `t`: the display language of what the view model words itself (its notes,
 * the run's failure, its workers), src/views/l10n.ts; the page words its headings and tables.
 */
export function buildResultView({ document: doc, unfinishedSteps }: ReadResult, fileName: string, axis?: XAxis, t: Translate = english): ResultView {
  const notes = unfinishedSteps.map((index) => {
    const step = doc.steps[index]!;
    return t('Step "{0}" did not finish: its figures are computed from the {1} requests recorded so far.', step.name, step.requests.length);
  });
  if (doc.importedFrom) notes.push(...doc.importedFrom.notes.map((note) => sayWarning(note, t)));
  const rates = olderRatesNote(doc.steps, doc.importedFrom !== undefined);
  // A step's note (how it ran other than planned) is among its warnings (step-warnings.ts), below.
  notes.push(...(rates ? [t(rates)] : []), ...definitionNotes(doc.steps, t), ...localCountsNotes(doc.steps, stepLabel, t), ...unreachedConcurrencyNotes(doc, t), ...reasoningNotes(doc.steps, t));
  const xAxis = axis ?? chooseXAxis(doc.steps);
  const failure = runFailure(doc, t);
  const imported = doc.importedFrom !== undefined;
  // The reader gave every step a summary (unfinished ones from their records).
  const rows = doc.steps.map((step, i) => stepRow(step, step.summary as StepSummary, xAxis, unfinishedSteps.includes(i), imported));
  const figures = oneLoadFigures(rows, xAxis, doc.steps.every((step) => typeof step.summary?.achievedConcurrency === 'number'), t);
  return {
    summary: runSummary(doc, fileName, t),
    xAxis,
    rows,
    ...(hasRepeats(doc.steps) ? { repeats: repeatRows(rows) } : {}),
    // A run that measured nothing has only zeros to chart: its failure is said instead.
    // One load has one point a chart: its figures go in a card instead.
    charts: failure ? [] : [...reasoningSplitCharts(rows), ...(figures ? [] : loadCharts(rows, xAxis, t)), ...turnCharts(doc.steps), ...distributionCharts(doc.steps)],
    notes,
    warnings: [...(doc.warnings ?? []), ...stepWarningLines(doc.steps.map((step) => ({ ...step, label: stepLabel(step) })), imported)],
    server: serverSection(doc, t),
    endpoints: endpointSection(doc, t),
    trace: traceSection(doc, t),
    shards: shardsSection(doc, t),
    figures: failure ? null : figures,
    failure,
  };
}

/** The figures of a run of one load, as a card: the step table's main figures (the mean across repeats when it repeated). */
function oneLoadFigures(rows: StepRow[], xAxis: XAxis, measuredLoad: boolean, t: Translate): NonNullable<ResultView['figures']> | null {
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
    return figure(metric, `${t(METRICS[metric].label)} ${key}`, (row) => row[metric]?.[key]);
  };
  const x = mean((row) => row.x);
  const at =
    x === null
      ? ''
      : xAxis.kind === 'rate'
        ? t(', at {0} req/s achieved', formatMetric('requestsPerSecond', x.mean))
        : measuredLoad
          ? t(', at {0} in flight (measured mean)', formatMetric('achievedConcurrency', x.mean))
          : t(', at {0} in flight (configured: the file has no measured concurrency)', String(x.mean));
  return {
    load: `${group.length > 1 ? t('{0} (mean of {1} repeats)', name, group.length) : name}${at}`,
    items: [
      figure('outputTokensPerSecond', t('Output tokens per second'), (r) => r.outputTokensPerSecond),
      figure('requestsPerSecond', t('Requests per second'), (r) => r.requestsPerSecond),
      stat('ttftMs', 'p50'),
      stat('ttftMs', 'p99'),
      stat('tpotMs', 'p50'),
      stat('latencyMs', 'p50'),
      stat('latencyMs', 'p99'),
    ].filter((item) => !item.value.startsWith(NOT_AVAILABLE)),
  };
}

/** Each step's figures per endpoint beside its total, and what stands out; null for a run with one endpoint. */
export function endpointSection(doc: ResultDocument, t: Translate = english): TableSection | null {
  const table = endpointTable(doc, t);
  return table === null ? null : { table, notes: endpointNotes(doc, t) };
}

/** The trace steps' lateness table, and each one's load over time, recorded against sent; null without a trace step. */
export function traceSection(doc: ResultDocument, t: Translate = english): TraceSection | null {
  const table = traceTable(doc.steps);
  if (table === null) return null;
  const charts = doc.steps.filter(isTraceStep).flatMap((step, i) => {
    const load = loadOverTime(step);
    if (load === null) return [];

    const series: ChartSeries[] = [{ label: 'recorded (scaled)', points: load.recorded, colorIndex: 1, dashed: true }];
    if (load.sent.length > 0) series.push({ label: 'sent', points: load.sent, colorIndex: 0 });
    const title = load.bucketSec === 1 ? t('{0}: recorded against sent load (requests/s per second)', stepLabel(step)) : t('{0}: recorded against sent load (requests/s per {1} s bucket)', stepLabel(step), load.bucketSec);
    return [chart(`trace-load-${i}`, null, title, 'Step time (s)', series, 'Requests/s')];
  });
  return { table, charts, notes: traceNotes(doc.steps, t) };
}

/**
 * The server's figures per step and its charts over the run's time, with a mark where each step
 * began; null when the run recorded no server metrics (scraping off, an older or imported file).
 */
export function serverSection(doc: ResultDocument, t: Translate = english): ServerSection | null {
  const series = runSeries(doc);
  if (!doc.serverMetrics && series.length === 0) return null;
  const engine = engineOf(doc, series);
  const source = serverSourceText(doc, engine, t);
  const { charts, missing } = serverTimeCharts(serverLinesOf(commonSeries(series, engine)));
  if (charts.length === 0) {
    const why = series.some((s) => s.source === 'server') ? t('No server figures: none of the metrics LLM Bench reads was among them.') : t('No server figures: no sample was scraped (see the warnings above).');
    return { source, table: { columns: [], rows: [] }, charts: [], notes: [why] };
  }
  const steps = stepFiguresOf(doc.steps, series, engine);
  const unplaced = steps.filter((step) => step.figures === null).map((step) => step.name);
  const notes = [
    ...(missing.length ? [t('{0} does not export: {1}.', ENGINE_NAMES[engine], missing.map((name) => t(name)).join(', '))] : []),
    ...(unplaced.length ? [t("No span on the run's clock for: {0} (the file predates it).", unplaced.join(', '))] : []),
    ...tokenRateNotes(doc, steps, t),
  ];
  const markers = stepMarkers(doc.steps);
  // One time range for every chart over run time, drawn side by side: the last moment any of them has.
  const end = Math.max(0, ...charts.flatMap((c) => c.lines.flatMap((line) => line.points.map(([t]) => t))));
  const viewCharts = (timeCharts: typeof charts, prefix = ''): ViewChart[] =>
    timeCharts.map((c) => ({
      ...chart(`${prefix}${c.id}`, null, c.title, 'Run time (s)', c.lines.map((line) => ({ label: line.label, points: line.points, colorIndex: typeof line.color === 'number' ? line.color : 0, ...(line.dashed ? { dashed: true } : {}) })), c.yTitle),
      timeAxis: true,
      xMax: end,
      ...(c.yMax !== undefined ? { yMax: c.yMax } : {}),
      ...(markers.length ? { markers } : {}),
    }));
  // A run over several endpoints: each replica's own figures, for the view that shows them one by one.
  const byEndpoint = seriesByEndpoint(series);
  const replicas =
    byEndpoint.length > 1
      ? byEndpoint.map(({ endpoint, series: own }) => ({
          label: doc.endpoints?.[Number(endpoint)] ? t('Endpoint {0} {1}', endpoint, doc.endpoints[Number(endpoint)]!.baseUrl) : t('Endpoint {0}', endpoint),
          table: serverTable(stepFiguresOf(doc.steps, own, engine)),
          charts: viewCharts(serverTimeCharts(serverLinesOf(commonSeries(own, engine))).charts, `replica-${endpoint}-`).map((c) => ({ ...c, title: t('Endpoint {0}: {1}', endpoint, t(c.title.replace(/^Server: /, ''))) })),
        }))
      : [];
  if (replicas.length > 0) notes.push(t('Over {0} endpoints: requests and tokens are summed over them, KV-cache usage is their mean; choose "One by one" for each endpoint\'s own.', replicas.length));
  return {
    source,
    table: serverTable(steps),
    charts: viewCharts(charts),
    notes,
    ...(replicas.length > 0 ? { replicas } : {}),
  };
}

/**
 * What a reader of reasoning figures should know that the figures do not say: token counts of the
 * reasoning made locally (a tokenizer, or the rough estimate) because the server's usage gave none;
 * thoughts the server counted but did not stream (hidden reasoning: the TTFT then holds them); a
 * reply that reasoned without streaming (no times for its phases).
 */
function reasoningNotes(steps: Step[], t: Translate): string[] {
  let estimated = 0;
  let counted = 0;
  let hidden = 0;
  for (const step of steps) {
    for (const r of step.requests) {
      const reasoning = r.reasoning;
      if (reasoning === undefined || r.warmup || r.error !== null) continue;
      if (reasoning.tokensSource === 'estimate') estimated++;
      else if (reasoning.tokensSource === 'tokenizer') counted++;
      if (reasoning.firstMs === null && reasoning.answerFirstMs !== null) hidden++;
    }
  }
  const notes = reasoningCountNotes(estimated, counted, t);
  if (hidden > 0) {
    notes.push(t('The server counted reasoning tokens in {0} responses without streaming the reasoning: their TTFT includes the time spent reasoning, and their TTFO equals it.', hidden));
  }
  return notes;
}

/** Statistics stored under another tool's definition (`Stats.definition`, e.g. GuideLLM 0.4+'s TPOT), one note per metric and definition. */
export function definitionNotes(steps: Step[], t: Translate = english): string[] {
  const stepsByNote = new Map<string, string[]>();
  for (const step of steps) {
    for (const metric of ['latencyMs', 'ttftMs', 'itlMs', 'tpotMs'] as const) {
      const definition = step.summary?.[metric]?.definition;
      if (!definition) continue;
      // The definition is the importing tool's words, stored in the file: kept as they are.
      const note = t('{0} is not as defined here: {1}', t(METRICS[metric].label), definition);
      stepsByNote.set(note, [...(stepsByNote.get(note) ?? []), step.name]);
    }
  }
  return [...stepsByNote].map(([note, names]) => t('{0} (steps: {1})', note, names.join(', ')));
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

/** "4 (asked for 4)": the run's workers, for its summary, the reason in the display language; null for a file that does not say. */
export function workersText(doc: Pick<ResultDocument, 'workers'>, t: Translate = english): string | null {
  return doc.workers ? `${doc.workers.count} (${sayWarning(doc.workers.reason, t)})` : null;
}

function runSummary(doc: ResultDocument, fileName: string, t: Translate): RunSummary {
  const imported = doc.importedFrom;
  const reason = doc.statusReason ? readableError(doc.statusReason) : null;
  // A run over several endpoints names them all: `endpoint` is only the first.
  const many = doc.endpoints !== undefined && doc.endpoints.length > 1 ? doc.endpoints : null;
  return {
    fileName,
    model: many ? [...new Set(many.map((e) => e.model))].join(', ') : doc.endpoint.model,
    baseUrl: many ? t('{0} endpoints, {1}: {2}', many.length, doc.endpointStrategy ?? 'round-robin', many.map((_, i) => endpointName(doc, i)).join(', ')) : doc.endpoint.baseUrl,
    api: doc.endpoint.api,
    status: doc.status,
    statusReason: reason?.text ?? null,
    statusDetails: reason?.details ?? null,
    createdAt: knownTime(doc.createdAt),
    finishedAt: knownTime(doc.finishedAt),
    tool: doc.tool.version === 'unknown' ? doc.tool.name : `${doc.tool.name} ${doc.tool.version}`,
    importedFrom: imported
      ? t(imported.lines ? '{0} {1}, from {2} lines {3}-{4}' : '{0} {1}, from {2}', imported.tool, imported.version ?? t('(version not recorded)'), imported.file, imported.lines?.first ?? '', imported.lines?.last ?? '')
      : null,
    labels: Object.entries(doc.labels),
    workers: workersText(doc, t),
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

/** A step as a row of the result view's tables (and the HTML export's step tables); `imported`: its file came from another tool, whose definitions its warnings keep. */
export function stepRow(step: Step, summary: StepSummary, axis: XAxis, unfinished: boolean, imported = false): StepRow {
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
    warnings: stepWarnings({ ...step, summary }, imported).map((w) => w.message),
    // Only what the step has: a step without reasoning (or embeddings) gets no empty figure.
    ...(summary.ttfoMs !== undefined ? { ttfoMs: summary.ttfoMs } : {}),
    ...(summary.reasoningMs !== undefined ? { reasoningMs: summary.reasoningMs } : {}),
    ...(summary.reasoningTokens !== undefined ? { reasoningTokens: summary.reasoningTokens } : {}),
    ...(summary.answerTokens !== undefined ? { answerTokens: summary.answerTokens } : {}),
    ...(summary.reasoningItlMs !== undefined ? { reasoningItlMs: summary.reasoningItlMs } : {}),
    ...(summary.answerItlMs !== undefined ? { answerItlMs: summary.answerItlMs } : {}),
    ...(summary.embeddingsPerSecond !== undefined ? { embeddingsPerSecond: summary.embeddingsPerSecond } : {}),
    ...(summary.inputTokensPerSecond !== undefined ? { inputTokensPerSecond: summary.inputTokensPerSecond } : {}),
    ...(summary.cancelledByDesign !== undefined ? { cancelledByDesign: summary.cancelledByDesign.requests } : {}),
  };
}

export type RowValue = (row: StepRow) => number | null | undefined;

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
export function loadSeries(rows: StepRow[], value: RowValue, style: LoadStyle, metric: MetricKey, t: Translate = english): ChartSeries[] {
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
        { label: t('{0} 95% interval (low)', t(style.label)), points: edge(-1), colorIndex: style.colorIndex, bandEdge: true },
        { label: t('{0} 95% interval', t(style.label)), points: edge(1), colorIndex: style.colorIndex, bandEdge: true, fillToPrevious: true },
      ]
    : [];
  return [
    ...band,
    {
      label: t('{0} (mean of repeats)', t(style.label)),
      points: steps.map((step): [number, number] => [step.x, step.y.mean]),
      pointLabels: steps.map((step) => t(step.y.n === 1 ? '{0}: mean of {1} repeat' : '{0}: mean of {1} repeats', step.name, step.y.n)),
      pointNotes: steps.map((step) => (step.y.halfWidth === null ? t('one repeat: no interval') : t('95% interval \u00b1 {0}', formatMetric(metric, step.y.halfWidth)))),
      ...own,
    },
    { label: t('{0}, each repeat', t(style.label)), points: placed.map((p): [number, number] => [p.x, p.y]), pointLabels: placed.map((p) => p.label), eachRepeat: true, ...marks },
  ];
}


type StatsMetric = 'latencyMs' | 'ttftMs' | 'itlMs' | 'ttfoMs';

/**
 * p50, p90 and p99 of one metric, the upper two shading the band to the one below; each
 * percentile in its own colour (the palette's first three, as the live panel draws them) and dash.
 * For a run with repeats, p50 and p99 each as the mean across repeats with its interval (three
 * bands would cover each other).
 */
function percentileBand(rows: StepRow[], metric: StatsMetric, t: Translate): ChartSeries[] {
  if (hasRepeats(rows)) {
    return (['p50', 'p99'] as const).flatMap((p) => loadSeries(rows, (r) => r[metric]?.[p], { label: p, colorIndex: p === 'p50' ? 0 : 2, percentile: p }, metric, t)).filter((s) => s.points.length > 0);
  }
  const band = (['p50', 'p90', 'p99'] as const).map((p, i) => ({
    ...loadSeries(rows, (r) => r[metric]?.[p], { label: p, colorIndex: i, percentile: p }, metric)[0]!,
    fillToPrevious: i > 0,
  }));
  return band.filter((s) => s.points.length > 0);
}

export function chart(id: string, metric: MetricKey | null, title: string, xLabel: string, series: ChartSeries[], yLabel?: string): ViewChart {
  return { id, title, metric, xLabel, yLabel: yLabel ?? (metric ? metricTitle(metric) : ''), series };
}

function loadCharts(rows: StepRow[], axis: XAxis, t: Translate): ViewChart[] {
  const simple = (metric: MetricKey, value: RowValue, colorIndex: number) => loadSeries(rows, value, { label: METRICS[metric].label, colorIndex }, metric, t);
  const xLog = wantsLogAxis(rows.map((r) => r.x));
  // An embeddings run has no stream: its figures are vectors and input tokens per second, and latency.
  const charts = rowsEmbedded(rows)
    ? [
        chart('embeddings-throughput', 'embeddingsPerSecond', 'Embeddings per second', axis.label, simple('embeddingsPerSecond', (r) => r.embeddingsPerSecond, 0)),
        chart('requests', 'requestsPerSecond', 'Requests per second', axis.label, simple('requestsPerSecond', (r) => r.requestsPerSecond, 1)),
        chart('input-throughput', 'inputTokensPerSecond', 'Input tokens per second', axis.label, simple('inputTokensPerSecond', (r) => r.inputTokensPerSecond, 7)),
        chart('latency', 'latencyMs', 'Latency percentiles', axis.label, percentileBand(rows, 'latencyMs', t)),
      ]
    : [
        chart('output-throughput', 'outputTokensPerSecond', 'Output tokens per second', axis.label, simple('outputTokensPerSecond', (r) => r.outputTokensPerSecond, 0)),
        // Against the achieved request rate, requests per second is that same figure: a diagonal that says nothing.
        ...(axis.kind === 'rate' ? [] : [chart('requests', 'requestsPerSecond', 'Requests per second', axis.label, simple('requestsPerSecond', (r) => r.requestsPerSecond, 1))]),
        chart('latency', 'latencyMs', 'Latency percentiles', axis.label, percentileBand(rows, 'latencyMs', t)),
        chart('ttft', 'ttftMs', 'TTFT percentiles', axis.label, percentileBand(rows, 'ttftMs', t)),
        ...(rowsReasoned(rows) ? [chart('ttfo', 'ttfoMs', 'TTFO percentiles (first answer token)', axis.label, percentileBand(rows, 'ttfoMs', t))] : []),
        chart('itl', 'itlMs', 'ITL percentiles', axis.label, percentileBand(rows, 'itlMs', t)),
      ];
  return xLog ? charts.map((c) => ({ ...c, xLog })) : charts;
}

/**
 * A run whose responses reasoned opens on where each step's time went, one stacked bar a step: to
 * the first token (mean TTFT), reasoning (mean TTFO - mean TTFT), the answer (mean latency - mean
 * TTFO). Means add up, so the bar is the step's mean latency. None for a run without reasoning.
 */
function reasoningSplitCharts(rows: StepRow[]): ViewChart[] {
  if (!rowsReasoned(rows)) return [];
  const parts: { label: string; value: (row: StepRow) => number | null; colorIndex: number }[] = [
    { label: 'to the first token (TTFT)', value: (row) => row.ttftMs?.mean ?? null, colorIndex: 3 },
    { label: 'reasoning (TTFO - TTFT)', value: (row) => difference(row.ttfoMs?.mean, row.ttftMs?.mean), colorIndex: 6 },
    { label: 'answer (latency - TTFO)', value: (row) => difference(row.latencyMs?.mean, row.ttfoMs?.mean), colorIndex: 0 },
  ];
  return [
    {
      ...chart(
        'reasoning-split',
        'reasoningMs',
        'Where the time went: reasoning and answer (means)',
        'Step',
        parts.map((part) => ({ label: part.label, colorIndex: part.colorIndex, points: rows.flatMap((row, i): [number, number][] => {
          const value = part.value(row);
          return value === null ? [] : [[i, Math.max(0, value)]];
        }) })),
        'Mean time per request (ms)',
      ),
      kind: 'stacked-bar',
      categories: rows.map((row) => (row.repeat !== undefined ? `${row.name} #${row.repeat + 1}` : row.name)),
    },
  ];
}

const difference = (a: number | null | undefined, b: number | null | undefined): number | null => (typeof a === 'number' && typeof b === 'number' ? a - b : null);

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
  const ttfo: ChartSeries[] = [];
  const itl: ChartSeries[] = [];
  const reasoned = steps.some((step) => step.summary?.ttfoMs !== undefined);
  steps.forEach((step, i) => {
    const samples = latencySamples(step.requests);
    const add = (list: ChartSeries[], values: number[]) => {
      const points = distributionCurve(values);
      if (points.length > 0) list.push({ label: stepLabel(step), points, colorIndex: i });
    };
    add(ttft, samples.ttft);
    if (reasoned) add(ttfo, samples.ttfo);
    add(itl, samples.itl);
  });
  const share = 'Share of requests (%)';
  // A cumulative share ends at 100%: no headroom above it.
  return [
    { ...chart('ttft-distribution', 'ttftMs', 'TTFT distribution (cumulative)', metricTitle('ttftMs'), ttft, share), yMax: 100 },
    ...(reasoned ? [{ ...chart('ttfo-distribution', 'ttfoMs', 'TTFO distribution (cumulative)', metricTitle('ttfoMs'), ttfo, share), yMax: 100 }] : []),
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
