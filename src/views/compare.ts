/**
 * Two runs -> the compare view: both on the same charts, each on its own side by side, and a table
 * of B's change against A per step that tells a change from noise. Pure (no `vscode`): unit tested.
 *
 * Noise: for figures with a sample per request (TTFT, TPOT, latency and the chunk gaps of ITL), the
 * 95% interval of the change of the p50 or p99 comes from a seeded bootstrap over both steps' samples;
 * a change whose interval spans zero is "within noise". Figures without samples (requests and
 * tokens per second, failures) have no interval: changes under NO_INTERVAL_NOISE_PERCENT count as
 * noise, a rule the view states.
 */
import type { ReadResult } from '../engine/read-result';
import { createRandom } from '../engine/random';
import { latencySamples, quantileOfSorted } from '../engine/stats';
import type { CompareView, DeltaCell, DeltaRow, RepeatRow, ResultView, StepRow, ViewChart } from '../format/messages/result';
import { METRICS, type MetricKey } from '../format/metrics';
import type { ResultDocument, Step } from '../format/result';
import { alignAxes, buildResultView, chart, chooseXAxis, pointsOf, type RowValue } from './result';
import { compareServerFigures } from './server';
import { overlapDifference, STEP_FIGURES } from './repeats';

/** Figures without per-request samples: a smaller change than this (percent) is not called better or worse. */
export const NO_INTERVAL_NOISE_PERCENT = 5;
const RESAMPLES = 1000;
/** Bootstrap resamples at most this many samples per side: the interval barely narrows past it. */
const MAX_SAMPLES = 2000;
const CONFIDENCE = 0.95;

type SampleMetric = 'ttftMs' | 'tpotMs' | 'latencyMs' | 'itlMs';
const SAMPLE_OF: Record<SampleMetric, 'ttft' | 'tpot' | 'latency' | 'itl'> = { ttftMs: 'ttft', tpotMs: 'tpot', latencyMs: 'latency', itlMs: 'itl' };

type Statistic = NonNullable<DeltaCell['statistic']>;
const QUANTILE: Record<Statistic, number> = { p50: 0.5, p99: 0.99 };

/** The columns of the delta table: the result table's default columns, in its order. */
export const DELTA_METRICS = STEP_FIGURES;

/** Every `step`-th value, so that a big step costs what MAX_SAMPLES does. */
function thinned(values: readonly number[]): number[] {
  if (values.length <= MAX_SAMPLES) return [...values];
  const step = values.length / MAX_SAMPLES;
  return Array.from({ length: MAX_SAMPLES }, (_, i) => values[Math.floor(i * step)] as number);
}

/**
 * The 95% interval of quantile(b) - quantile(a) by the percentile bootstrap: resample each side with
 * replacement, take the difference of the q-quantiles, keep the middle 95%. Null with fewer than 5
 * samples a side. For a tail quantile of few samples the interval is wide, as it should be.
 */
export function quantileDifferenceInterval(a: readonly number[], b: readonly number[], q = 0.5, seed = 1): [number, number] | null {
  if (a.length < 5 || b.length < 5) return null;
  const random = createRandom(seed);
  const sides = [thinned(a), thinned(b)];
  const buffers = sides.map((side) => new Float64Array(side.length));
  const differences = new Float64Array(RESAMPLES);
  for (let i = 0; i < RESAMPLES; i++) {
    const quantiles = sides.map((side, s) => {
      const buffer = buffers[s] as Float64Array;
      for (let j = 0; j < side.length; j++) buffer[j] = side[random.int(0, side.length - 1)] as number;
      return quantileOfSorted(buffer.sort(), q);
    });
    differences[i] = (quantiles[1] as number) - (quantiles[0] as number);
  }
  differences.sort();
  const tail = (1 - CONFIDENCE) / 2;
  return [differences[Math.floor(tail * (RESAMPLES - 1))] as number, differences[Math.ceil((1 - tail) * (RESAMPLES - 1))] as number];
}

/** A change of `metric` (its `statistic`, for a per-request one) from a to b, called better or worse only when it is not noise (see the module comment). */
export function deltaCell(
  metric: MetricKey,
  a: number | null | undefined,
  b: number | null | undefined,
  interval?: [number, number] | null,
  statistic?: Statistic,
): DeltaCell {
  const av = typeof a === 'number' && Number.isFinite(a) ? a : null;
  const bv = typeof b === 'number' && Number.isFinite(b) ? b : null;
  const cell = (judged: Pick<DeltaCell, 'percent' | 'interval' | 'verdict'>): DeltaCell => ({ metric, ...(statistic ? { statistic } : {}), a: av, b: bv, ...judged });
  if (av === null || bv === null) return cell({ percent: null, verdict: 'unknown' });
  const percent = av === 0 ? (bv === 0 ? 0 : null) : ((bv - av) / Math.abs(av)) * 100;
  const improved = METRICS[metric].better === 'higher' ? bv > av : bv < av;
  if (interval) {
    const inPercent: [number, number] = av === 0 ? interval : [(interval[0] / Math.abs(av)) * 100, (interval[1] / Math.abs(av)) * 100];
    const spansZero = interval[0] <= 0 && interval[1] >= 0;
    return cell({ percent, interval: inPercent, verdict: spansZero || bv === av ? 'same' : improved ? 'better' : 'worse' });
  }
  const change = percent ?? Math.sign(bv - av) * Infinity;
  return cell({ percent, verdict: Math.abs(change) < NO_INTERVAL_NOISE_PERCENT ? 'same' : improved ? 'better' : 'worse' });
}

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
      const quantile = QUANTILE[statistic ?? 'p50'];
      const interval = sa && sb ? quantileDifferenceInterval(sa, sb, quantile, 1 + stepIndex * 31 + metricIndex) : null;
      return deltaCell(metric, value(ra), value(rb), interval, statistic);
    }),
  }));
}

/**
 * B against A for runs that both repeated their profile: each figure is its mean across repeats,
 * and a change is within noise when the two 95% intervals overlap (src/views/repeats.ts); a figure
 * with one repeat on a side has no interval and falls back to the one-figure rule.
 */
export function repeatDeltaRows(a: RepeatRow[], b: RepeatRow[]): DeltaRow[] {
  return pairSteps(a, b).map(([ra, rb]) => ({
    stepA: ra.name,
    stepB: rb.name,
    cells: ra.cells.map((ca, i) => {
      const cb = rb.cells[i];
      const interval = ca.mean !== null && cb?.mean != null ? overlapDifference({ ...ca, mean: ca.mean }, { ...cb, mean: cb.mean }) : null;
      return deltaCell(ca.metric, ca.mean, cb?.mean, interval, ca.statistic);
    }),
  }));
}

/** How the repeat deltas were judged, for the reader. */
function repeatNoiseRule(a: RepeatRow[], b: RepeatRow[]): string {
  const counts = (rows: RepeatRow[]) => [...new Set(rows.map((r) => r.repeats))].join('/');
  return (
    `Both runs repeated their profile (A ${counts(a)}, B ${counts(b)} repeats): each figure is the mean across repeats with its ${CONFIDENCE * 100}% Student's t interval; ` +
    `a difference is "within noise" when the two runs' intervals overlap. A figure with a single repeat has no interval: changes under ${NO_INTERVAL_NOISE_PERCENT}% count as noise.`
  );
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

/** Both runs read (src/engine/read-result.ts) -> the compare view. */
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
    noiseRule: repeated
      ? repeatNoiseRule(repeated.a, repeated.b)
      : `Latency, TTFT, TPOT and ITL: the change of the p50 or p99, with its ${CONFIDENCE * 100}% interval from a bootstrap over the requests; ` +
      `"within noise" when the interval spans zero. Requests/s, tokens/s and failures have one figure per step: changes under ${NO_INTERVAL_NOISE_PERCENT}% count as noise.`,
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

function overlayCharts(a: ResultView, b: ResultView): ViewChart[] {
  const runs = [
    { tag: 'A', view: a, colorIndex: 0 },
    { tag: 'B', view: b, colorIndex: 1 },
  ];
  const xLog = [...a.charts, ...b.charts].some((c) => c.id === 'requests' && c.xLog);
  const withAxis = (spec: ViewChart): ViewChart => (xLog ? { ...spec, xLog } : spec);
  const overlay = (id: string, metric: MetricKey, title: string, value: RowValue): ViewChart =>
    withAxis(chart(id, metric, title, a.xAxis.label, runs.map((r) => ({ label: r.tag, points: pointsOf(r.view.rows, value), colorIndex: r.colorIndex }))));
  const latency = withAxis(
    chart(
      'latency',
      'latencyMs',
      'Latency p50 and p99',
      a.xAxis.label,
      runs.flatMap((r) => [
        { label: `${r.tag} p50`, points: pointsOf(r.view.rows, (row) => row.latencyMs?.p50), colorIndex: r.colorIndex, percentile: 'p50' as const },
        { label: `${r.tag} p99`, points: pointsOf(r.view.rows, (row) => row.latencyMs?.p99), colorIndex: r.colorIndex, percentile: 'p99' as const },
      ]),
    ),
  );
  return [
    overlay('requests', 'requestsPerSecond', 'Requests per second', (r) => r.requestsPerSecond),
    latency,
    overlay('output-throughput', 'outputTokensPerSecond', 'Output tokens per second', (r) => r.outputTokensPerSecond),
    overlay('ttft', 'ttftMs', 'TTFT p50', (r) => r.ttftMs?.p50),
    overlay('failures', 'failures', 'Failed requests', (r) => r.failed),
  ];
}
