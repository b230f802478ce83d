import { computeStats, latencySamples, quantileOfSorted } from '../../src/results/stats';
import { forReading } from '../../src/results/read-result';
import { createRandom } from '../../src/workload/random';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  alignAxes,
  buildResultView,
  chooseXAxis,
  distributionCurve,
} from '../../src/views/result';
import { buildCompareView, deltaRows, pairSteps } from '../../src/views/compare';
import { judgeChange, NO_INTERVAL_NOISE_PERCENT, quantileDifferenceInterval } from '../../src/views/noise';
import { ResultViewSchema, CompareViewSchema, type StepRow } from '../../src/format/messages/result';
import { TableColumnsSchema } from '../../src/format/messages/from-views';
import { METRICS } from '../../src/format/metrics';
import { PERCENTILES } from '../../src/format/result';
import { niceCeiling, resultChartSpec } from '../../src/views/chart-spec';
import { formatMetric, formatNumber, formatPercentChange } from '../../src/views/number-format';
import type { DeltaRow } from '../../src/format/messages/result';
import { deltaTable, stackedDeltaTable, stepTable, summaryItems } from '../../src/views/result-tables';
import { concurrencySweep, makeDocument, makeRequest } from '../helpers/result-documents';

test('a concurrency sweep becomes one row per step, placed at the concurrency each step measured', () => {
  const doc = concurrencySweep(20);
  const view = buildResultView(forReading(doc), 'run.llmbench.json');
  assert.equal(ResultViewSchema.safeParse(view).success, true);
  assert.deepEqual(view.xAxis.kind, 'concurrency');
  assert.deepEqual(
    view.rows.map((r) => [r.name, r.x, r.partial]),
    doc.steps.map((step) => [step.name, step.summary?.achievedConcurrency, false]),
  );
  // Not the configured level: the synthetic records of this sweep overlap more than its levels say.
  assert.notEqual(view.rows[0]?.x, 1);
  // TTFT is 20 * concurrency plus a wobble of -2..2 that averages out over 20 requests.
  assert.equal(view.rows[1]?.ttftMs?.mean, 80);
  assert.equal(view.rows[1]?.completed, 20);
  assert.equal(view.summary.model, 'test-model');
  assert.deepEqual(view.summary.labels, [['engine', 'sim'], ['gpu', 'none']]);
  assert.match(view.summary.config, /"levels"/);
  assert.deepEqual(view.notes, []);
});

test('the step table: throughput first, p50 and p99 of TTFT, TPOT and latency by default, each metric at its own precision', () => {
  const view = buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json');
  const table = stepTable(view.rows);
  assert.deepEqual(table.groups.map((g) => g.label), ['Benchmark', 'req/s', 'output tok/s', 'TTFT', 'TPOT', 'latency', 'failures']);
  assert.deepEqual(table.groups[3]?.columns, ['p50', 'p99']);
  assert.equal(table.groups[3]?.definition, METRICS.ttftMs.definition);
  const row = table.rows[1] ?? [];
  assert.equal(row.length, 1 + 1 + 1 + 3 * 2 + 1);
  assert.equal(row[0], 'concurrency@4');
  assert.equal(row[3], view.rows[1]!.ttftMs!.p50!.toFixed(1)); // TTFT at one decimal
  assert.match(row[1]!, /^\d+\.\d{2}$/, 'req/s at two decimals');
  assert.equal(row.at(-1), '0 of 20');
});

test('chosen columns add means, p90, p95 and ITL to the step table', () => {
  const view = buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json');
  const table = stepTable(view.rows, { means: true, p90: true, p95: true, itl: true });
  assert.deepEqual(table.groups.map((g) => g.label), ['Benchmark', 'req/s', 'output tok/s', 'TTFT', 'TPOT', 'latency', 'ITL', 'failures']);
  assert.deepEqual(table.groups[3]?.columns, ['mean', 'p50', 'p90', 'p95', 'p99']);
  const row = table.rows[1] ?? [];
  assert.equal(row.length, 1 + 1 + 1 + 4 * 5 + 1);
  assert.equal(row[3], '80.0'); // TTFT mean
  assert.equal(row[6], formatMetric('ttftMs', view.rows[1]?.ttftMs?.p95), 'TTFT p95 from the stored statistics');
  assert.deepEqual(TableColumnsSchema.parse({ means: true, p90: false, itl: false }), { means: true, p90: false, p95: false, itl: false }, 'a choice remembered before p95 existed still reads');
});

test('a step cut short is summarized from its records and marked partial', () => {
  const doc = makeDocument([
    { name: 'concurrency@2', profile: { kind: 'concurrency', concurrency: 2 }, requests: 10, ttftMs: 30, gapMs: 4, chunks: 8 },
    { name: 'concurrency@8', profile: { kind: 'concurrency', concurrency: 8 }, requests: 7, ttftMs: 50, gapMs: 4, chunks: 8, partial: true, failEvery: 7 },
  ]);
  const view = buildResultView(forReading(doc), 'cut.llmbench.json');
  const row = view.rows[1] as StepRow;
  assert.equal(row.partial, true);
  assert.equal(row.total, 7);
  assert.equal(row.completed, 6);
  assert.equal(row.failed, 1);
  assert.deepEqual(row.errors, [['http', 1]]);
  assert.match(view.notes[0] ?? '', /"concurrency@8" did not finish.*7 requests/);
  assert.equal(view.summary.status, 'partial');
  assert.equal(view.summary.statusReason, 'cancelled by the user');
  assert.equal(stepTable(view.rows).rows[1]?.[0], 'concurrency@8 (partial)');
  assert.equal(stepTable(view.rows).rows[1]?.at(-1), '1 of 7 (http 1)');
});

test('open-loop runs are drawn against the achieved request rate', () => {
  const doc = makeDocument([
    { name: 'synchronous', profile: { kind: 'synchronous' }, requests: 10, ttftMs: 30, gapMs: 4, chunks: 8 },
    { name: 'throughput', profile: { kind: 'throughput' }, requests: 10, ttftMs: 60, gapMs: 4, chunks: 8 },
  ]);
  assert.equal(chooseXAxis(doc.steps).kind, 'rate');
  const view = buildResultView(forReading(doc), 'sweep.llmbench.json');
  assert.equal(view.rows[0]?.x, view.rows[0]?.requestsPerSecond);
  assert.equal(chooseXAxis([]).kind, 'rate');
});

test('latency charts carry p50, p90 and p99 as a band; chart specs fill each band to the one below', () => {
  const view = buildResultView(forReading(concurrencySweep(20)), 'run.llmbench.json');
  const ttft = view.charts.find((c) => c.id === 'ttft');
  assert.ok(ttft);
  assert.deepEqual(ttft.series.map((s) => [s.label, s.fillToPrevious ?? false]), [['p50', false], ['p90', true], ['p99', true]]);
  assert.deepEqual(ttft.series.map((s) => s.percentile), ['p50', 'p90', 'p99'], 'each line drawn in its percentile\'s style');
  const measured = view.rows.map((r) => r.x);
  assert.deepEqual(ttft.series[0]?.points.map((p) => p[0]), [...measured].sort((a, b) => (a ?? 0) - (b ?? 0)), 'each step at the load it measured, in order of load');
  assert.equal(ttft.series[0]?.points.find((p) => p[0] === measured[1])?.[1], 80);
  const spec = resultChartSpec(ttft);
  assert.equal(spec.series[0]?.fillTo, undefined);
  assert.equal(spec.series[1]?.fillTo, 0);
  assert.equal(spec.series[2]?.fillTo, 1);
  assert.deepEqual(spec.series[0]?.data.find((d) => d.x === measured[1]), { x: measured[1], y: 80 });
  assert.equal(spec.y.title, 'TTFT (ms)');
  assert.deepEqual(view.charts.map((c) => c.id), ['output-throughput', 'requests', 'latency', 'ttft', 'itl', 'ttft-distribution', 'itl-distribution']);
});

test('distribution curves have a fixed number of points whatever the sample count', () => {
  const samples = Array.from({ length: 101 }, (_, i) => 101 - i); // 101..1, unsorted
  const curve = distributionCurve(samples);
  assert.equal(curve.length, 51);
  assert.deepEqual(curve[0], [1, 0]);
  assert.deepEqual(curve[25], [51, 50]);
  assert.deepEqual(curve[50], [101, 100]);
  assert.deepEqual(distributionCurve([]), []);
  // The curve reads the quantiles a full sort would give, whatever the input order or ties.
  const random = createRandom(7);
  const inputs = [
    Array.from({ length: 5000 }, () => Math.round(random.next() * 300) / 10),
    Array.from({ length: 3000 }, (_, i) => i),
    Array.from({ length: 3000 }, (_, i) => -i),
    Array.from({ length: 7 }, () => 2),
    [5, 1, 3],
  ];
  for (const values of inputs) {
    const sorted = [...values].sort((a, b) => a - b);
    const expected = Array.from({ length: 51 }, (_, i) => [quantileOfSorted(sorted, i / 50), (i / 50) * 100]);
    assert.deepEqual(distributionCurve(values), expected);
  }
  const big = buildResultView(forReading(concurrencySweep(2000)), 'big.llmbench.json');
  for (const chart of big.charts) for (const s of chart.series) assert.ok(s.points.length <= 51, `${chart.id} has ${s.points.length} points`);
});

test('the distribution curve passes through the step table\'s percentiles: one percentile rule', () => {
  // It read the nearest rank: at 50% of 1, 2, 3, 4 it drew 3 where the table said p50 2.5.
  for (const values of [[1, 2, 3, 4], [60, 10, 40, 20, 30, 50], [5, 1, 3], [7]]) {
    const stats = computeStats(values)!;
    const curve = distributionCurve(values, 101);
    for (const p of PERCENTILES) assert.deepEqual(curve[p], [stats[`p${p}`], p], `p${p} of ${values.join(', ')}`);
  }
});

test('distribution samples take TTFT and chunk gaps of successful measured requests only', () => {
  const shape = { name: 's', profile: { kind: 'synchronous' as const }, requests: 3, ttftMs: 30, gapMs: 4, chunks: 3, failEvery: 3 };
  const ok = makeRequest(2 - 2, shape); // wobble -2
  const failed = makeRequest(2, shape);
  const warmup = { ...makeRequest(1, shape), warmup: true };
  const { ttft, itl } = latencySamples([ok, failed, warmup]);
  assert.deepEqual([...ttft], [28]);
  assert.equal(itl.length, 2);
  assert.ok(Math.abs((itl[0] ?? 0) - 3.8) < 1e-9);
});

test('delta cells without an interval: percent of B against A, better or worse by the metric direction past the noise threshold', () => {
  const small = 'small-change';
  assert.deepEqual(judgeChange('requestsPerSecond', 10, 12), { metric: 'requestsPerSecond', a: 10, b: 12, percent: 20, verdict: 'better', rule: small });
  assert.deepEqual(judgeChange('latencyMs', 200, 150), { metric: 'latencyMs', a: 200, b: 150, percent: -25, verdict: 'better', rule: small });
  assert.deepEqual(judgeChange('ttftMs', 200, 250), { metric: 'ttftMs', a: 200, b: 250, percent: 25, verdict: 'worse', rule: small });
  assert.equal(judgeChange('outputTokensPerSecond', 1000, 900).percent, -10);
  assert.equal(judgeChange('outputTokensPerSecond', 1000, 900).verdict, 'worse');
  assert.equal(judgeChange('latencyMs', 100, 100.5).verdict, 'same');
  assert.deepEqual(judgeChange('failures', 0, 3), { metric: 'failures', a: 0, b: 3, percent: null, verdict: 'worse', rule: small });
  assert.deepEqual(judgeChange('failures', 0, 0), { metric: 'failures', a: 0, b: 0, percent: 0, verdict: 'same', rule: small });
  assert.equal(judgeChange('failures', 4, 1).verdict, 'better');
  assert.deepEqual(judgeChange('itlMs', null, 3), { metric: 'itlMs', a: null, b: 3, percent: null, verdict: 'unknown', rule: null });
  assert.equal(NO_INTERVAL_NOISE_PERCENT, 5);
  assert.equal(judgeChange('requestsPerSecond', 100, 104).verdict, 'same', 'a 4% change of a single figure is noise');
  // Too few samples for a bootstrap, or one repeat a side: no interval, and the small-change rule decides.
  assert.equal(judgeChange('ttftMs', 100, 104, { samples: { a: [100, 100], b: [104, 104], quantile: 0.5, seed: 1 } }).rule, small);
  assert.equal(judgeChange('ttftMs', 100, 104, { repeats: { a: { n: 1, mean: 100, halfWidth: null }, b: { n: 3, mean: 104, halfWidth: 1 } } }).rule, small);
});

test('delta cells with an interval: within noise when it spans zero, else better or worse; the interval shown in percent', () => {
  const repeats = (a: number, aHalf: number, b: number, bHalf: number) => ({ repeats: { a: { n: 3, mean: a, halfWidth: aHalf }, b: { n: 3, mean: b, halfWidth: bHalf } } });
  assert.deepEqual(judgeChange('ttftMs', 100, 60, repeats(100, 5, 60, 5)), { metric: 'ttftMs', a: 100, b: 60, percent: -40, interval: [-50, -30], verdict: 'better', rule: 'repeat-intervals', halfWidths: [5, 5] });
  assert.equal(judgeChange('ttftMs', 100, 58, repeats(100, 24, 58, 24)).verdict, 'same', 'a large change whose interval spans zero is noise');
  assert.equal(judgeChange('latencyMs', 200, 202, repeats(200, 0.5, 202, 0.5)).verdict, 'worse', 'a small change outside noise is a change');
  assert.deepEqual(judgeChange('latencyMs', 200, 202, repeats(200, 0.5, 202, 0.5)).interval, [0.5, 1.5]);
  const shifted = Array.from({ length: 50 }, (_, i) => 100 + (i % 7));
  const bootstrap = judgeChange('ttftMs', 103, 153, { samples: { a: shifted, b: shifted.map((v) => v + 50), quantile: 0.5, seed: 3 } }, 'p50');
  assert.deepEqual([bootstrap.verdict, bootstrap.rule, bootstrap.statistic], ['worse', 'bootstrap', 'p50']);
  assert.equal(judgeChange('failures', 0, 4, repeats(0, 0, 4, 0)).interval, undefined, 'a change from 0 has no interval in percent');
});

test('the bootstrap interval of a median difference: seeded, wide for the same distribution, clear of zero for a shift', () => {
  const same = Array.from({ length: 200 }, (_, i) => 100 + ((i * 37) % 21) - 10);
  const shuffled = [...same].reverse();
  const shifted = same.map((v) => v + 15);
  const noise = quantileDifferenceInterval(same, shuffled, 0.5, 7);
  assert.ok(noise && noise[0] <= 0 && noise[1] >= 0, `same values give an interval around 0: ${String(noise)}`);
  assert.deepEqual(quantileDifferenceInterval(same, shuffled, 0.5, 7), noise, 'the same seed gives the same interval');
  const shift = quantileDifferenceInterval(same, shifted, 0.5, 7);
  assert.ok(shift && shift[0] > 10 && shift[1] < 20, `a shift of 15 gives an interval around 15: ${String(shift)}`);
  assert.equal(quantileDifferenceInterval([1, 2, 3, 4], [1, 2, 3, 4, 5]), null, 'too few samples: no interval');
});

test('delta table text shows B with its change; failures from zero read "from 0"', () => {
  const table = deltaTable([
    { stepA: 'c@4', stepB: 'c@4', cells: [judgeChange('requestsPerSecond', 10, 12), judgeChange('failures', 0, 3), judgeChange('latencyMs', 200, 203), judgeChange('ttftMs', 100, 58, { repeats: { a: { n: 3, mean: 100, halfWidth: 22 }, b: { n: 3, mean: 58, halfWidth: 23 } } })] },
  ]);
  assert.deepEqual(table.columns.map((c) => c.label), ['req/s', 'failures', 'latency p50', 'TTFT p50']);
  assert.match(table.columns[0]?.definition ?? '', /Higher is better\.$/);
  assert.deepEqual(table.rows[0]?.cells.map((c) => [c.text, c.verdict]), [
    ['12.00 (+20%) \u2713', 'better'],
    ['3 (from 0) \u2717', 'worse'],
    ['203 (+1.5%) \u2248', 'same'],
    ['58.0 (-42%) \u2248', 'same'],
  ]);
  assert.equal(table.rows[0]!.cells[0]!.detail, 'A 10.00 -> B 12.00: better: at least 5% apart, with one value a side and no interval');
  assert.equal(table.rows[0]!.cells[2]!.detail, 'A 200 -> B 203: within noise: under 5% apart, with one value a side and no interval');
  assert.equal(table.rows[0]!.cells[3]!.detail, "A 100.0 -> B 58.0: within noise: the two runs' 95% intervals across repeats overlap (the change lies within -87% to +3.0%)");
  assert.equal(formatPercentChange(-2.54), '-2.5%');
  assert.equal(formatPercentChange(0), '0.0%');
  assert.equal(formatNumber(1234.4), '1,234');
  assert.equal(formatNumber(0.01234), '0.012');
  assert.equal(formatNumber(null), 'n/a');
});

const row = (name: string, x: number, rps: number): StepRow => ({
  name, x, partial: false, requestsPerSecond: rps, outputTokensPerSecond: rps * 100, latencyMs: null, ttftMs: null, itlMs: null,
  tpotMs: null, completed: 10, failed: 0, total: 10, errors: [], warnings: [],
});

test('steps pair by name, else by position when no name matches and counts agree', () => {
  const a = [row('c@1', 1, 1), row('c@4', 4, 3)];
  assert.deepEqual(pairSteps(a, [row('c@4', 4, 3.3), row('c@8', 8, 5)]).map(([p, q]) => [p.name, q.name]), [['c@4', 'c@4']]);
  assert.deepEqual(pairSteps(a, [row('r@1.1', 1.1, 1), row('r@2.9', 2.9, 3)]).map(([p, q]) => [p.name, q.name]), [['c@1', 'r@1.1'], ['c@4', 'r@2.9']]);
  assert.deepEqual(pairSteps(a, [row('x', 1, 1)]), []);
  const deltas = deltaRows(a, [row('c@4', 4, 3.3)]);
  assert.equal(deltas.length, 1);
  assert.ok(Math.abs((deltas[0]?.cells[0]?.percent ?? 0) - 10) < 1e-9);
});

test('side-by-side views share axis maxima per chart', () => {
  const slow = buildResultView(forReading(concurrencySweep(20, 2)), 'slow.llmbench.json');
  const fast = buildResultView(forReading(concurrencySweep(20, 1)), 'fast.llmbench.json');
  const [a, b] = alignAxes(fast, slow);
  for (const id of ['ttft', 'latency', 'requests']) {
    const ca = a.charts.find((c) => c.id === id);
    const cb = b.charts.find((c) => c.id === id);
    assert.ok(ca?.yMax && cb?.yMax, id);
    assert.equal(ca.yMax, cb.yMax, id);
    assert.equal(ca.xMax, cb.xMax, id);
    assert.equal(ca.xMax, Math.max(...[...a.rows, ...b.rows].map((r) => r.x ?? 0)), 'the larger measured load of the two');
  }
  // The slow run has the larger TTFT: 20 * 16 * 2 plus the wobble at p99.
  const ttftMax = a.charts.find((c) => c.id === 'ttft')?.yMax ?? 0;
  assert.ok(ttftMax >= 640 && ttftMax <= 642, String(ttftMax));
  assert.equal(fast.charts.find((c) => c.id === 'ttft')?.yMax, undefined, 'inputs are not changed');
  assert.equal(niceCeiling(641), 1000);
  assert.equal(niceCeiling(180), 200);
  assert.equal(niceCeiling(2.1), 2.5);
  assert.equal(niceCeiling(0), 1);
  assert.equal(niceCeiling(100), 100, 'a round maximum is its own ceiling');
  assert.equal(niceCeiling(100.0000000001), 100);
  assert.equal(resultChartSpec(a.charts.find((c) => c.id === 'ttft')!).y.max, 1000);
});

test('the compare view overlays both runs, shows each on its own, and lists deltas per matched step with their noise', () => {
  const view = buildCompareView(forReading(concurrencySweep(20, 1)), forReading(concurrencySweep(20, 2)), 'a.llmbench.json', 'b.llmbench.json');
  assert.equal(CompareViewSchema.safeParse(view).success, true);
  assert.deepEqual(view.charts.map((c) => c.id), ['requests', 'latency', 'output-throughput', 'ttft', 'failures']);
  assert.deepEqual(view.ownCharts.slice(0, 2).map((c) => c.id), ['a-output-throughput', 'b-output-throughput']);
  assert.equal(view.ownCharts[0]?.yMax, view.ownCharts[1]?.yMax, 'side by side on shared axes');
  assert.deepEqual(view.warnings, [], 'same model, workload and profile');
  assert.deepEqual(view.charts[0]?.series.map((s) => [s.label, s.colorIndex]), [['A', 0], ['B', 1]]);
  assert.deepEqual(view.charts[1]?.series.map((s) => s.label), ['A p50', 'A p99', 'B p50', 'B p99']);
  assert.deepEqual(view.deltas.map((d) => d.stepA), ['synchronous', 'concurrency@4', 'concurrency@16']);
  const ttft = view.deltas[1]?.cells.find((c) => c.metric === 'ttftMs');
  assert.equal(ttft?.percent, 100); // 80 ms -> 160 ms
  assert.equal(ttft?.verdict, 'worse');
  assert.ok(ttft?.interval && ttft.interval[0] > 50, `the doubling is far outside noise: ${String(ttft?.interval)}`);
  assert.equal(ttft?.rule, 'bootstrap');
  assert.match(deltaTable(view.deltas).rows[1]?.cells[view.deltas[1]!.cells.indexOf(ttft!)]?.detail ?? '', /: worse: the 95% bootstrap interval of the change, \+\d+% to \+\d+%, clears zero$/);
  assert.match(view.noiseRule, /bootstrap over the requests/);
  assert.match(view.noiseRule, /a change under 5% counts as noise/, 'requests/s and tokens/s have one value a side');
  assert.deepEqual(
    deltaTable(view.deltas).columns.map((c) => c.label),
    ['req/s', 'output tok/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'latency p50', 'latency p99', 'ITL p50', 'failures'],
    'the result table\'s default columns, p99 included',
  );
  const ttftTail = view.deltas[1]?.cells.find((c) => c.metric === 'ttftMs' && c.statistic === 'p99');
  assert.equal(ttftTail?.verdict, 'worse');
  assert.ok(ttftTail?.interval, 'the p99 has an interval of its own');
  assert.equal(quantileDifferenceInterval([1, 2, 3, 4, 5, 6], [11, 12, 13, 14, 15, 16], 0.99, 3)?.every((d) => d > 0), true, 'a p99 shift is found');
  assert.deepEqual(view.notes, []);
  const same = buildCompareView(forReading(concurrencySweep(20, 1)), forReading(concurrencySweep(20, 1)), 'a.llmbench.json', 'a2.llmbench.json');
  assert.ok(same.deltas.every((row) => row.cells.every((cell) => cell.verdict === 'same')), 'a run against itself is within noise everywhere');
  const other = buildCompareView(forReading(concurrencySweep(20, 1)), forReading({ ...concurrencySweep(20, 1), endpoint: { baseUrl: '', api: 'chat', model: 'other-model' } }), 'a', 'b');
  assert.match(other.warnings.join(' '), /different models: A test-model, B other-model/);
});

test('compare draws a rate run and a concurrency run on one axis, the achieved request rate, and says so', () => {
  const concurrency = concurrencySweep(20, 1);
  const rates = { ...concurrencySweep(20, 2), steps: concurrencySweep(20, 2).steps.map((step, i) => ({ ...step, name: `constant@${i + 1}`, profile: { kind: 'rate' as const, rate: i + 1 } })) };
  const view = buildCompareView(forReading(concurrency), forReading(rates), 'c.llmbench.json', 'r.llmbench.json');
  // Requests per second against the achieved request rate would be a diagonal: left out (issue 26).
  assert.equal(view.charts.find((c) => c.id === 'requests'), undefined);
  const throughput = view.charts.find((c) => c.id === 'output-throughput');
  assert.equal(throughput?.xLabel, 'Achieved request rate (req/s)');
  const rowsOf = { A: buildResultView(forReading(concurrency), 'c').rows, B: buildResultView(forReading(rates), 'r').rows };
  for (const series of throughput?.series ?? []) {
    assert.equal(series.points.length, 3, `${series.label}: every step placed`);
    const rates = rowsOf[series.label as 'A' | 'B'].map((row) => row.requestsPerSecond).sort((p, q) => (p ?? 0) - (q ?? 0));
    assert.deepEqual(series.points.map(([x]) => x), rates, `${series.label}: placed at its achieved rate`);
  }
  assert.match(view.notes.join(' '), /different load shapes .* both are drawn against achieved request rate/);
  assert.deepEqual(view.deltas.map((d) => [d.stepA, d.stepB]), [['synchronous', 'constant@1'], ['concurrency@4', 'constant@2'], ['concurrency@16', 'constant@3']], 'paired by position');
});

test('side by side, the load axis is logarithmic when both runs together span more than 8x, though neither does alone', () => {
  const withConcurrency = (doc: ReturnType<typeof concurrencySweep>, levels: number[]) => ({
    ...doc,
    steps: doc.steps.map((step, i) => ({ ...step, summary: step.summary && { ...step.summary, achievedConcurrency: levels[i] ?? null } })),
  });
  const low = buildResultView(forReading(withConcurrency(concurrencySweep(20, 1), [1, 2, 3])), 'low.llmbench.json');
  const high = buildResultView(forReading(withConcurrency(concurrencySweep(20, 1), [10, 12, 16])), 'high.llmbench.json');
  assert.ok(!low.charts.some((c) => c.xLog) && !high.charts.some((c) => c.xLog), 'neither alone');
  const [a, b] = alignAxes(low, high);
  assert.equal(a.charts.find((c) => c.id === 'requests')?.xLog, true);
  assert.equal(b.charts.find((c) => c.id === 'requests')?.xLog, true);
  assert.notEqual(a.charts.find((c) => c.id === 'ttft-distribution')?.xLog, true, 'distributions are not load axes');
});

test('a concurrency step that stayed well below its level says so in the notes', () => {
  const doc = concurrencySweep(20);
  const last = doc.steps[2]!;
  last.summary = { ...last.summary!, achievedConcurrency: 5.2 };
  const view = buildResultView(forReading(doc), 'low.llmbench.json');
  assert.equal(view.notes.length, 1);
  assert.match(view.notes[0]!, /^Step "concurrency@16" averaged 5\.2 requests in flight, not 16/);
  assert.equal(view.rows[2]?.x, 5.2, 'drawn where it was');
});

test('an imported run without a start time says "unknown", not 1970', () => {
  // "Started 1970-01-01T00:00:00.000Z": the importer's stand-in for a time the tool did not keep.
  const doc = concurrencySweep(5);
  doc.createdAt = new Date(0).toISOString();
  doc.finishedAt = null;
  const items = summaryItems(buildResultView(forReading(doc), 'imported.llmbench.json').summary);
  assert.equal(items.find((i) => i.label === 'Started')?.value, 'unknown');
  assert.equal(items.find((i) => i.label === 'Finished')?.value, 'unknown');
  assert.equal(items.find((i) => i.label === 'Started' && /1970/.test(i.value)), undefined);
  doc.createdAt = '2025-03-01T10:00:00.000Z';
  assert.equal(summaryItems(buildResultView(forReading(doc), 'x').summary, 0).find((i) => i.label === 'Started')?.value, '2025-03-01 10:00:00 UTC');
});

test("a run over several endpoints names them all in its summary, with the strategy and each one's model (the summary named the first alone)", () => {
  const doc = {
    ...concurrencySweep(20),
    endpoints: [
      { baseUrl: 'http://10.0.0.1:8000/v1', api: 'chat' as const, model: 'llama-8b' },
      { baseUrl: 'http://10.0.0.2:8000/v1', api: 'chat' as const, model: 'llama-8b-fp8' },
    ],
    endpointStrategy: 'least-in-flight' as const,
  };
  const view = buildResultView(forReading(doc), 'r.llmbench.json');
  assert.equal(view.summary.baseUrl, '2 endpoints, least-in-flight: #0 http://10.0.0.1:8000/v1, #1 http://10.0.0.2:8000/v1');
  assert.equal(view.summary.model, 'llama-8b, llama-8b-fp8');
  const one = buildResultView(forReading(concurrencySweep(20)), 'r.llmbench.json');
  assert.equal(one.summary.baseUrl, concurrencySweep(20).endpoint.baseUrl, 'one endpoint: as before');
});

test("compare's table fits a narrow editor: one column a metric, p50 over p99 in its cells, columns that say nothing left out and named", () => {
  // The table was 1,284 px wide: ten figure columns of "48.3 (+267%) \u2248"; at 1000 px only three metrics showed.
  const row = (stepA: string, itl: [number, number], failures: [number, number]): DeltaRow => ({
    stepA,
    stepB: stepA,
    cells: [
      judgeChange('requestsPerSecond', 10, 12),
      judgeChange('outputTokensPerSecond', 1000, 1200),
      judgeChange('ttftMs', 40, 60, null, 'p50'),
      judgeChange('ttftMs', 80, 90, null, 'p99'),
      judgeChange('tpotMs', 10, 10.2, null, 'p50'),
      judgeChange('tpotMs', 20, 20, null, 'p99'),
      judgeChange('latencyMs', 500, 480, null, 'p50'),
      judgeChange('latencyMs', 900, 880, null, 'p99'),
      judgeChange('itlMs', itl[0], itl[1], null, 'p50'),
      judgeChange('failures', failures[0], failures[1]),
    ],
  });
  // A token a chunk (ITL within 10% of TPOT) and nothing failed: both columns say nothing.
  const quiet = stackedDeltaTable([row('c@1', [10.5, 9.8], [0, 0]), row('c@4', [10, 10.2], [0, 0])]);
  assert.deepEqual(quiet.columns.map((c) => [c.label, c.unit]), [
    ['req/s', ''], ['output tok/s', ''], ['TTFT', 'ms, p50 over p99'], ['TPOT', 'ms, p50 over p99'], ['latency', 'ms, p50 over p99'],
  ]);
  assert.deepEqual(quiet.omitted, ['failures: no request failed in either run', 'ITL (per chunk): within 10% of TPOT in every step of both runs (a token a chunk)']);
  const ttft = quiet.rows[0]!.cells[2]!;
  assert.deepEqual(ttft.map((stat) => [stat.statistic, stat.value, stat.change, stat.mark]), [['p50', '60.0', '+50%', '\u2717'], ['p99', '90.0', '+13%', '\u2717']]);
  assert.equal(ttft[0]!.detail, deltaTable([row('c@1', [10.5, 9.8], [0, 0])]).rows[0]!.cells[2]!.detail, 'each line is the flat table\'s cell');
  // Several tokens a chunk in one step, and a failure in B: both come back, in the result table's order.
  const loud = stackedDeltaTable([row('c@1', [10.5, 9.8], [0, 0]), row('c@4', [30, 10.2], [0, 2])]);
  assert.deepEqual(loud.columns.map((c) => c.label), ['req/s', 'output tok/s', 'TTFT', 'TPOT', 'latency', 'ITL', 'failures']);
  assert.deepEqual(loud.omitted, []);
  assert.deepEqual(loud.rows[1]!.cells[6]!.map((stat) => [stat.value, stat.change]), [['2', 'from 0']]);
});

test('a change that rounds to nothing reads 0.0%, unsigned, in compare\'s cells and intervals', () => {
  // Compare showed "-0.0%" for B 0.02% below A.
  assert.deepEqual([-0.04, -0.0004, 0.04, -9.96, 12345].map(formatPercentChange), ['0.0%', '0.0%', '0.0%', '-10%', '+12,345%']);
  const cell = deltaTable([{ stepA: 's', stepB: 's', cells: [judgeChange('requestsPerSecond', 100, 99.98)] }]).rows[0]!.cells[0]!;
  assert.equal(cell.change, '0.0%');
  assert.doesNotMatch(cell.text, /-0\.0%/);
});

test("a run's start and finish in the reader's time zone, the finish with the run's duration", () => {
  // They showed as raw UTC ISO strings: "2026-11-25T10:12:03.000Z".
  const summary = buildResultView(forReading({ ...concurrencySweep(20), createdAt: '2026-11-25T10:12:03.000Z', finishedAt: '2026-11-25T10:12:46.700Z' }), 'r').summary;
  const items = Object.fromEntries(summaryItems(summary, 60).map((item) => [item.label, item.value]));
  assert.equal(items['Started'], '2026-11-25 11:12:03 UTC+1');
  assert.equal(items['Finished'], '2026-11-25 11:12:46 UTC+1, after 44 s');
  const west = Object.fromEntries(summaryItems(summary, -330).map((item) => [item.label, item.value]));
  assert.equal(west['Started'], '2026-11-25 04:42:03 UTC-5:30');
  const running = Object.fromEntries(summaryItems({ ...summary, finishedAt: null }, 0).map((item) => [item.label, item.value]));
  // A finished file without its finish time says so; a running one is not finished yet.
  assert.deepEqual([running['Started'], running['Finished']], ['2026-11-25 10:12:03 UTC', 'unknown']);
  const live = Object.fromEntries(summaryItems({ ...summary, finishedAt: null, status: 'running' }, 0).map((item) => [item.label, item.value]));
  assert.equal(live['Finished'], 'not yet');
});

test('cumulative shares end at 100%; the server charts over run time share one time range, ticked at round times', () => {
  const view = buildResultView(forReading(concurrencySweep(20)), 'r');
  for (const id of ['ttft-distribution', 'itl-distribution']) {
    const chart = view.charts.find((c) => c.id === id)!;
    assert.equal(chart.yMax, 100, id);
    assert.equal(resultChartSpec(chart).y.max, 100, `${id}: no headroom past 100%`);
  }
});
