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
import type { ResultDocument, Stats, Step, StepSummary } from '../format/result';
import { wantsLogAxis } from './axis';
import type { ChartSpec, SeriesSpec } from './chart-spec';
import { fixed, isNumber, NOT_AVAILABLE } from './number-format';
import { definitionNotes } from './result';
import { markText, serverMarks, KV_CACHE_FULL } from './server-views';
import { judgeChange, NOISE_RULE_TEXT } from './noise';
import { meanInterval, type MeanInterval } from './repeats';

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
export function runStatus(run: ReportRun): string {
  const unfinished = run.unfinishedSteps?.length ?? 0;
  const steps = unfinished > 0 ? ` (${unfinished} step${unfinished === 1 ? '' : 's'} unfinished)` : '';
  const reason = run.doc.status !== 'complete' && run.doc.statusReason ? `: ${run.doc.statusReason}` : '';
  return `${run.doc.status}${steps}${reason}`;
}

import type { CurveSchema, CurvePointSchema, RankingRowSchema, ReportChartSchema, ReportModelSchema } from '../format/messages/report';
import type { LoadAxisSchema, ReportOptionsSchema, ReportSloSchema, StatChoiceSchema } from '../format/messages/from-views';

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
export type CurveMetric = 'requestsPerSecond' | 'outputTokensPerSecond' | 'latencyMs' | 'ttftMs' | 'itlMs' | 'tpotMs' | 'failures';

export const KNEE_MIN_GAP = 0.1;
const NO_GROUP = '(no label)';

const CURVES: { metric: CurveMetric; title: string; unit: string }[] = [
  { metric: 'requestsPerSecond', title: 'Requests per second', unit: 'req/s' },
  { metric: 'outputTokensPerSecond', title: 'Output tokens per second', unit: 'tok/s' },
  { metric: 'latencyMs', title: 'Request latency', unit: 'ms' },
  { metric: 'ttftMs', title: 'Time to first token', unit: 'ms' },
  { metric: 'itlMs', title: 'Inter-token latency (per chunk)', unit: 'ms' },
  { metric: 'tpotMs', title: 'Time per output token', unit: 'ms' },
  { metric: 'failures', title: 'Failed requests', unit: 'requests' },
];

export function statOf(stats: Stats | null | undefined, stat: StatChoice): number | null {
  const value = stats?.[stat];
  return isNumber(value) ? value : null;
}

export function metricOf(summary: StepSummary, metric: CurveMetric, stat: StatChoice): number | null {
  switch (metric) {
    case 'requestsPerSecond':
    case 'outputTokensPerSecond':
      return summary[metric];
    case 'failures':
      return summary.requests.total > 0 ? summary.requests.failed : null;
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

function meetsSlo(summary: StepSummary, slo: ReportSlo, stat: StatChoice): boolean {
  const checks: [number | undefined, Stats | null | undefined][] = [
    [slo.ttftMs, summary.ttftMs],
    [slo.tpotMs, summary.tpotMs],
    [slo.e2eMs, summary.latencyMs],
  ];
  // A limit on a metric the step lacks cannot be shown to hold.
  return checks.every(([limit, stats]) => limit === undefined || (statOf(stats, stat) ?? Infinity) <= limit);
}

const hasSlo = (slo: ReportSlo) => slo.ttftMs !== undefined || slo.tpotMs !== undefined || slo.e2eMs !== undefined;

export function buildReportModel(runs: ReportRun[], options: ReportOptions = {}): ReportModel {
  const axis = options.axis ?? chooseAxis(runs);
  const stat = options.stat ?? 'p90';
  const slo = options.slo ?? {};
  const groupBy = options.groupBy ?? null;
  const groupOf = (run: ReportRun) => (groupBy ? (run.doc.labels[groupBy] ?? NO_GROUP) : run.name);
  const groups = [...new Set(runs.map(groupOf))];
  const seenInGroup = new Map<string, number>();
  const styled = runs.map((run, index) => {
    const group = groupOf(run);
    const nth = seenInGroup.get(group) ?? 0;
    seenInGroup.set(group, nth + 1);
    return { run, index, group, color: groups.indexOf(group), dashed: nth % 2 === 1, steps: loadedSteps(run.doc, axis) };
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
      dashed: entry.dashed,
      points,
      knee: points.find((p) => p.step === kneeStep) ?? null,
      marks,
    };
  };

  const xTitle = axis === 'concurrency' ? 'Concurrency (measured mean in flight)' : 'Achieved request rate (completed req/s)';
  const xLog = wantsLogAxis(styled.flatMap((entry) => entry.steps.map((s) => s.load)));
  const statLabel = stat === 'mean' ? 'mean' : stat;
  const charts = CURVES.map(({ metric, title, unit }) => {
    const latencyLike = metric.endsWith('Ms');
    return {
      id: metric,
      title: latencyLike ? `${title} (${statLabel})` : title,
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
    yTitle: 'tok/s',
    curves: styled.map((entry) => curve(entry, (s) => ({ x: statOf(s.summary.latencyMs, stat), y: s.summary.outputTokensPerSecond }))),
  };

  /** Each run's figure across its repeats, when it repeated its profile: what the ranking judges noise by. */
  const acrossRepeatsOf = new Map<number, MeanInterval>();
  const ranking = styled
    .map(({ run, index, group, steps }): Omit<RankingRow, 'rank' | 'tiedWithAbove' | 'noiseRule'> => {
      const meeting = hasSlo(slo) ? steps.filter((s) => meetsSlo(s.summary, slo, stat)) : steps;
      const best = meeting.at(-1);
      // A run that repeated its profile is judged by that step's mean across its repeats, with its interval.
      const repeats = best ? steps.filter((s) => s.step.name === best.step.name && isNumber(s.summary.outputTokensPerSecond)) : [];
      const acrossRepeats = repeats.length > 1 ? meanInterval(repeats.map((s) => s.summary.outputTokensPerSecond as number)) : null;
      if (acrossRepeats) acrossRepeatsOf.set(index, acrossRepeats);
      const withGoodput = steps.filter((s) => isNumber(s.summary.goodput));
      const bestGoodput = withGoodput.sort((a, b) => (b.summary.goodput ?? 0) - (a.summary.goodput ?? 0))[0];
      return {
        run: index,
        name: run.name,
        group,
        step: best?.step.name ?? null,
        load: best?.load ?? null,
        requestsPerSecond: best?.summary.requestsPerSecond ?? null,
        outputTokensPerSecond: acrossRepeats?.mean ?? best?.summary.outputTokensPerSecond ?? null,
        ...(acrossRepeats?.halfWidth != null ? { outputTokensPerSecondHalfWidth: acrossRepeats.halfWidth } : {}),
        ttftMs: best ? statOf(best.summary.ttftMs, stat) : null,
        tpotMs: best ? statOf(best.summary.tpotMs, stat) : null,
        latencyMs: best ? statOf(best.summary.latencyMs, stat) : null,
        goodput: bestGoodput?.summary.goodput ?? null,
        goodputStep: bestGoodput?.step.name ?? null,
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
    runs: styled.map(({ run, group, color }) => ({
      name: run.name,
      group,
      color,
      ...(run.source ? { source: run.source } : {}),
      labels: run.doc.labels,
      ...(run.doc.importedFrom ? { importedFrom: [run.doc.importedFrom.tool, run.doc.importedFrom.version].filter(Boolean).join(' ') } : {}),
      definitionNotes: definitionNotes(run.doc.steps),
      status: runStatus(run),
    })),
    groupBy,
    groups,
    labelKeys: [...new Set(runs.flatMap((r) => Object.keys(r.doc.labels)))].sort(),
    axis,
    offAxis: styled.filter((entry) => entry.steps.length === 0).map((entry) => entry.run.name),
    stat,
    slo,
    charts,
    tradeoff,
    knees,
    ranking,
  };
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
export function rankingNoiseNote(model: ReportModel): string {
  const rules = new Set(model.ranking.map((r) => r.noiseRule));
  const repeats = rules.has('repeat-intervals') ? ' A run that repeated its profile ranks by the mean across repeats, shown ± its 95% interval.' : '';
  const judged = [...rules].flatMap((rule) => (rule === 'repeat-intervals' || rule === 'small-change' ? [NOISE_RULE_TEXT[rule]] : []));
  return (
    'Runs rank by output tokens per second at their heaviest load within the SLO; \u2248 marks a run within noise of the one above, and they share a rank.' +
    repeats +
    (judged.length ? ` Each run against the one above: ${judged.join(' ')}` : '')
  );
}

/** A rank as the tables show it: "≈1" for a run within noise of the one above, sharing its rank. */
export const rankText = (row: RankingRow): string => (row.tiedWithAbove ? `\u2248${row.rank}` : String(row.rank));

/** The heads of the ranking table, over `rankingRows`: the same in the HTML export and the extension's report view. */
export function rankingColumns(model: ReportModel): string[] {
  return ['Rank', 'Run', 'Group', 'Heaviest step meeting the SLO', 'Load', 'Requests/s', 'Output tok/s', `TTFT ${model.stat} (ms)`, `TPOT ${model.stat} (ms)`, `Latency ${model.stat} (ms)`, 'Best goodput (req/s)', 'Knee'];
}

/** The cells of the ranking table, one row a run: the same in the HTML export and the extension's report view. */
export function rankingRows(model: ReportModel): string[][] {
  return model.ranking.map((r) => [
    rankText(r),
    r.name,
    r.group,
    r.step ?? 'none',
    fixed(r.load),
    fixed(r.requestsPerSecond),
    r.outputTokensPerSecondHalfWidth === undefined ? fixed(r.outputTokensPerSecond) : `${fixed(r.outputTokensPerSecond)} ± ${fixed(r.outputTokensPerSecondHalfWidth)}`,
    fixed(r.ttftMs),
    fixed(r.tpotMs),
    fixed(r.latencyMs),
    r.goodput === null ? NOT_AVAILABLE : `${fixed(r.goodput)} at ${r.goodputStep ?? '?'}`,
    model.knees[r.run]?.step ?? 'none',
  ]);
}

/** The knee table's columns: each run's knee and, beside it, where its server ran out of room. */
export const KNEE_COLUMNS = ['Run', 'Knee', 'Load', `KV cache first \u2265 ${KV_CACHE_FULL * 100}%`, 'First kept waiting'];

/** What the knee table says, under it in the report view and the HTML and Markdown exports. */
export const SERVER_MARKS_NOTE =
  `The knee is where added load stops buying throughput (the large point on the curves). Beside it, from each run's server metrics: where its KV cache first reached ${KV_CACHE_FULL * 100}% (\u25B3 on the curves) ` +
  'and where requests first kept waiting, above zero in every scrape for a second or more and two scrapes at least (\u25A1), by step and run time. A knee at or after them is the server running out of room. ' +
  'Not seen: no scrape caught it (steps shorter than that can hide a queue); n/a: the server did not export it or was not scraped.';

/** One row a run: its knee, and its server marks beside it; the same cells in the report view and the HTML and Markdown exports. */
export function kneeRows(model: ReportModel): string[][] {
  return model.knees.map((knee) => [knee.name, knee.step ?? 'none', fixed(knee.load), markText(knee.kvCacheFull), markText(knee.queueing)]);
}

/** A report chart as the shared chart spec: each run's curve, its knee a ringed point, its server marks outlined. */
export function reportChartSpec(chart: ReportChart): ChartSpec {
  const series: SeriesSpec[] = chart.curves.flatMap((curve): SeriesSpec[] => {
    const line: SeriesSpec = {
      label: curve.name,
      data: curve.points.map(({ x, y }) => ({ x, y })),
      color: curve.color,
      dashed: curve.dashed,
      pointRadius: 3,
    };
    const knee: SeriesSpec[] = curve.knee
      ? [{ label: `${curve.name} knee (${curve.knee.step})`, data: [{ x: curve.knee.x, y: curve.knee.y }], color: curve.color, showLine: false, pointRadius: 8, hideInLegend: true }]
      : [];
    const marks = curve.marks.map((mark): SeriesSpec => ({
      label: `${curve.name} ${MARK_WORDS[mark.kind]} (${mark.point.step})`,
      data: [{ x: mark.point.x, y: mark.point.y }],
      color: curve.color,
      showLine: false,
      // Outlines larger than the knee's point, which may sit on the same step.
      pointRadius: mark.kind === 'kv-cache-full' ? 13 : 11,
      pointStyle: mark.kind === 'kv-cache-full' ? 'triangle' : 'rect',
      hollow: true,
      hideInLegend: true,
    }));
    return [line, ...knee, ...marks];
  });
  return { kind: 'line', x: { title: chart.xTitle, ...(chart.xLog ? { log: true } : {}) }, y: { title: chart.yTitle }, series };
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
