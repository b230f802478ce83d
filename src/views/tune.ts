/**
 * What the tune views draw, from a tune file (or a running tune's state, which holds the same
 * trials): the trials table, the objective per trial with the best so far, the objective against
 * each parameter, and the Pareto front of throughput against the SLO metric. Pure; the host runs it
 * for the `*.llmtune.json` editor, the live tune panel's webview for its state.
 */
import type { NoiseRule } from '../format/messages/result';
import type { TuneChart, TuneColumn, TuneLiveState, TuneRow, TuneView } from '../format/messages/tune';
import { METRICS, metricTitle, type MetricKey } from '../format/metrics';
import type { StepSummary } from '../format/result';
import { parseSloKey, sloFigure, type BestTrial, type Objective, type ParamSpec, type ParamValue, type Params, type Remeasure, type Trial, type TuneConfig, type TuneStatus } from '../format/tune';
import type { MeanInterval } from '../results/stats';
import { writtenCommand } from '../tune/space';
import { wantsLogAxis } from './axis';
import { commandLine } from './command-line';
import type { ChartSpec } from './chart-spec';
import { judgeChange, NO_INTERVAL_NOISE_PERCENT } from './noise';
import { english, joinSentences, statusWord, type Translate } from './l10n';
import { sayWarning } from './step-warnings';
import { formatMetric, formatNumber, NOT_AVAILABLE } from './number-format';

/** What the views need of a tune: a tune file has it all, a running tune's state too. */
export interface TuneData {
  config: TuneConfig;
  trials: Trial[];
  best: BestTrial | null;
  /** The re-measurement of the best candidates after the search, once it started. */
  remeasure?: Remeasure | null;
  status: TuneStatus;
  statusReason: string | null;
}

/** One measured step of a trial's result file: a point of the Pareto chart. */
export interface StepMeasure {
  trial: number;
  /** The SLO metric's figure (ms). */
  figure: number;
  throughput: number;
}

/** "p99 TTFT" */
export function sloFigureName(key: string): string {
  const { metric, stat } = parseSloKey(key);
  return `${stat} ${METRICS[metric].label}`;
}

/** "p99 TTFT <= 2,000 ms" for each SLO of the objective. */
export function sloTexts(objective: Objective): string[] {
  return Object.entries(objective.slo).map(([key, limit]) => `${sloFigureName(key)} \u2264 ${formatNumber(limit)} ms`);
}

/** What the tune maximizes, with its unit: "output tok/s", "highest rate within the SLOs (req/s)". */
export function objectiveTitle(objective: Objective): string {
  if (objective.mode === 'max-load-within-slo') {
    return objective.load.kind === 'rate' ? 'highest rate within the SLOs (req/s)' : 'highest concurrency within the SLOs';
  }
  return metricTitle(objective.maximize);
}

/** An objective's value: a throughput at its metric's precision, a load found as a plain number. */
export function formatObjective(objective: Objective, value: number | null): string {
  if (value === null) return NOT_AVAILABLE;
  return objective.mode === 'maximize' ? formatMetric(objective.maximize, value) : formatNumber(value);
}

export function paramValueText(value: ParamValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return typeof value === 'number' ? String(value) : value;
}

export function paramsText(params: Params): string {
  return Object.entries(params)
    .map(([name, value]) => `${name}=${paramValueText(value)}`)
    .join(', ');
}

export { commandLine } from './command-line';

/** A figure of the tune: its value and, once re-measured, its 95% interval. */
export interface TrialFigure {
  trial: number;
  value: number;
  interval: MeanInterval | null;
}

/**
 * Where the best stands: its figure (with its interval once re-measured) and the trials within
 * noise of it, by the project's one within-noise rule (src/views/noise.ts): the re-measured
 * candidates whose 95% intervals overlap the best's, or, without re-measurement, the trials less
 * than NO_INTERVAL_NOISE_PERCENT apart with one value each.
 */
export interface Standing {
  best: TrialFigure;
  ties: TrialFigure[];
  /** The rule that made the ties ties (the first tie's). */
  rule: NoiseRule | null;
  /** Whether the best's figure is the mean of its re-measurements. */
  remeasured: boolean;
}

/** The figure the within-noise rule judges: what is maximized, or (max-load-within-slo) a load, higher better as a throughput is. */
const objectiveMetric = (objective: Objective): MetricKey => (objective.mode === 'maximize' ? objective.maximize : 'requestsPerSecond');

export function tuneStanding(data: TuneData): Standing | null {
  if (!data.best) return null;
  const metric = objectiveMetric(data.config.objective);
  const summaries = data.remeasure?.summaries ?? [];
  const own = summaries.find((s) => s.trial === data.best!.trial && s.mean !== null);
  const figureOf = (trial: number, value: number): TrialFigure => {
    const summary = summaries.find((s) => s.trial === trial && s.mean !== null);
    return summary ? { trial, value: summary.mean as number, interval: { n: summary.n, mean: summary.mean as number, halfWidth: summary.halfWidth } } : { trial, value, interval: null };
  };
  const best = figureOf(data.best.trial, data.best.objective);
  const others: TrialFigure[] = own
    ? summaries.filter((s) => s.trial !== best.trial && s.mean !== null).map((s) => figureOf(s.trial, s.mean as number))
    : data.trials.filter((t) => t.status === 'complete' && t.objective !== null && t.number !== best.trial).map((t) => ({ trial: t.number, value: t.objective as number, interval: null }));
  let rule: NoiseRule | null = null;
  const ties = others
    .filter((other) => {
      const evidence = best.interval && other.interval ? { repeats: { a: best.interval, b: other.interval } } : null;
      const cell = judgeChange(metric, best.value, other.value, evidence);
      if (cell.verdict === 'same') rule ??= cell.rule;
      return cell.verdict === 'same';
    })
    .sort((a, b) => b.value - a.value || a.trial - b.trial);
  return { best, ties, rule, remeasured: own !== undefined };
}

/** A figure as the views write it: "3,087 ± 87" once re-measured, else "3,149". */
export function figureText(objective: Objective, figure: Pick<TrialFigure, 'value' | 'interval'>): string {
  const halfWidth = figure.interval?.halfWidth;
  return `${formatObjective(objective, figure.value)}${typeof halfWidth === 'number' ? ` \u00b1 ${formatObjective(objective, halfWidth)}` : ''}`;
}

/** "trials 2 (3,127) and 5 (3,121)" */
function tiesList(objective: Objective, ties: readonly TrialFigure[], t: Translate): string {
  const items = ties.map((tie) => `${tie.trial} (${figureText(objective, tie)})`);
  if (items.length === 1) return t('trial {0}', items[0]!);
  return t('trials {0}', t('{0} and {1}', items.slice(0, -1).join(', '), items.at(-1)!));
}

/** Why the ties are ties, in the rule's own terms. */
function tieReason(standing: Standing, t: Translate): string {
  if (standing.rule === 'repeat-intervals') return t('their 95% intervals across re-measurements overlap');
  return standing.remeasured
    ? t('under {0}% apart with one value each', NO_INTERVAL_NOISE_PERCENT)
    : t('under {0}% apart with one value each; re-measure them to tell them apart', NO_INTERVAL_NOISE_PERCENT);
}

/** "mean of 3 re-measurements, 95% interval", or "one measurement, not re-measured". */
function measuredText(standing: Standing, t: Translate): string {
  const n = standing.best.interval?.n ?? 1;
  if (!standing.remeasured) return t('one measurement, not re-measured');
  const mean = n === 1 ? t('mean of 1 re-measurement') : t('mean of {0} re-measurements', n);
  return standing.best.interval?.halfWidth != null ? t('{0}, 95% interval', mean) : mean;
}

/** What the search's single figures are, while and after the tune: re-measured later, never, or not (an older tune, a cut one). */
function singleMeasurementText(data: TuneData, t: Translate): string {
  if (data.config.remeasure === false) return t("the search's figures are one measurement each, not re-measured (remeasure is off)");
  if (data.status === 'running') return t("the search's figures are one measurement each: the best {0} are re-measured after the search", data.config.remeasure.candidates);
  return t("the search's figures are one measurement each, not re-measured");
}

/** "Noise: one measurement moved by 1.5% (...)", or null before any candidate has two scored runs. */
export function noiseText(remeasure: Remeasure | null | undefined, t: Translate = english): string | null {
  if (!remeasure || remeasure.noisePercent === null) return null;
  return t('Noise: one measurement moved by {0}% (the standard deviation across re-measurements of the same flags, as a share of their mean).', remeasure.noisePercent.toFixed(1));
}

/** What the command line prints under "Best:": the ties and the noise. */
export function standingLines(data: TuneData): string[] {
  const standing = tuneStanding(data);
  if (!standing) return [];
  const lines: string[] = [];
  if (standing.ties.length > 0) lines.push(`Within noise of it: ${tiesList(data.config.objective, standing.ties, english)}: ${tieReason(standing, english)}.`);
  else if (standing.remeasured) lines.push('No other candidate is within noise of it.');
  const noise = noiseText(data.remeasure);
  if (noise) lines.push(noise);
  return lines;
}

/** The best trial's figure in a line of the command line: "3,087 ± 87 output tok/s (mean of 2 re-measurements, 95% interval)". */
export function bestFigureText(data: TuneData): string | null {
  const standing = tuneStanding(data);
  return standing ? `${figureText(data.config.objective, standing.best)} ${objectiveTitle(data.config.objective)} (${standing.remeasured ? measuredText(standing, english) : 'one measurement'})` : null;
}


function sloVerdict(trial: Trial, t: Translate): string {
  if (!trial.slo) return NOT_AVAILABLE;
  return trial.slo.met ? t('met') : t('missed');
}

/** Whether the view has a re-measured column: once the re-measurement started. */
const hasRemeasure = (data: TuneData): boolean => (data.remeasure?.candidates.length ?? 0) > 0;

/** The trials table's columns: labels and units are keys the page looks up; the descriptions built here are worded in the display language. */
function tableColumns(data: TuneData, t: Translate): TuneColumn[] {
  const sloKeys = Object.keys(data.config.objective.slo);
  return [
    { label: '#', numeric: true, description: 'The trial, in the order it ran. Click a row to open its result file.' },
    ...Object.keys(data.config.space).map((name) => ({ label: name, description: t('The server parameter {0}', name) })),
    { label: 'status', description: 'complete; refused (a constraint ruled the combination out: no launch); failed to start (the server exited or never got ready); failed (the benchmark failed).' },
    { label: 'objective', unit: objectiveTitle(data.config.objective), numeric: true, description: "The figure maximized, at the best load meeting every SLO, as the search measured it once; n/a when no step met them." },
    ...(hasRemeasure(data)
      ? [{ label: 're-measured', unit: objectiveTitle(data.config.objective), numeric: true, breaks: true, description: "For the best candidates of the search: the mean of their re-measurements after it (not counting the search's figure, picked for being high) \u00b1 the half-width of its 95% Student's t interval." }]
      : []),
    ...sloKeys.map((key) => {
      const { metric } = parseSloKey(key);
      return { label: sloFigureName(key), unit: 'ms', numeric: true, description: joinSentences(t(METRICS[metric].definition), t('SLO: at most {0} ms.', formatNumber(data.config.objective.slo[key]))) };
    }),
    ...(sloKeys.length > 0 ? [{ label: 'SLO', description: 'Whether the measured figures met every SLO.' }] : []),
    { label: 'reason', wrap: true, description: 'Why the trial did not complete: the rule it broke, the server\'s last error line, the benchmark\'s failure.' },
  ];
}

/** A candidate's re-measured figure in the table: "3,087 \u00b1 87", "(1 of 3 missed)" added; empty for a trial not re-measured. */
function remeasuredCell(data: TuneData, trial: number, t: Translate): string {
  const summary = data.remeasure?.summaries.find((s) => s.trial === trial);
  if (!summary) return '';
  const missed = summary.missed > 0 ? ` ${t('({0} of {1} missed)', summary.missed, summary.n + summary.missed)}` : '';
  if (summary.mean === null) return summary.missed > 0 ? `${t('none scored')}${missed}` : '';
  // The half-width stays with its ±, which may go to a second line in a narrow editor.
  const figure = figureText(data.config.objective, { value: summary.mean, interval: { n: summary.n, mean: summary.mean, halfWidth: summary.halfWidth } }).replace(' \u00b1 ', ' \u00b1\u00a0');
  return `${figure}${missed}`;
}

function trialRow(data: TuneData, trial: Trial, ties: ReadonlySet<number>, t: Translate): TuneRow {
  const sloKeys = Object.keys(data.config.objective.slo);
  return {
    trial: trial.number,
    status: trial.status,
    cells: [
      String(trial.number),
      ...Object.keys(data.config.space).map((name) => paramValueText(trial.params[name])),
      statusWord(trial.status, t),
      formatObjective(data.config.objective, trial.objective),
      ...(hasRemeasure(data) ? [remeasuredCell(data, trial.number, t)] : []),
      ...sloKeys.map((key) => {
        const value = trial.slo?.figures[key];
        return formatMetric(parseSloKey(key).metric, value);
      }),
      ...(sloKeys.length > 0 ? [sloVerdict(trial, t)] : []),
      trial.reason === null ? '' : sayWarning(trial.reason, t),
    ],
    resultFile: trial.resultFile,
    best: data.best?.trial === trial.number,
    tie: ties.has(trial.number),
  };
}

/** A trial launching or being benchmarked: its parameters, no figures yet. */
function runningRow(data: TuneData, running: NonNullable<TuneLiveState['running']>, t: Translate): TuneRow {
  const sloKeys = Object.keys(data.config.objective.slo);
  return {
    trial: running.trial,
    status: 'running',
    cells: [
      String(running.trial),
      ...Object.keys(data.config.space).map((name) => paramValueText(running.params[name])),
      running.stage === 'benchmarking' ? t('benchmarking') : t('starting'),
      '',
      ...(hasRemeasure(data) ? [''] : []),
      ...sloKeys.map(() => ''),
      ...(sloKeys.length > 0 ? [''] : []),
      // The benchmark's progress has its own line above the table (src/views/tune-live.ts runningTrialProgress), not the reason column.
      '',
    ],
    resultFile: null,
    best: false,
    tie: false,
  };
}

function counts(trials: Trial[], t: Translate): string {
  const by = (status: Trial['status']) => trials.filter((trial) => trial.status === status).length;
  const parts: [number, (n: number) => string][] = [
    [by('complete'), (n) => t('{0} complete', n)],
    [by('refused'), (n) => t('{0} refused without a launch', n)],
    [by('failed-to-start'), (n) => t('{0} failed to start', n)],
    [by('failed'), (n) => t('{0} failed', n)],
  ];
  return parts.filter(([n]) => n > 0).map(([n, words]) => words(n)).join(', ');
}

export function tuneHeadline(data: TuneData, t: Translate = english): string {
  const budget = data.config.budget.trials;
  const n = data.trials.length;
  if (n === 0) return budget !== undefined ? t('No trial of the {0} finished yet.', budget) : t('No trial finished yet.');
  const summary =
    budget !== undefined
      ? n === 1 ? t('1 trial of {0}: {1}', budget, counts(data.trials, t)) : t('{0} trials of {1}: {2}', n, budget, counts(data.trials, t))
      : n === 1 ? t('1 trial: {0}', counts(data.trials, t)) : t('{0} trials: {1}', n, counts(data.trials, t));
  const standing = tuneStanding(data);
  if (!standing) return t('{0}. No trial met the SLOs yet.', summary);
  const { objective } = data.config;
  const how = standing.remeasured ? t('trial {0}, {1}', standing.best.trial, measuredText(standing, t)) : t('trial {0}', standing.best.trial);
  const ties = standing.ties.length > 0 ? t(', tied within noise with {0}', tiesList(objective, standing.ties, t)) : '';
  const figure = figureText(objective, standing.best);
  const title = t(objectiveTitle(objective));
  if (!standing.remeasured) return t('{0}. Best: {1} {2} ({3}){4}; {5}.', summary, figure, title, how, ties, singleMeasurementText(data, t));
  const noise = noiseText(data.remeasure, t);
  return joinSentences(t('{0}. Best: {1} {2} ({3}){4}.', summary, figure, title, how, ties), noise ?? '');
}

/** Objective per trial (points) and the best so far (a step line). */
export function progressChart(data: TuneData, t: Translate = english): TuneChart {
  const measured = data.trials.filter((t) => t.objective !== null).map((t): [number, number] => [t.number, t.objective as number]);
  const bestSoFar: [number, number][] = [];
  let best = -Infinity;
  for (const trial of [...data.trials].sort((a, b) => a.number - b.number)) {
    if (trial.objective !== null && trial.objective > best) best = trial.objective;
    if (best > -Infinity) bestSoFar.push([trial.number, best]);
  }
  const missed = data.trials.filter((t) => t.objective === null).map((t): [number, number] => [t.number, 0]);
  const remeasured = (data.remeasure?.runs ?? []).flatMap((r): [number, number][] => (r.objective === null ? [] : [[r.trial, r.objective]]));
  return {
    id: 'objective-per-trial',
    title: t('Objective per trial'),
    description: joinSentences(
      t("Each trial's objective, and the best found up to that trial. Trials that measured nothing or met no SLO sit at zero."),
      remeasured.length > 0 ? t('Re-measurements of the best candidates after the search sit over their trial: their spread is the noise.') : '',
    ),
    // Trials are whole numbers: ticks at each, with half a trial of room either side (one trial sat on an axis of 0 to 1.2 by 0.2).
    x: { title: 'trial', integer: true, min: 0.5, max: Math.max(1, ...data.trials.map((t) => t.number)) + 0.5 },
    y: { title: objectiveTitle(data.config.objective) },
    series: [
      { label: 'trial', points: measured, color: 0, line: false, pointRadius: 4 },
      { label: 'best so far', points: bestSoFar, color: 'success', line: true, pointRadius: 0 },
      { label: 'no objective', points: missed, color: 'muted', line: false, pointRadius: 3 },
      ...(remeasured.length > 0 ? [{ label: 're-measured', points: remeasured, color: 'warning' as const, line: false, pointRadius: 3 }] : []),
    ],
    markers: [],
  };
}

/**
 * Where a parameter's values go on x: an integer range as numbers (on a log axis when the space is
 * log or spans far); a choice's values, numbers too, and a bool's off/on as evenly spaced
 * categories, each named, in the space's order.
 */
function parameterAxis(spec: ParamSpec): { categories?: string[]; log?: boolean; position: (v: ParamValue) => number | null } {
  if (spec.type === 'bool') return { categories: ['off', 'on'], position: (v) => (typeof v === 'boolean' ? Number(v) : null) };
  if (spec.type === 'choice') {
    const categories = spec.values.map(String);
    return { categories, position: (v) => (categories.includes(String(v)) ? categories.indexOf(String(v)) : null) };
  }
  const log = spec.log || wantsLogAxis([spec.min, spec.max]);
  return { ...(log ? { log } : {}), position: (v) => (typeof v === 'number' ? v : null) };
}

/** The objective against each parameter: one small scatter per parameter, the best trial marked. */
export function effectCharts(data: TuneData, t: Translate = english): TuneChart[] {
  const measured = data.trials.filter((t) => t.objective !== null);
  return Object.entries(data.config.space).map(([name, spec]) => {
    const axis = parameterAxis(spec);
    const pointOf = (t: Trial): [number, number][] => {
      const x = axis.position(t.params[name] as ParamValue);
      return x === null ? [] : [[x, t.objective as number]];
    };
    return {
      id: `effect-${name}`,
      title: name,
      description: t('The objective of each trial that measured one, against {0}. The best trial is the larger green point.', name),
      x: { title: name, ...(axis.log ? { log: true } : {}), ...(axis.categories ? { categories: axis.categories } : {}) },
      y: { title: objectiveTitle(data.config.objective) },
      series: [
        { label: 'trial', points: measured.filter((t) => t.number !== data.best?.trial).flatMap(pointOf), color: 0, line: false, pointRadius: 4 },
        { label: 'best', points: measured.filter((t) => t.number === data.best?.trial).flatMap(pointOf), color: 'success', line: false, pointRadius: 7 },
      ],
      markers: [],
    };
  });
}

/** The figure the Pareto chart is drawn against without an SLO. */
const PARETO_FIGURE_WITHOUT_SLO = 'latencyMs.p99';

/** The SLO figure the Pareto chart is drawn against: the first SLO's, else p99 latency. */
export function paretoFigureKey(objective: Objective): string {
  return Object.keys(objective.slo)[0] ?? PARETO_FIGURE_WITHOUT_SLO;
}

/** The throughput of the Pareto chart: what is maximized when it is a throughput, else output tokens per second. */
export function paretoThroughputKey(objective: Objective): 'outputTokensPerSecond' | 'requestsPerSecond' | 'goodput' {
  return objective.mode === 'maximize' ? objective.maximize : 'outputTokensPerSecond';
}

/** A step's point for the Pareto chart, or null when it lacks either figure. */
export function stepMeasure(trial: number, summary: StepSummary, objective: Objective): StepMeasure | null {
  const figure = sloFigure(summary, paretoFigureKey(objective));
  const throughput = summary[paretoThroughputKey(objective)];
  return typeof figure === 'number' && typeof throughput === 'number' ? { trial, figure, throughput } : null;
}

/** The points no other point beats on both figures (lower SLO figure, higher throughput), by figure ascending. */
export function paretoFront(points: StepMeasure[]): StepMeasure[] {
  const sorted = [...points].sort((a, b) => a.figure - b.figure || b.throughput - a.throughput);
  const front: StepMeasure[] = [];
  for (const point of sorted) {
    if (front.length === 0 || point.throughput > (front[front.length - 1] as StepMeasure).throughput) front.push(point);
  }
  return front;
}

export function paretoChart(data: TuneData, measures: StepMeasure[], t: Translate = english): TuneChart | null {
  if (measures.length === 0) return null;
  const key = paretoFigureKey(data.config.objective);
  const throughput = paretoThroughputKey(data.config.objective);
  const limit = data.config.objective.slo[key];
  const front = paretoFront(measures);
  const toPoint = (m: StepMeasure): [number, number] => [m.figure, m.throughput];
  return {
    id: 'pareto',
    title: t('{0} against {1}', t(METRICS[throughput].label), sloFigureName(key)),
    description: joinSentences(
      t("Every measured step of every trial (a trial's steps are its loads). The front joins the steps no other step beats on both: more {0} at a lower {1}.", t(METRICS[throughput].label), sloFigureName(key)),
      limit !== undefined ? t('The dashed line is the SLO.') : '',
    ),
    x: { title: `${sloFigureName(key)} (ms)`, ...(wantsLogAxis(measures.map((m) => m.figure)) ? { log: true } : {}) },
    y: { title: metricTitle(throughput) },
    series: [
      // The front's steps are drawn once, as the front (chart.js draws the first series on top).
      { label: 'step', points: measures.filter((m) => !front.includes(m)).map(toPoint), color: 'muted', line: false, pointRadius: 3 },
      { label: 'Pareto front', points: front.map(toPoint), color: 0, line: true, pointRadius: 4 },
    ],
    markers: limit !== undefined ? [{ x: limit, label: `SLO ${formatNumber(limit)} ms` }] : [],
  };
}

function bestView(data: TuneData, t: Translate): TuneView['best'] {
  const standing = tuneStanding(data);
  if (!data.best || !standing) return null;
  const { objective } = data.config;
  return {
    trial: data.best.trial,
    objective: `${figureText(objective, standing.best)} ${t(objectiveTitle(objective))}`,
    measured: measuredText(standing, t),
    params: paramsText(data.best.params),
    commandLine: commandLine(writtenCommand(data.config.server, data.config.space, data.best.params)),
    ties: standing.ties.map((t) => t.trial),
    tieText: standing.ties.length > 0 ? t('Tied within noise with {0}: {1}.', tiesList(objective, standing.ties, t), tieReason(standing, t)) : null,
    noise: standing.remeasured ? noiseText(data.remeasure, t) : null,
  };
}

/**
 * A tune's whole view. The editor gives the file's steps for the Pareto chart; the live panel gives
 * the trial under way, the table's last row, and shows the tune's state in its own words.
 */
export function buildTuneView(data: TuneData, fileName: string, measures: StepMeasure[], live?: { running: TuneLiveState['running'] }, t: Translate = english): TuneView {
  const notes: string[] = [];
  if (!live && data.status === 'running') notes.push(t('The tune is still running, or its tuner stopped before finishing the file (then `llmbench tune --resume` continues it). The view follows the file as trials end.'));
  if (!live && data.statusReason && data.status !== 'complete') notes.push(t('The tune ended {0}: {1}', statusWord(data.status, t), sayWarning(data.statusReason, t)));
  // A re-measurement's launch is of a trial already in the table: the headline says it runs.
  const running = live?.running && live.running.round === undefined ? live.running : null;
  const ties = new Set(tuneStanding(data)?.ties.map((t) => t.trial));
  const rows = data.trials.map((trial) => trialRow(data, trial, ties, t));
  if (running) rows.push(runningRow(data, running, t));
  // Without a reason to show (every trial complete), the reason column would only widen the table.
  const columns = tableColumns(data, t);
  if (rows.every((row) => row.cells.at(-1) === '')) {
    columns.pop();
    for (const row of rows) row.cells.pop();
  }
  return {
    fileName,
    status: data.status,
    statusReason: data.statusReason,
    headline: tuneHeadline(data, t),
    objective: t(objectiveTitle(data.config.objective)),
    slo: sloTexts(data.config.objective),
    columns,
    rows,
    progress: progressChart(data, t),
    effects: effectCharts(data, t),
    pareto: paretoChart(data, measures, t),
    best: bestView(data, t),
    notes,
  };
}

/** A tune's chart as the shared chart spec (webview/shared/charts.ts draws it). */
export function tuneChartSpec(chart: TuneChart): ChartSpec {
  return {
    kind: 'scatter',
    x: {
      title: chart.x.title,
      ...(chart.x.log ? { log: true } : {}),
      ...(chart.x.categories ? { categories: chart.x.categories } : {}),
      ...(chart.x.integer ? { integer: true } : {}),
      ...(chart.x.min !== undefined ? { min: chart.x.min } : {}),
      ...(chart.x.max !== undefined ? { max: chart.x.max } : {}),
    },
    y: { title: chart.y.title },
    series: chart.series.map((s) => ({
      label: s.label,
      data: s.points.map(([x, y]) => ({ x, y })),
      color: s.color,
      showLine: s.line,
      pointRadius: s.pointRadius,
    })),
    markers: chart.markers,
  };
}
