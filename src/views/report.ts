/**
 * The many-run report as data: runs grouped and coloured by a label, the same curves of every
 * run against load, a throughput-versus-latency chart, the knee of each run and a ranking for an
 * SLO. Pure functions, shared by the HTML export, `llmbench report` and the extension's view.
 *
 * Knee (see docs/importing.md, "Reports"): on a run's steps ordered by load, with load and output
 * throughput each scaled to [0, 1], the knee is the step farthest above the straight line from the
 * lightest to the heaviest step (the Kneedle method for a concave curve): past it, added load buys
 * little throughput while latency climbs. Runs with fewer than three steps, or whose throughput
 * rises almost linearly (largest gap under KNEE_MIN_GAP), have no knee.
 */
import type { z } from 'zod';
import { ttfoStatsOf, type ResultDocument, type Stats, type Step, type StepSummary } from '../format/result';
import { wantsLogAxis } from './axis';
import { DASH_PATTERNS, PALETTE_SIZE, type ChartSpec, type SeriesSpec, type TableColumn } from './chart-spec';
import { formatMetric, isNumber, NOT_AVAILABLE } from './number-format';
import { METRICS, type MetricKey } from '../format/metrics';
import { definitionNotes, workersText } from './result';
import { localCountsNotes } from './token-counts';
import { stepLabel } from '../format/step-name';
import { markText, serverMarks, KV_CACHE_FULL } from './server-views';
import { endpointNotes, endpointTable } from './endpoint-figures';
import { shardsSection } from './shards';
import { judgeChange, NOISE_RULE_TEXT } from './noise';
import { meanInterval, type MeanInterval } from './repeats';
import { olderRatesNote, sayWarning, stepWarningLines } from './step-warnings';

export interface ReportRun {
  /** Shown in legends and tables: a label value, the file name, or the model. */
  name: string;
  doc: ResultDocument;
  /** Where the run came from, for the reader (a file path). */
  source?: string;
  /** Steps that had not finished when the file was read: summarised from their records (src/results/read-result.ts). */
  unfinishedSteps?: number[];
}

/** A run's status as the report shows it: partial, failed and interrupted runs never pass for complete. */
export function runStatus(run: ReportRun, t: Translate = english): string {
  const unfinished = run.unfinishedSteps?.length ?? 0;
  const status = statusWord(run.doc.status, t);
  const steps = unfinished === 0 ? status : unfinished === 1 ? t('{0} (1 step unfinished)', status) : t('{0} ({1} steps unfinished)', status, unfinished);
  // The reason, worded again where LLM Bench wrote it from a template (the error it quotes stays as it was).
  return run.doc.status !== 'complete' && run.doc.statusReason ? `${steps}: ${sayWarning(run.doc.statusReason, t)}` : steps;
}

import type { CurveSchema, CurvePointSchema, RankingRowSchema, ReportChartSchema, ReportModelSchema } from '../format/messages/report';
import type { LoadAxisSchema, ReportOptionsSchema, ReportSloSchema, StatChoiceSchema } from '../format/messages/from-views';
import { english, statusWord, type Translate } from './l10n';

export type LoadAxis = z.infer<typeof LoadAxisSchema>;
export type StatChoice = z.infer<typeof StatChoiceSchema>;
export type ReportSlo = z.infer<typeof ReportSloSchema>;
/** `groupBy`: a label key; runs with the same value share a colour. Without it each run has its own. */
export type ReportOptions = z.infer<typeof ReportOptionsSchema>;
export type CurvePoint = z.infer<typeof CurvePointSchema>;
export type Curve = z.infer<typeof CurveSchema>;
export type ReportChart = z.infer<typeof ReportChartSchema>;
export type RankingRow = z.infer<typeof RankingRowSchema>;
export type ReportModel = z.infer<typeof ReportModelSchema>;
export type CurveMetric = 'requestsPerSecond' | 'outputTokensPerSecond' | 'latencyMs' | 'ttftMs' | 'ttfoMs' | 'itlMs' | 'tpotMs' | 'failures' | 'embeddingsPerSecond';

export const KNEE_MIN_GAP = 0.1;

/**
 * How a run's curve is drawn: every run its own colour (a palette index) and its own dash (solid,
 * dashed, dotted, dash-dot), so that two runs differ without colour too; when runs are grouped by
 * a label, the dash is its group's, so that a group reads as one. The page's one legend shows both.
 */
export function curveStyle(runIndex: number, groupIndex: number | null): { color: number; dash: number } {
  return { color: runIndex % PALETTE_SIZE, dash: (groupIndex ?? runIndex) % DASH_PATTERNS.length };
}
const NO_GROUP = '(no label)';

/** The curves every report draws; `when` names the runs that add one (some run reasoned, or embedded). */
const CURVES: { metric: CurveMetric; title: string; unit: string; when?: 'reasoning' | 'embeddings' }[] = [
  { metric: 'requestsPerSecond', title: 'Requests per second', unit: 'req/s' },
  { metric: 'outputTokensPerSecond', title: 'Output tokens per second', unit: 'tok/s' },
  { metric: 'embeddingsPerSecond', title: 'Embeddings per second', unit: 'embeddings/s', when: 'embeddings' },
  { metric: 'latencyMs', title: 'Request latency', unit: 'ms' },
  { metric: 'ttftMs', title: 'Time to first token', unit: 'ms' },
  { metric: 'ttfoMs', title: 'Time to first output token (the answer, reasoning left out)', unit: 'ms', when: 'reasoning' },
  { metric: 'itlMs', title: 'Inter-token latency (per chunk)', unit: 'ms' },
  { metric: 'tpotMs', title: 'Time per output token', unit: 'ms' },
  { metric: 'failures', title: 'Failed requests', unit: 'requests' },
];

/** Whether any of the runs' steps reasoned, or returned embeddings. */
const runsReasoned = (runs: readonly ReportRun[]): boolean => runs.some((run) => run.doc.steps.some((step) => step.summary?.ttfoMs !== undefined));
const runsEmbedded = (runs: readonly ReportRun[]): boolean => runs.some((run) => run.doc.steps.some((step) => step.summary?.embeddingsPerSecond !== undefined));

export function statOf(stats: Stats | null | undefined, stat: StatChoice): number | null {
  const value = stats?.[stat];
  return isNumber(value) ? value : null;
}

export function metricOf(summary: StepSummary, metric: CurveMetric, stat: StatChoice): number | null {
  switch (metric) {
    case 'requestsPerSecond':
    case 'outputTokensPerSecond':
      return summary[metric];
    case 'embeddingsPerSecond':
      return summary.embeddingsPerSecond ?? null;
    case 'failures':
      return summary.requests.total > 0 ? summary.requests.failed : null;
    case 'ttfoMs':
      return statOf(ttfoStatsOf(summary), stat);
    default:
      return statOf(summary[metric], stat);
  }
}

/**
 * A step's load on the axis, as achieved (GuideLLM's tables place steps so too): its measured mean
 * concurrency, or its completed requests per second. A throughput step sends everything at once,
 * so its send rate says nothing; an offered rate the server never reached would misplace the knee.
 * Imported steps without measured figures fall back to what they were configured to.
 */
export function loadOf(step: Step, axis: LoadAxis): number | null {
  const { profile, summary } = step;
  if (axis === 'concurrency') {
    return summary?.achievedConcurrency ?? (profile.kind === 'synchronous' ? 1 : (profile.concurrency ?? null));
  }
  return summary?.requestsPerSecond ?? profile.rate ?? null;
}

/** The axis most steps of these runs are defined on. */
export function chooseAxis(runs: ReportRun[]): LoadAxis {
  const steps = runs.flatMap((r) => r.doc.steps);
  const rated = steps.filter((s) => s.profile.kind === 'rate').length;
  const closed = steps.filter((s) => s.profile.kind === 'concurrency' || s.profile.kind === 'synchronous').length;
  return rated > closed ? 'rate' : 'concurrency';
}

interface LoadedStep {
  step: Step;
  summary: StepSummary;
  load: number;
}

function loadedSteps(doc: ResultDocument, axis: LoadAxis): LoadedStep[] {
  return doc.steps
    .flatMap((step) => {
      const load = loadOf(step, axis);
      return step.summary && load !== null ? [{ step, summary: step.summary, load }] : [];
    })
    .sort((a, b) => a.load - b.load);
}

/** The Kneedle knee of throughput against load (see the file comment), or null. */
export function findKnee(points: readonly { x: number; y: number }[]): number | null {
  if (points.length < 3) return null;
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (x1 === x0 || y1 === y0) return null;
  let best = -1;
  let bestGap = KNEE_MIN_GAP;
  points.forEach((p, i) => {
    const gap = (p.y - y0) / (y1 - y0) - (p.x - x0) / (x1 - x0);
    if (gap > bestGap) {
      bestGap = gap;
      best = i;
    }
  });
  return best === -1 ? null : best;
}

/**
 * A step as the ranking judges it: one step, or a repeated step's repeats with every figure the
 * mean of the repeats' values (each repeat's own `stat` for the latencies), so that no row of the
 * ranking mixes one repeat's figures with a mean of them.
 */
interface RankedStep {
  name: string;
  /** Its mean load across repeats, on the report's axis. */
  load: number;
  /** How many repeats each figure is the mean of (1: a single step). */
  repeats: number;
  requestsPerSecond: number | null;
  outputTokensPerSecond: MeanInterval | null;
  ttftMs: number | null;
  tpotMs: number | null;
  latencyMs: number | null;
  goodput: number | null;
  /** A reasoning model's: its TTFO (`stat`), and the mean tokens it thought and answered. */
  ttfoMs: number | null;
  reasoningTokens: number | null;
  answerTokens: number | null;
}

/** The mean of the values there are (a repeat without one is left out of that figure), or null. */
const meanOfPresent = (values: readonly (number | null | undefined)[]): MeanInterval | null => meanInterval(values.filter(isNumber));

/** A run's steps by name, each the mean of its repeats, lightest load first. */
function rankedSteps(steps: readonly LoadedStep[], stat: StatChoice): RankedStep[] {
  const byName = new Map<string, LoadedStep[]>();
  for (const s of steps) byName.set(s.step.name, [...(byName.get(s.step.name) ?? []), s]);
  return [...byName]
    .map(([name, group]): RankedStep => {
      const mean = (pick: (summary: StepSummary) => number | null | undefined): number | null => meanOfPresent(group.map((s) => pick(s.summary)))?.mean ?? null;
      return {
        name,
        load: group.reduce((sum, s) => sum + s.load, 0) / group.length,
        repeats: group.length,
        requestsPerSecond: mean((s) => s.requestsPerSecond),
        outputTokensPerSecond: meanOfPresent(group.map((s) => s.summary.outputTokensPerSecond)),
        ttftMs: mean((s) => statOf(s.ttftMs, stat)),
        tpotMs: mean((s) => statOf(s.tpotMs, stat)),
        latencyMs: mean((s) => statOf(s.latencyMs, stat)),
        goodput: mean((s) => s.goodput),
        ttfoMs: mean((s) => statOf(ttfoStatsOf(s), stat)),
        reasoningTokens: mean((s) => s.reasoningTokens?.mean ?? 0),
        answerTokens: mean((s) => s.answerTokens?.mean ?? s.outputTokens?.mean),
      };
    })
    .sort((a, b) => a.load - b.load);
}

function meetsSlo(step: RankedStep, slo: ReportSlo): boolean {
  const checks: [number | undefined, number | null][] = [
    [slo.ttftMs, step.ttftMs],
    [slo.ttfoMs, step.ttfoMs],
    [slo.tpotMs, step.tpotMs],
    [slo.e2eMs, step.latencyMs],
  ];
  // A limit on a metric the step lacks cannot be shown to hold.
  return checks.every(([limit, value]) => limit === undefined || (value ?? Infinity) <= limit);
}

const hasSlo = (slo: ReportSlo) => slo.ttftMs !== undefined || slo.ttfoMs !== undefined || slo.tpotMs !== undefined || slo.e2eMs !== undefined;

/** `t`: the display language of what the model words itself (each run's status, workers and notes), src/views/l10n.ts. */
export function buildReportModel(runs: ReportRun[], options: ReportOptions = {}, t: Translate = english): ReportModel {
  const axis = options.axis ?? chooseAxis(runs);
  const stat = options.stat ?? 'p90';
  const slo = options.slo ?? {};
  const groupBy = options.groupBy ?? null;
  const groupOf = (run: ReportRun) => (groupBy ? (run.doc.labels[groupBy] ?? NO_GROUP) : run.name);
  const groups = [...new Set(runs.map(groupOf))];
  const styled = runs.map((run, index) => {
    const group = groupOf(run);
    return { run, index, group, ...curveStyle(index, groupBy ? groups.indexOf(group) : null), steps: loadedSteps(run.doc, axis) };
  });

  const knees = styled.map(({ run, index, steps }) => {
    const throughput = steps.flatMap((s) => (isNumber(s.summary.outputTokensPerSecond) ? [{ x: s.load, y: s.summary.outputTokensPerSecond, step: s.step.name }] : []));
    const at = findKnee(throughput);
    const point = at === null ? null : (throughput[at] ?? null);
    return { run: index, name: run.name, step: point?.step ?? null, load: point?.x ?? null, ...serverMarks(run.doc) };
  });

  const curve = (entry: (typeof styled)[number], pick: (s: LoadedStep) => { x: number | null; y: number | null }): Curve => {
    const points = entry.steps.flatMap((s) => {
      const { x, y } = pick(s);
      return x !== null && y !== null ? [{ x, y, step: s.step.name }] : [];
    });
    const knee = knees[entry.index];
    const kneeStep = knee?.step;
    const marks = (['kv-cache-full', 'queueing'] as const).flatMap((kind) => {
      const mark = kind === 'kv-cache-full' ? knee?.kvCacheFull : knee?.queueing;
      const point = mark && mark !== 'never' ? points.find((p) => p.step === mark.step) : undefined;
      return point ? [{ kind, point }] : [];
    });
    return {
      run: entry.index,
      name: entry.run.name,
      group: entry.group,
      color: entry.color,
      dash: entry.dash,
      points,
      knee: points.find((p) => p.step === kneeStep) ?? null,
      marks,
    };
  };

  const xTitle = axis === 'concurrency' ? 'Concurrency (measured mean in flight)' : 'Achieved request rate (completed req/s)';
  const xLog = wantsLogAxis(styled.flatMap((entry) => entry.steps.map((s) => s.load)));
  const statLabel = stat === 'mean' ? 'mean' : stat;
  const reasoning = runsReasoned(runs);
  const present = { reasoning, embeddings: runsEmbedded(runs) };
  const charts = CURVES.filter((c) => c.when === undefined || present[c.when]).map(({ metric, title, unit }) => {
    const latencyLike = metric.endsWith('Ms');
    return {
      id: metric,
      title: latencyLike ? `${title} (${statLabel})` : title,
      ...(latencyLike ? { stat: statLabel } : {}),
      xTitle,
      ...(xLog ? { xLog } : {}),
      yTitle: unit,
      curves: styled.map((entry) => curve(entry, (s) => ({ x: s.load, y: metricOf(s.summary, metric, stat) }))),
    };
  });
  const tradeoff: ReportChart = {
    id: 'tradeoff',
    title: `Output tokens per second against request latency (${statLabel})`,
    xTitle: `Request latency ${statLabel} (ms)`,
    stat: statLabel,
    yTitle: 'tok/s',
    curves: styled.map((entry) => curve(entry, (s) => ({ x: statOf(s.summary.latencyMs, stat), y: s.summary.outputTokensPerSecond }))),
  };

  /** Each run's figure across its repeats, when it repeated its profile: what the ranking judges noise by. */
  const acrossRepeatsOf = new Map<number, MeanInterval>();
  const ranking = styled
    .map(({ run, index, group, steps }): Omit<RankingRow, 'rank' | 'tiedWithAbove' | 'noiseRule'> => {
      // A run that repeated its profile is judged step by step on the means across its repeats, every figure alike.
      const ranked = rankedSteps(steps, stat);
      const meeting = hasSlo(slo) ? ranked.filter((s) => meetsSlo(s, slo)) : ranked;
      const best = meeting.at(-1);
      const throughput = best?.outputTokensPerSecond ?? null;
      if (best && best.repeats > 1 && throughput) acrossRepeatsOf.set(index, throughput);
      const bestGoodput = ranked.filter((s) => isNumber(s.goodput)).sort((a, b) => (b.goodput ?? 0) - (a.goodput ?? 0))[0];
      return {
        run: index,
        name: run.name,
        group,
        step: best?.name ?? null,
        ...(best && best.repeats > 1 ? { repeats: best.repeats } : {}),
        load: best?.load ?? null,
        requestsPerSecond: best?.requestsPerSecond ?? null,
        outputTokensPerSecond: throughput?.mean ?? null,
        ...(best && best.repeats > 1 && throughput?.halfWidth != null ? { outputTokensPerSecondHalfWidth: throughput.halfWidth } : {}),
        ttftMs: best?.ttftMs ?? null,
        ...(reasoning ? { ttfoMs: best?.ttfoMs ?? null, reasoningTokens: best?.reasoningTokens ?? null, answerTokens: best?.answerTokens ?? null } : {}),
        tpotMs: best?.tpotMs ?? null,
        latencyMs: best?.latencyMs ?? null,
        goodput: bestGoodput?.goodput ?? null,
        goodputStep: bestGoodput?.name ?? null,
      };
    })
    // Most output tokens per second at an SLO-meeting load first; runs meeting it nowhere last.
    .sort((a, b) => (b.outputTokensPerSecond ?? -1) - (a.outputTokensPerSecond ?? -1) || (b.load ?? -1) - (a.load ?? -1))
    .reduce<RankingRow[]>((ranked, row, i) => {
      const above = ranked[i - 1];
      if (above === undefined) return [{ ...row, tiedWithAbove: false, noiseRule: null, rank: 1 }];
      const [a, b] = [acrossRepeatsOf.get(above.run), acrossRepeatsOf.get(row.run)];
      const judged = judgeChange('outputTokensPerSecond', above.outputTokensPerSecond, row.outputTokensPerSecond, a && b ? { repeats: { a, b } } : null);
      const tiedWithAbove = judged.verdict === 'same';
      return [...ranked, { ...row, tiedWithAbove, noiseRule: judged.rule, rank: tiedWithAbove ? above.rank : i + 1 }];
    }, []);

  return {
    runs: styled.map(({ run, group, color, dash }) => ({
      name: run.name,
      group,
      color,
      dash,
      ...(run.source ? { source: run.source } : {}),
      labels: run.doc.labels,
      ...(run.doc.importedFrom ? { importedFrom: [run.doc.importedFrom.tool, run.doc.importedFrom.version].filter(Boolean).join(' ') } : {}),
      definitionNotes: [...definitionNotes(run.doc.steps, t), ...localCountsNotes(run.doc.steps, stepLabel, t)],
      stepWarnings: runStepWarnings(run),
      workers: workersText(run.doc, t),
      status: runStatus(run, t),
      complete: run.doc.status === 'complete' && (run.unfinishedSteps?.length ?? 0) === 0,
    })),
    groupBy,
    groups,
    labelKeys: [...new Set(runs.flatMap((r) => Object.keys(r.doc.labels)))].sort(),
    axis,
    offAxis: styled.filter((entry) => entry.steps.length === 0).map((entry) => entry.run.name),
    stat,
    slo,
    reasoning,
    charts,
    tradeoff,
    knees,
    ranking,
    endpoints: runs.flatMap((run) => {
      const table = endpointTable(run.doc, t);
      return table === null ? [] : [{ name: run.name, table, notes: endpointNotes(run.doc, t) }];
    }),
    shards: runs.flatMap((run) => {
      const section = shardsSection(run.doc, t);
      return section === null ? [] : [{ name: run.name, ...section }];
    }),
  };
}

/** A run's step warnings as the report lists them, `step: message`, after a run written before steady windows says so. */
export function runStepWarnings(run: ReportRun): string[] {
  const imported = run.doc.importedFrom !== undefined;
  const rates = olderRatesNote(run.doc.steps, imported);
  return [...(rates ? [rates] : []), ...stepWarningLines(run.doc.steps.map((step) => ({ ...step, label: stepLabel(step) })), imported)];
}

/** A run's default display name: its model and the name of its file. */
export function runName(doc: ResultDocument, source: string | undefined): string {
  const file = source?.split(/[\\/]/).pop()?.replace(/\.llmbench\.json$|\.json$/, '');
  return file ? `${doc.endpoint.model} · ${file}` : doc.endpoint.model;
}

/**
 * What a shared rank means, under the ranking table in the report view and the HTML and Markdown
 * exports: the ranking, then the rules that judged these runs against the one above.
 */
export function rankingNoiseNote(model: ReportModel, t: Translate = english): string {
  const rules = new Set(model.ranking.map((r) => r.noiseRule));
  const repeated = model.ranking.some((r) => r.repeats !== undefined);
  const judged = [...rules].flatMap((rule) => (rule === 'repeat-intervals' || rule === 'small-change' ? [t(NOISE_RULE_TEXT[rule])] : []));
  return [
    t('Runs rank by output tokens per second at their heaviest load within the SLO; \u2248 marks a run within noise of the one above, and they share a rank.'),
    ...(repeated
      ? [t("A run that repeated its profile is judged on the means across its repeats: every figure of its row (load, requests/s, tokens/s, latencies, goodput) is the mean of its repeats' values, output tok/s shown ± its 95% interval.")]
      : []),
    ...(judged.length ? [t('Each run against the one above: {0}', judged.join(' '))] : []),
  ].join(' ');
}

/** The ranking's step cell: the step, and the repeats its figures are the means of. */
export const rankedStepText = (row: RankingRow, t: Translate = english): string =>
  row.step === null ? t('none') : row.repeats === undefined ? row.step : t('{0} (mean of {1} repeats)', row.step, row.repeats);

/** A rank as the tables show it: "≈1" for a run within noise of the one above, sharing its rank. */
export const rankText = (row: RankingRow): string => (row.tiedWithAbove ? `\u2248${row.rank}` : String(row.rank));

/** A table of text cells: a cell's lines are separated by "\n" (the views stack them, the Markdown export joins them). */
export interface TextTable {
  columns: TableColumn[];
  rows: string[][];
}

/** A step's load, with its unit: "29.9 in flight", "12.30 req/s". */
export function loadText(load: number | null, axis: LoadAxis, t: Translate = english): string {
  if (!isNumber(load)) return NOT_AVAILABLE;
  return axis === 'concurrency' ? t('{0} in flight', formatMetric('achievedConcurrency', load)) : `${formatMetric('requestsPerSecond', load)} req/s`;
}

/** A step and its load on two lines, "none" without a step. */
const stepAndLoad = (step: string | null, load: number | null, axis: LoadAxis, t: Translate) => (step === null ? t('none') : `${step}\n${loadText(load, axis, t)}`);

/**
 * The ranking table, the same in the report view and the HTML export: rank, run (its group under
 * it when grouped), the heaviest step within the SLO with its load, then the figure ranked by and
 * the others at that step, in the views' units and format. Best goodput only when some run
 * measured one (its own SLO); each run's knee is in the knee table, in this order.
 */
export function rankingTable(model: ReportModel, t: Translate = english): TextTable {
  const stat = model.stat;
  const goodput = model.ranking.some((r) => r.goodput !== null);
  const figure = (metric: MetricKey, unit?: string): TableColumn => ({ label: METRICS[metric].label, ...(unit ? { unit } : {}), numeric: true, description: METRICS[metric].definition });
  return {
    columns: [
      { label: 'Rank' },
      { label: 'Run', ...(model.groupBy ? { unit: model.groupBy } : {}) },
      { label: hasSlo(model.slo) ? 'Heaviest step within the SLO' : 'Heaviest step', unit: 'and its load' },
      figure('outputTokensPerSecond'),
      figure('requestsPerSecond'),
      figure('ttftMs', `${stat}, ms`),
      // A reasoning model's wait for its answer, and how much it thought and answered.
      ...(model.reasoning ? [figure('ttfoMs', `${stat}, ms`), figure('reasoningTokens', 'mean'), figure('answerTokens', 'mean')] : []),
      figure('tpotMs', `${stat}, ms`),
      figure('latencyMs', `${stat}, ms`),
      ...(goodput ? [{ label: 'best goodput', unit: 'req/s, its own SLO', numeric: true, description: METRICS.goodput.definition }] : []),
    ],
    rows: model.ranking.map((r) => [
      rankText(r),
      model.groupBy ? `${r.name}\n${r.group}` : r.name,
      stepAndLoad(r.step === null ? null : rankedStepText(r, t), r.load, model.axis, t),
      r.outputTokensPerSecondHalfWidth === undefined
        ? formatMetric('outputTokensPerSecond', r.outputTokensPerSecond)
        : `${formatMetric('outputTokensPerSecond', r.outputTokensPerSecond)} ± ${formatMetric('outputTokensPerSecond', r.outputTokensPerSecondHalfWidth)}`,
      formatMetric('requestsPerSecond', r.requestsPerSecond),
      formatMetric('ttftMs', r.ttftMs),
      ...(model.reasoning ? [formatMetric('ttfoMs', r.ttfoMs ?? null), formatMetric('reasoningTokens', r.reasoningTokens ?? null), formatMetric('answerTokens', r.answerTokens ?? null)] : []),
      formatMetric('tpotMs', r.tpotMs),
      formatMetric('latencyMs', r.latencyMs),
      ...(goodput ? [r.goodput === null ? NOT_AVAILABLE : `${formatMetric('goodput', r.goodput)}\n${t('at {0}', r.goodputStep ?? '?')}`] : []),
    ]),
  };
}

/** What the knee table says, under it in the report view and the HTML and Markdown exports. */
export const SERVER_MARKS_NOTE =
  `The knee is where added load stops buying throughput (the ringed point on the curves). Beside it, from each run's server metrics: where its KV cache first reached ${KV_CACHE_FULL * 100}% (\u25B3 on the curves) ` +
  'and where requests first kept waiting, above zero in every scrape for a second or more and two scrapes at least (\u25A1), by step and run time. A knee at or after them is the server running out of room. ' +
  'Not seen: no scrape caught it (steps shorter than that can hide a queue); n/a: the server did not export it or was not scraped.';

/**
 * One row a run, in the ranking's order: its knee with the load there, and its server marks beside
 * it; the same in the report view and the HTML and Markdown exports.
 */
export function kneeTable(model: ReportModel, t: Translate = english): TextTable {
  const knees = model.ranking.flatMap((r) => model.knees.filter((knee) => knee.run === r.run));
  return {
    columns: [{ label: 'Run' }, { label: 'Knee', unit: 'and its load' }, { label: `KV cache first \u2265 ${KV_CACHE_FULL * 100}%` }, { label: 'First kept waiting' }],
    rows: knees.map((knee) => [knee.name, stepAndLoad(knee.step, knee.load, model.axis, t), markText(knee.kvCacheFull, t), markText(knee.queueing, t)]),
  };
}

/**
 * A report chart as the shared chart spec: each run's curve in its colour and dash; its knee a
 * small ring and its server marks small outlines, drawn behind the lines so that they never hide a
 * point. No legend of its own: the page has one for every chart (`reportLegend`).
 */
/** A chart's title or axis title as a key: its statistic, when it names one, as `{0}` ("Request latency ({0})"). */
export function reportChartKey(text: string, chart: Pick<ReportChart, 'stat'>): string {
  const at = chart.stat === undefined ? -1 : text.lastIndexOf(chart.stat);
  return at < 0 ? text : `${text.slice(0, at)}{0}${text.slice(at + chart.stat!.length)}`;
}

/** A chart's title or axis title in the display language, its statistic filled in. */
export function reportChartText(text: string, chart: Pick<ReportChart, 'stat'>, t: Translate): string {
  const key = reportChartKey(text, chart);
  return key === text ? t(text) : t(key, chart.stat!);
}

export function reportChartSpec(chart: ReportChart, t: Translate = english): ChartSpec {
  const series: SeriesSpec[] = chart.curves.flatMap((curve): SeriesSpec[] => {
    const line: SeriesSpec = {
      label: curve.name,
      data: curve.points.map(({ x, y }) => ({ x, y })),
      color: curve.color,
      dash: curve.dash,
      pointRadius: 2.5,
    };
    const knee: SeriesSpec[] = curve.knee
      ? [{ label: `${curve.name} knee (${curve.knee.step})`, data: [{ x: curve.knee.x, y: curve.knee.y }], color: curve.color, showLine: false, pointRadius: 6, hollow: true, behind: true, hideInLegend: true }]
      : [];
    const marks = curve.marks.map((mark): SeriesSpec => ({
      label: `${curve.name} ${MARK_WORDS[mark.kind]} (${mark.point.step})`,
      data: [{ x: mark.point.x, y: mark.point.y }],
      color: curve.color,
      showLine: false,
      // Outlines a little larger than the knee's ring, which may sit on the same step.
      pointRadius: mark.kind === 'kv-cache-full' ? 9 : 8,
      pointStyle: mark.kind === 'kv-cache-full' ? 'triangle' : 'rect',
      hollow: true,
      behind: true,
      hideInLegend: true,
    }));
    return [line, ...knee, ...marks];
  });
  return { kind: 'line', legend: false, x: { title: reportChartText(chart.xTitle, chart, t), ...(chart.xLog ? { log: true } : {}) }, y: { title: chart.yTitle }, series };
}

/** The page's one legend for every report chart: each run's name, group, colour and dash, in the runs' order. */
export function reportLegend(model: ReportModel): { name: string; group: string | null; color: number; dash: number }[] {
  return model.runs.map((run) => ({ name: run.name, group: model.groupBy ? run.group : null, color: run.color, dash: run.dash }));
}

const MARK_WORDS = { 'kv-cache-full': 'KV cache first at 95%', queueing: 'requests first kept waiting' } as const;

/**
 * What a report of no runs says in place of empty tables and charts: that the folder or files held
 * no result, why each path gave none, and how to make one.
 */
export function noRunsText(problems: readonly string[]): { headline: string; why: string[]; how: string[] } {
  return {
    headline: 'No benchmark runs to report: the report reads LLM Bench result files (*.llmbench.json), and none was found.',
    why: [...problems],
    how: [
      'Run a benchmark: "LLM Bench: Run LLM Benchmark" (the built-in simulator needs no server); its result file is written to the workspace\'s benchmarks folder.',
      'Or import other tools\' results (vLLM, GuideLLM, EvalScope, AIPerf, LLMPerf files, or printouts in notes): "LLM Bench: Import Benchmark Results...".',
      'Then open the report on the folder that holds the result files.',
    ],
  };
}
