/**
 * Two runs -> the compare view: both on the same charts, each on its own side by side, and a table
 * of B's change against A per step that tells a change from noise (src/views/noise.ts decides, cell
 * by cell, and the view states the rules that did). Pure (no `vscode`): unit tested.
 */
import type { ReadResult } from '../results/read-result';
import { latencySamples } from '../results/stats';
import type { CompareView, DeltaCell, DeltaRow, RepeatRow, ResultView, StepRow, ViewChart } from '../format/messages/result';
import type { MetricKey } from '../format/metrics';
import type { ResultDocument, Step } from '../format/result';
import { judgeChange, noiseRulesText } from './noise';
import { alignAxes, buildResultView, chart, chooseXAxis, loadSeries, type LoadStyle, type RowValue } from './result';
import { compareServerFigures } from './server-views';
import { STEP_FIGURES } from './repeats';

type SampleMetric = 'ttftMs' | 'tpotMs' | 'latencyMs' | 'itlMs';
const SAMPLE_OF: Record<SampleMetric, 'ttft' | 'tpot' | 'latency' | 'itl'> = { ttftMs: 'ttft', tpotMs: 'tpot', latencyMs: 'latency', itlMs: 'itl' };

type Statistic = NonNullable<DeltaCell['statistic']>;
const QUANTILE: Record<Statistic, number> = { p50: 0.5, p99: 0.99 };

/** The columns of the delta table: the result table's default columns, in its order. */
export const DELTA_METRICS = STEP_FIGURES;

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

/** Per-request samples of each step, by step name. */
type StepSamples = Map<string, ReturnType<typeof latencySamples>>;

function samplesOf(doc: ResultDocument): StepSamples {
  return new Map(doc.steps.map((step: Step) => [step.name, latencySamples(step.requests)]));
}

export function deltaRows(a: StepRow[], b: StepRow[], samples?: { a: StepSamples; b: StepSamples }): DeltaRow[] {
  return pairSteps(a, b).map(([ra, rb], stepIndex) => ({
    stepA: ra.name,
    stepB: rb.name,
    cells: DELTA_METRICS.map(({ metric, statistic, value }, metricIndex) => {
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
function noiseRuleText(deltas: DeltaRow[], repeated: { a: RepeatRow[]; b: RepeatRow[] } | null): string {
  const counts = (rows: RepeatRow[]) => [...new Set(rows.map((r) => r.repeats))].join('/');
  const repeats = repeated ? `Both runs repeated their profile (A ${counts(repeated.a)}, B ${counts(repeated.b)} repeats). ` : '';
  return repeats + noiseRulesText(deltas.flatMap((row) => row.cells.map((cell) => cell.rule)));
}

/** What makes two runs not like for like: a comparison of them measures more than the server. */
function differences(a: ResultDocument, b: ResultDocument): string[] {
  const warnings: string[] = [];
  if (a.endpoint.model !== b.endpoint.model) warnings.push(`The runs served different models: A ${a.endpoint.model}, B ${b.endpoint.model}.`);
  const workload = (doc: ResultDocument) => JSON.stringify((doc.config as { workload?: unknown }).workload ?? null);
  if (workload(a) !== workload(b)) warnings.push(`The runs sent different workloads (input/output tokens or dataset): A ${workload(a)}, B ${workload(b)}.`);
  const kinds = (doc: ResultDocument) => [...new Set(doc.steps.map((s) => s.profile.kind))].join(', ');
  if (kinds(a) !== kinds(b)) warnings.push(`The runs used different load profiles: A ${kinds(a)}, B ${kinds(b)}.`);
  return warnings;
}

/** Both runs read (src/results/read-result.ts) -> the compare view. */
export function buildCompareView(readA: ReadResult, readB: ReadResult, fileA: string, fileB: string): CompareView {
  // One load axis for both: concurrency when every step of both held a concurrency, else the
  // achieved request rate, which every step has (so a rate sweep and a concurrency sweep share charts).
  const axis = chooseXAxis([...readA.document.steps, ...readB.document.steps]);
  const [a, b] = alignAxes(buildResultView(readA, fileA, axis), buildResultView(readB, fileB, axis));
  const notes: string[] = [];
  if (chooseXAxis(readA.document.steps).kind !== chooseXAxis(readB.document.steps).kind) {
    notes.push(`The runs use different load shapes (one held concurrencies, the other sent at rates): both are drawn against ${axis.label.toLowerCase()}.`);
  }
  const repeated = a.repeats && b.repeats ? { a: a.repeats, b: b.repeats } : null;
  const deltas = repeated ? repeatDeltaRows(repeated.a, repeated.b) : deltaRows(a.rows, b.rows, { a: samplesOf(readA.document), b: samplesOf(readB.document) });
  if ((a.repeats === undefined) !== (b.repeats === undefined)) {
    notes.push(`Only ${a.repeats ? 'A' : 'B'} repeated its profile: the delta table compares single steps by name, without the intervals across repeats.`);
  }
  if (deltas.length === 0) notes.push('No step of A matches a step of B by name, so there is no delta table.');
  return {
    a: a.summary,
    b: b.summary,
    charts: overlayCharts(a, b),
    ownCharts: [...sideBySide(a.charts, b.charts), ...sideBySide(...serverCharts(a, b))],
    deltas,
    noiseRule: noiseRuleText(deltas, repeated),
    warnings: differences(readA.document, readB.document),
    notes: [...notes, ...a.notes.map((n) => `A: ${n}`), ...b.notes.map((n) => `B: ${n}`)],
    server: compareServerFigures(readA.document, readB.document, pairSteps),
  };
}

/** Both runs' server charts over run time, on shared axes. */
function serverCharts(a: ResultView, b: ResultView): [ViewChart[], ViewChart[]] {
  const [sa, sb] = alignAxes({ ...a, charts: a.server?.charts ?? [] }, { ...b, charts: b.server?.charts ?? [] });
  return [sa.charts, sb.charts];
}

/** A's and B's own charts of each kind, A first, renamed so that both can be shown at once. */
function sideBySide(a: ViewChart[], b: ViewChart[]): ViewChart[] {
  return a.flatMap((spec) => {
    const other = b.find((c) => c.id === spec.id);
    const own = (view: ViewChart, tag: string): ViewChart => ({ ...view, id: `${tag.toLowerCase()}-${view.id}`, title: `${tag}: ${view.title}` });
    return other ? [own(spec, 'A'), own(other, 'B')] : [own(spec, 'A')];
  });
}

/**
 * Both runs on the same charts. B is dashed with triangles, so that where the two lines meet B's
 * does not vanish under A's; a run that repeated its profile is drawn as its means with their 95%
 * intervals (src/views/result.ts `loadSeries`).
 */
function overlayCharts(a: ResultView, b: ResultView): ViewChart[] {
  const runs: { view: ResultView; style: LoadStyle }[] = [
    { view: a, style: { label: 'A', colorIndex: 0 } },
    { view: b, style: { label: 'B', colorIndex: 1, dashed: true, pointStyle: 'triangle' } },
  ];
  const xLog = [...a.charts, ...b.charts].some((c) => c.id === 'output-throughput' && c.xLog);
  const withAxis = (spec: ViewChart): ViewChart => (xLog ? { ...spec, xLog } : spec);
  const overlay = (id: string, metric: MetricKey, title: string, value: RowValue): ViewChart =>
    withAxis(chart(id, metric, title, a.xAxis.label, runs.flatMap((r) => loadSeries(r.view.rows, value, r.style, metric))));
  // Percentile lines keep their own dash (p50 solid, p99 dotted): B differs by its triangles and colour.
  const latency = withAxis(
    chart(
      'latency',
      'latencyMs',
      'Latency p50 and p99',
      a.xAxis.label,
      runs.flatMap((r) =>
        (['p50', 'p99'] as const).flatMap((p) => loadSeries(r.view.rows, (row) => row.latencyMs?.[p], { ...r.style, label: `${r.style.label} ${p}`, percentile: p }, 'latencyMs')),
      ),
    ),
  );
  return [
    // Against the achieved request rate, requests per second is that same figure.
    ...(a.xAxis.kind === 'rate' ? [] : [overlay('requests', 'requestsPerSecond', 'Requests per second', (r) => r.requestsPerSecond)]),
    latency,
    overlay('output-throughput', 'outputTokensPerSecond', 'Output tokens per second', (r) => r.outputTokensPerSecond),
    overlay('ttft', 'ttftMs', 'TTFT p50', (r) => r.ttftMs?.p50),
    overlay('failures', 'failures', 'Failed requests', (r) => r.failed),
  ];
}
