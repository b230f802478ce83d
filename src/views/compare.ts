/**
 * Two runs -> the compare view: both on the same charts, each on its own side by side, and a table
 * of B's change against A per step that tells a change from noise (src/views/noise.ts decides, cell
 * by cell, and the view states the rules that did). Pure (no `vscode`): unit tested.
 */
import type { ReadResult } from '../results/read-result';
import { latencySamples } from '../results/stats';
import { rowsEmbedded, rowsReasoned, type CompareView, type DeltaCell, type DeltaRow, type RepeatRow, type ResultView, type StepRow, type TableSection, type ViewChart } from '../format/messages/result';
import type { MetricKey } from '../format/metrics';
import { ttfoStatsOf, type ResultDocument, type Step } from '../format/result';
import { judgeChange, noiseRulesText } from './noise';
import { alignAxes, buildResultView, chart, chooseXAxis, loadSeries, type LoadStyle, type RowValue } from './result';
import { compareServerFigures } from './server-views';
import { hasRepeats, repeatFigures, stepFigures } from './repeats';
import { rateDefinitionsDiffer, sayWarning } from './step-warnings';
import { stepLabel } from '../format/step-name';
import { english, type Translate } from './l10n';

type SampleMetric = 'ttftMs' | 'tpotMs' | 'latencyMs' | 'itlMs' | 'ttfoMs';
const SAMPLE_OF: Record<SampleMetric, 'ttft' | 'tpot' | 'latency' | 'itl' | 'ttfo'> = { ttftMs: 'ttft', tpotMs: 'tpot', latencyMs: 'latency', itlMs: 'itl', ttfoMs: 'ttfo' };

type Statistic = NonNullable<DeltaCell['statistic']>;
const QUANTILE: Record<Statistic, number> = { p50: 0.5, p99: 0.99 };

/** The columns of the delta table: the result table's default columns, in its order (TTFO too when either run reasoned). */
export const deltaFigures = (a: readonly StepRow[], b: readonly StepRow[]) => stepFigures([...a, ...b]);

/**
 * Pairs the steps of two runs: by name (concurrency@8 with concurrency@8), or, when no name
 * matches but both have as many steps (two sweeps landing on different rates), by position.
 */
export function pairSteps<T extends { name: string }>(a: T[], b: T[]): [T, T][] {
  const byName = new Map(b.map((row) => [row.name, row]));
  const named = a.flatMap((row): [T, T][] => {
    const other = byName.get(row.name);
    return other ? [[row, other]] : [];
  });
  if (named.length > 0 || a.length !== b.length) return named;
  return a.map((row, i) => [row, b[i] as T]);
}

/**
 * Pairs the steps of two runs by name and repeat, as step indexes [of A, of B]: the same step of the
 * same repeat when both or neither repeated their profile (by position when no name matches, as
 * pairSteps); when only one did, each of its repeats with the other run's step of that name.
 * The delta table and the server table of compare pair steps this one way.
 */
export function pairStepsByRepeat(a: readonly { name: string; repeat?: number | undefined }[], b: readonly { name: string; repeat?: number | undefined }[]): [number, number][] {
  const indexed = (steps: typeof a) => steps.map((step, index) => ({ name: step.name, repeat: step.repeat, index }));
  const [ia, ib] = [indexed(a), indexed(b)];
  const [ra, rb] = [hasRepeats(a), hasRepeats(b)];
  if (ra === rb) {
    const key = (s: { name: string; repeat?: number | undefined }) => `${s.name}\u0000${s.repeat ?? ''}`;
    const byKey = new Map(ib.map((s) => [key(s), s.index]));
    const named = ia.flatMap((s): [number, number][] => (byKey.has(key(s)) ? [[s.index, byKey.get(key(s)) as number]] : []));
    if (named.length > 0 || a.length !== b.length) return named;
    return ia.map((s) => [s.index, s.index]);
  }
  const single = new Map((ra ? ib : ia).map((s) => [s.name, s.index]));
  return (ra ? ia : ib).flatMap((s): [number, number][] => {
    const other = single.get(s.name);
    if (other === undefined) return [];
    return ra ? [[s.index, other]] : [[other, s.index]];
  });
}

/**
 * B against A when only one of them repeated its profile: the repeated run's mean across repeats,
 * with its interval, against the other's single value of the same step (rule
 * `repeat-interval-single`: within noise when the value lies inside the interval).
 */
export function repeatedAgainstSingleRows(a: { rows: StepRow[]; repeats?: RepeatRow[] | undefined }, b: { rows: StepRow[]; repeats?: RepeatRow[] | undefined }): DeltaRow[] {
  const repeatedSide = a.repeats ? 'a' : 'b';
  const repeated = (a.repeats ?? b.repeats) as RepeatRow[];
  const single = new Map((repeatedSide === 'a' ? b.rows : a.rows).map((row) => [row.name, row]));
  return repeated.flatMap((row): DeltaRow[] => {
    const other = single.get(row.name);
    if (other === undefined) return [];
    return [
      {
        stepA: repeatedSide === 'a' ? `${row.name} (mean of ${row.repeats} repeats)` : other.name,
        stepB: repeatedSide === 'b' ? `${row.name} (mean of ${row.repeats} repeats)` : other.name,
        cells: repeatFigures(repeatedSide === 'a' ? a.rows : b.rows).map(({ metric, statistic, value }, i) => {
          const cell = row.cells[i];
          const across = cell?.mean != null ? { n: cell.n, mean: cell.mean, halfWidth: cell.halfWidth } : null;
          const v = value(other);
          const point = typeof v === 'number' && Number.isFinite(v) ? { n: 1, mean: v, halfWidth: 0 } : null;
          const [ca, cb] = repeatedSide === 'a' ? [across, point] : [point, across];
          const evidence = ca && cb ? { repeatedAgainstSingle: { a: ca, b: cb } } : null;
          return judgeChange(metric, ca?.mean, cb?.mean, evidence, statistic);
        }),
      },
    ];
  });
}

/** Per-request samples of each step, by step name. */
type StepSamples = Map<string, ReturnType<typeof latencySamples>>;

function samplesOf(doc: ResultDocument): StepSamples {
  return new Map(doc.steps.map((step: Step) => [step.name, latencySamples(step.requests)]));
}

export function deltaRows(a: StepRow[], b: StepRow[], samples?: { a: StepSamples; b: StepSamples }): DeltaRow[] {
  return pairSteps(a, b).map(([ra, rb], stepIndex) => ({
    stepA: ra.name,
    stepB: rb.name,
    cells: deltaFigures(a, b).map(({ metric, statistic, value }, metricIndex) => {
      const key = SAMPLE_OF[metric as SampleMetric];
      const sa = key ? samples?.a.get(ra.name)?.[key] : undefined;
      const sb = key ? samples?.b.get(rb.name)?.[key] : undefined;
      const evidence = sa && sb ? { samples: { a: sa, b: sb, quantile: QUANTILE[statistic ?? 'p50'], seed: 1 + stepIndex * 31 + metricIndex } } : null;
      return judgeChange(metric, value(ra), value(rb), evidence, statistic);
    }),
  }));
}

/**
 * B against A for runs that both repeated their profile: each figure is its mean across repeats,
 * judged by the two runs' intervals across repeats (a figure with one repeat on a side has none).
 */
export function repeatDeltaRows(a: RepeatRow[], b: RepeatRow[]): DeltaRow[] {
  return pairSteps(a, b).map(([ra, rb]) => ({
    stepA: ra.name,
    stepB: rb.name,
    cells: ra.cells.map((ca, i) => {
      const cb = rb.cells[i];
      const evidence = ca.mean !== null && cb?.mean != null ? { repeats: { a: { ...ca, mean: ca.mean }, b: { ...cb, mean: cb.mean } } } : null;
      return judgeChange(ca.metric, ca.mean, cb?.mean, evidence, ca.statistic);
    }),
  }));
}

/** How the deltas were judged, for the reader: the rules that decided them, and the repeats behind them. */
function noiseRuleText(deltas: DeltaRow[], repeats: { a?: RepeatRow[] | undefined; b?: RepeatRow[] | undefined }, t: Translate): string {
  const counts = (rows: RepeatRow[]) => [...new Set(rows.map((r) => r.repeats))].join('/');
  const said =
    repeats.a && repeats.b
      ? `${t('Both runs repeated their profile (A {0}, B {1} repeats).', counts(repeats.a), counts(repeats.b))} `
      : repeats.a || repeats.b
        ? `${t(
            repeats.a
              ? "Only A repeated its profile ({0} repeats): its figures are means across repeats, each against B's single value of the same step."
              : "Only B repeated its profile ({0} repeats): its figures are means across repeats, each against A's single value of the same step.",
            counts((repeats.a ?? repeats.b) as RepeatRow[]),
          )} `
        : '';
  return said + noiseRulesText(deltas.flatMap((row) => row.cells.map((cell) => cell.rule)), t);
}

/** What makes two runs not like for like: a comparison of them measures more than the server. */
function differences(a: ResultDocument, b: ResultDocument, t: Translate): string[] {
  const warnings: string[] = [];
  if (rateDefinitionsDiffer(a.steps, b.steps, a.importedFrom !== undefined, b.importedFrom !== undefined)) {
    const older = a.steps.some((s) => s.summary?.rateWindow) ? 'B' : 'A';
    warnings.push(t('The runs take their rates differently: {0} was written before steady windows (first send to last completion, cancelled requests left out), the other over steady windows. Rerun {0} to compare rates like for like.', older));
  }
  if (a.endpoint.model !== b.endpoint.model) warnings.push(t('The runs served different models: A {0}, B {1}.', a.endpoint.model, b.endpoint.model));
  const workload = (doc: ResultDocument) => JSON.stringify((doc.config as { workload?: unknown }).workload ?? null);
  if (workload(a) !== workload(b)) warnings.push(t('The runs sent different workloads (input/output tokens or dataset): A {0}, B {1}.', workload(a), workload(b)));
  const kinds = (doc: ResultDocument) => [...new Set(doc.steps.map((s) => s.profile.kind))].join(', ');
  if (kinds(a) !== kinds(b)) warnings.push(t('The runs used different load profiles: A {0}, B {1}.', kinds(a), kinds(b)));
  return warnings;
}

/** Both runs read (src/results/read-result.ts) -> the compare view. */
export function buildCompareView(readA: ReadResult, readB: ReadResult, fileA: string, fileB: string, t: Translate = english): CompareView {
  // One load axis for both: concurrency when every step of both held a concurrency, else the
  // achieved request rate, which every step has (so a rate sweep and a concurrency sweep share charts).
  const axis = chooseXAxis([...readA.document.steps, ...readB.document.steps]);
  const [a, b] = alignAxes(buildResultView(readA, fileA, axis, t), buildResultView(readB, fileB, axis, t));
  const notes: string[] = [];
  if (chooseXAxis(readA.document.steps).kind !== chooseXAxis(readB.document.steps).kind) {
    notes.push(t('The runs use different load shapes (one held concurrencies, the other sent at rates): both are drawn against {0}.', t(axis.label).toLowerCase()));
  }
  const deltas =
    a.repeats && b.repeats
      ? repeatDeltaRows(a.repeats, b.repeats)
      : a.repeats || b.repeats
        ? repeatedAgainstSingleRows(a, b)
        : deltaRows(a.rows, b.rows, { a: samplesOf(readA.document), b: samplesOf(readB.document) });
  if ((a.repeats === undefined) !== (b.repeats === undefined)) {
    notes.push(
      t("Only {0} repeated its profile: the delta table compares its mean across repeats, with its 95% interval, with {1}'s single step of the same name; the server table sets each of its repeats beside that step.", a.repeats ? 'A' : 'B', a.repeats ? 'B' : 'A'),
    );
  }
  // One pairing for the server table and the delta table: by name and repeat.
  const stepPairs = pairStepsByRepeat(readA.document.steps, readB.document.steps);
  if (deltas.length === 0) notes.push(t('No step of A matches a step of B by name, so there is no delta table.'));
  return {
    a: a.summary,
    b: b.summary,
    charts: overlayCharts(a, b, t),
    ownCharts: [...sideBySide(a.charts, b.charts, t), ...sideBySide(...serverCharts(a, b), t)],
    deltas,
    noiseRule: noiseRuleText(deltas, { a: a.repeats, b: b.repeats }, t),
    warnings: [
      ...differences(readA.document, readB.document, t),
      ...a.rows.flatMap((row) => row.warnings.map((w) => t('A: {0}: {1}', stepLabel(row), sayWarning(w, t)))),
      ...b.rows.flatMap((row) => row.warnings.map((w) => t('B: {0}: {1}', stepLabel(row), sayWarning(w, t)))),
    ],
    notes: [...notes, ...a.notes.map((n) => t('A: {0}', n)), ...b.notes.map((n) => t('B: {0}', n))],
    server: compareServerFigures(readA.document, readB.document, (stepsA, stepsB) => stepPairs.flatMap(([i, j]): [(typeof stepsA)[number], (typeof stepsB)[number]][] => {
      const [sa, sb] = [stepsA[i], stepsB[j]];
      return sa && sb ? [[sa, sb]] : [];
    })),
    endpoints: bothRuns(a.endpoints, b.endpoints, 'ran against one endpoint.'),
    shards: bothRuns(a.shards, b.shards, 'ran in one process (no shards).'),
  };
}

/**
 * A section of each run as one table, A's rows then B's, the run named in a first column (figures
 * per endpoint, shards); null when neither run has it. `without`: what is said of a run that has not.
 */
function bothRuns(a: TableSection | null, b: TableSection | null, without: string): TableSection | null {
  const runs = [
    { tag: 'A', section: a },
    { tag: 'B', section: b },
  ];
  const first = runs.find((r) => r.section !== null)?.section;
  if (!first) return null;
  return {
    table: { columns: [{ label: 'Run' }, ...first.table.columns], rows: runs.flatMap((r) => (r.section ? r.section.table.rows.map((row) => [r.tag, ...row]) : [])) },
    notes: runs.flatMap((r) => (r.section ? r.section.notes.map((n) => `${r.tag}: ${n}`) : [`${r.tag} ${without}`])),
  };
}

/** Both runs' server charts over run time, on shared axes. */
function serverCharts(a: ResultView, b: ResultView): [ViewChart[], ViewChart[]] {
  const [sa, sb] = alignAxes({ ...a, charts: a.server?.charts ?? [] }, { ...b, charts: b.server?.charts ?? [] });
  return [sa.charts, sb.charts];
}

/** A's and B's own charts of each kind, A first, renamed so that both can be shown at once. */
function sideBySide(a: ViewChart[], b: ViewChart[], t: Translate): ViewChart[] {
  return a.flatMap((spec) => {
    const other = b.find((c) => c.id === spec.id);
    const own = (view: ViewChart, tag: string): ViewChart => ({ ...view, id: `${tag.toLowerCase()}-${view.id}`, title: t(tag === 'A' ? 'A: {0}' : 'B: {0}', t(view.title)) });
    return other ? [own(spec, 'A'), own(other, 'B')] : [own(spec, 'A')];
  });
}

/**
 * Both runs on the same charts. B is dashed with triangles, so that where the two lines meet B's
 * does not vanish under A's; a run that repeated its profile is drawn as its means with their 95%
 * intervals (src/views/result.ts `loadSeries`).
 */
function overlayCharts(a: ResultView, b: ResultView, t: Translate): ViewChart[] {
  const runs: { view: ResultView; style: LoadStyle }[] = [
    { view: a, style: { label: 'A', colorIndex: 0 } },
    { view: b, style: { label: 'B', colorIndex: 1, dashed: true, pointStyle: 'triangle' } },
  ];
  const xLog = [...a.charts, ...b.charts].some((c) => c.id === 'output-throughput' && c.xLog);
  const withAxis = (spec: ViewChart): ViewChart => (xLog ? { ...spec, xLog } : spec);
  const overlay = (id: string, metric: MetricKey, title: string, value: RowValue): ViewChart =>
    withAxis(chart(id, metric, title, a.xAxis.label, runs.flatMap((r) => loadSeries(r.view.rows, value, r.style, metric, t))));
  // Percentile lines keep their own dash (p50 solid, p99 dashed), each run its own colour family
  // (p99 a shade of the run's p50 colour): B differs from A by its colour and its triangles.
  const latency = withAxis(
    chart(
      'latency',
      'latencyMs',
      'Latency p50 and p99',
      a.xAxis.label,
      runs.flatMap((r) =>
        (['p50', 'p99'] as const).flatMap((p) => loadSeries(r.view.rows, (row) => row.latencyMs?.[p], { ...r.style, label: `${r.style.label} ${p}`, percentile: p }, 'latencyMs', t)),
      ),
    ),
  );
  const rows = [...a.rows, ...b.rows];
  if (rowsEmbedded(rows)) {
    return [
      overlay('requests', 'requestsPerSecond', 'Requests per second', (r) => r.requestsPerSecond),
      latency,
      overlay('embeddings-throughput', 'embeddingsPerSecond', 'Embeddings per second', (r) => r.embeddingsPerSecond),
      overlay('failures', 'failures', 'Failed requests', (r) => r.failed),
    ];
  }
  return [
    // Against the achieved request rate, requests per second is that same figure.
    ...(a.xAxis.kind === 'rate' ? [] : [overlay('requests', 'requestsPerSecond', 'Requests per second', (r) => r.requestsPerSecond)]),
    latency,
    overlay('output-throughput', 'outputTokensPerSecond', 'Output tokens per second', (r) => r.outputTokensPerSecond),
    overlay('ttft', 'ttftMs', 'TTFT p50', (r) => r.ttftMs?.p50),
    // TTFO of a run without reasoning is its TTFT: both runs on one chart when either reasoned.
    ...(rowsReasoned(rows) ? [overlay('ttfo', 'ttfoMs', 'TTFO p50 (first answer token)', (r) => ttfoStatsOf(r)?.p50)] : []),
    overlay('failures', 'failures', 'Failed requests', (r) => r.failed),
  ];
}
