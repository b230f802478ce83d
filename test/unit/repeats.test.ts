// Repeated runs (--repeat N): the Student's t arithmetic against values worked out by hand, the
// runner's repeat steps against a loopback server, and how the result, compare and report views
// aggregate repeats by step name and judge noise by the intervals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forReading } from '../../src/results/read-result';
import { runBenchmark } from '../../src/load/runner';
import { RunConfigSchema } from '../../src/format/config';
import { RunEventSchema, type RunEvent } from '../../src/format/events';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { buildCompareView } from '../../src/views/compare';
import { overlapDifference } from '../../src/views/noise';
import { hasRepeats, meanInterval, tQuantile975 } from '../../src/views/repeats';
import { resultChartSpec, withRepeatPoints } from '../../src/views/chart-spec';
import { buildReportModel, rankingNoiseNote, rankingTable } from '../../src/views/report';
import { buildResultView } from '../../src/views/result';
import { deltaTable, repeatTable, stepTable } from '../../src/views/result-tables';
import { makeDocument, withoutWarningMark, type StepShape } from '../helpers/result-documents';
import { startRunnerServer } from '../helpers/runner-server';
import { createProgressPrinter } from '../../src/cli/progress';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { formatTerminalTable } from '../../src/report/tables';
import { tableRows } from '../../src/views/live';
import { progressView } from '../../src/views/progress';

const near = (actual: number | null | undefined, expected: number, tolerance: number) =>
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected} ± ${tolerance}`);

/** Two concurrency steps of 4 requests each, the profile repeated. */
const repeatedConfig = (baseUrl: string, repeat: { count: number; pauseSec: number }) =>
  RunConfigSchema.parse({
    endpoint: { baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
    profile: { kind: 'concurrency', levels: [1, 2] },
    limits: { requests: 4 },
    repeat,
  });

test('t(0.975, df): the table\'s values, and the expansion beyond 30 degrees of freedom within 1e-3 of the tables', () => {
  // Student's t tables (two-sided 95%).
  for (const [df, t] of [[1, 12.7062], [2, 4.3027], [4, 2.7764], [9, 2.2622], [19, 2.093], [30, 2.0423]] as const) near(tQuantile975(df), t, 1e-4);
  for (const [df, t] of [[31, 2.0395], [40, 2.0211], [60, 2.0003], [120, 1.9799], [1000, 1.9623]] as const) near(tQuantile975(df), t, 1e-3);
  assert.ok(tQuantile975(31) < tQuantile975(30), 'decreasing across the table\'s end');
  assert.throws(() => tQuantile975(0), /at least 1/);
});

test('mean and 95% interval across repeats, worked by hand', () => {
  // 10, 12, 14: mean 12, s = 2, half-width 4.3027 * 2 / sqrt(3) = 4.9683.
  const three = meanInterval([10, 12, 14]);
  near(three?.mean, 12, 1e-12);
  near(three?.halfWidth, 4.9683, 1e-4);
  // 1..5: mean 3, s = sqrt(2.5) = 1.5811, half-width 2.7764 * 1.5811 / sqrt(5) = 1.9632.
  near(meanInterval([1, 2, 3, 4, 5])?.halfWidth, 1.9632, 1e-4);
  // Identical repeats: no spread, a zero-width interval. One repeat: no interval at all.
  assert.deepEqual(meanInterval([7, 7]), { n: 2, mean: 7, halfWidth: 0 });
  assert.deepEqual(meanInterval([7]), { n: 1, mean: 7, halfWidth: null });
  assert.equal(meanInterval([]), null);
  // 12 ± 4.97 and 20 ± 1: [7.03, 16.97] and [19, 21] do not overlap; the difference's interval is above zero.
  const apart = overlapDifference(three!, { n: 3, mean: 20, halfWidth: 1 });
  near(apart?.[0], 19 - 16.9683, 1e-4);
  assert.ok((apart?.[0] ?? 0) > 0);
  const overlapping = overlapDifference(three!, { n: 3, mean: 16, halfWidth: 1 });
  assert.ok((overlapping?.[0] ?? 0) < 0 && (overlapping?.[1] ?? 0) > 0, 'overlapping intervals span zero');
});

test('--repeat: each repeat of the profile is its own step with its repeat index, in one file, with the pause between repeats', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 2 }));
  t.after(() => server.close());
  const config = repeatedConfig(server.baseUrl, { count: 3, pauseSec: 0.3 });
  const events: RunEvent[] = [];
  const doc = ResultDocumentSchema.parse(await runBenchmark(config, { onEvent: (e) => events.push(RunEventSchema.parse(e)) }));
  assert.equal(doc.status, 'complete');
  assert.deepEqual(doc.steps.map((s) => [s.name, s.repeat]), [
    ['concurrency@1', 0], ['concurrency@2', 0],
    ['concurrency@1', 1], ['concurrency@2', 1],
    ['concurrency@1', 2], ['concurrency@2', 2],
  ]);
  assert.equal(server.arrivals.length, 24);
  assert.deepEqual(events.flatMap((e) => (e.type === 'step-start' ? [e.repeat] : [])), [0, 0, 1, 1, 2, 2]);
  // The pause: the first request of a repeat arrives at least 0.3 s after the last of the one before.
  for (const at of [8, 16]) {
    const gap = (server.arrivals[at] ?? 0) - (server.arrivals[at - 1] ?? 0);
    assert.ok(gap >= 295, `gap before request ${at}: ${gap.toFixed(0)} ms`);
  }
  assert.ok(hasRepeats(doc.steps));
  const view = buildResultView(forReading(doc), 'r.llmbench.json');
  assert.deepEqual(view.repeats?.map((r) => [r.name, r.repeats]), [['concurrency@1', 3], ['concurrency@2', 3]]);
  assert.equal(view.repeats?.[0]?.cells[0]?.n, 3);
});

const shape = (name: string, concurrency: number, ttftMs: number, requests = 20): StepShape => ({ name, profile: { kind: 'concurrency', concurrency }, requests, ttftMs, gapMs: 10, chunks: 8 });

/** A run of `repeatTtfts.length` repeats of concurrency@4, repeat r with its TTFT (every `failEvery`-th request failing). */
function repeatedRun(repeatTtfts: number[], failEvery = 0): ResultDocument {
  const doc = makeDocument(repeatTtfts.map((ttft) => ({ ...shape('concurrency@4', 4, ttft), failEvery })));
  doc.steps = doc.steps.map((step, repeat) => ({ ...step, repeat }));
  doc.config = { ...doc.config, repeat: { count: repeatTtfts.length, pauseSec: 0 } };
  return doc;
}

test('a repeated step reads alike wherever a person reads it: the command line\'s progress and table, the live panel\'s table and progress, as the result view labels it', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 5 }));
  t.after(() => server.close());
  // The labels of the result view's step table.
  const labels = ['concurrency@1 #1', 'concurrency@2 #1', 'concurrency@1 #2', 'concurrency@2 #2'];
  const written: string[] = [];
  const printer = createProgressPrinter({ isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream);
  const live = newLiveState({ id: 'r', model: 'm', baseUrl: server.baseUrl, profile: 'concurrency', startedAt: new Date(0).toISOString(), labels: [], expectedSteps: null, resultPath: null });
  const headlines: string[] = [];
  const config = repeatedConfig(server.baseUrl, { count: 2, pauseSec: 0 });
  const doc = await runBenchmark(config, {
    onEvent: (event) => {
      printer.onEvent(event);
      applyRunEvent(live, event, 0);
      if (event.type === 'step-start') headlines.push(progressView(live).headline);
    },
  });
  assert.deepEqual(written.join('').match(/^Step \d+: .*$/gm), labels.map((label, i) => `Step ${i + 1}: ${label}`));
  // The final table lists each repeat so with --per-repeat; by default one row per step across its repeats, named as the repeat table names it.
  assert.deepEqual(formatTerminalTable(doc, { perRepeat: true }).split('\n').slice(2, 6).map((line) => withoutWarningMark(line.split(' | ')[0]?.trim() ?? '')), labels);
  assert.deepEqual(formatTerminalTable(doc).split('\n').slice(2, 4).map((line) => withoutWarningMark(line.split(' | ')[0]?.trim() ?? '')), ['concurrency@1 (2 repeats)', 'concurrency@2 (2 repeats)']);
  assert.deepEqual(tableRows(live).map((row) => withoutWarningMark(row[0] ?? '')), labels);
  assert.deepEqual(headlines, labels.map((label, i) => `Running step ${i + 1} of 4: ${label}`));
});

test('the result view aggregates repeats by step name: each figure its mean ± the t interval of the repeats\' values', () => {
  const doc = repeatedRun([100, 110, 120]);
  const view = buildResultView(forReading(doc), 'r.llmbench.json');
  const ttftP50 = view.repeats?.[0]?.cells.find((c) => c.metric === 'ttftMs' && c.statistic === 'p50');
  const perRepeat = view.rows.map((row) => row.ttftMs?.p50 as number);
  const expected = meanInterval(perRepeat)!;
  assert.equal(ttftP50?.n, 3);
  near(ttftP50?.mean, expected.mean, 1e-9);
  near(ttftP50?.halfWidth, expected.halfWidth!, 1e-9);
  // The p50s are 10 ms apart: mean 110, s 10, half-width 4.3027 * 10 / sqrt(3) = 24.84 (the wobble moves them by < 1 ms).
  near(ttftP50?.mean, 110, 1);
  near(ttftP50?.halfWidth, 24.84, 0.5);
  const table = repeatTable(view.repeats ?? []);
  assert.equal(table.rows[0]?.step, 'concurrency@4 (3 repeats)');
  assert.match(table.rows[0]?.cells[2]?.mean ?? '', /^1\d\d(\.\d)?$/);
  assert.match(table.rows[0]?.cells[2]?.spread ?? '', /^± 2\d(\.\d)?$/);
  assert.deepEqual(stepTable(view.rows).rows.map((r) => r[0]), ['concurrency@4 #1', 'concurrency@4 #2', 'concurrency@4 #3']);
  // A run without repeats has no repeat table.
  assert.equal(buildResultView(forReading(makeDocument([shape('concurrency@4', 4, 100)])), 'x').repeats, undefined);
});

test('compare with repeats on both sides: within noise when the intervals overlap, better or worse when they do not, and says so', () => {
  const a = repeatedRun([100, 110, 120]);
  const overlapping = buildCompareView(forReading(a), forReading(repeatedRun([105, 115, 125])), 'a', 'b');
  const ttft = (view: typeof overlapping) => view.deltas[0]?.cells.find((c) => c.metric === 'ttftMs' && c.statistic === 'p50');
  assert.equal(overlapping.deltas.length, 1, 'one row per step name, not per repeat');
  assert.equal(ttft(overlapping)?.verdict, 'same');
  assert.match(overlapping.noiseRule, /mean across repeats with its 95% Student's t interval; a difference is "within noise" when the two runs' intervals overlap/);
  assert.match(overlapping.noiseRule, /A 3, B 3 repeats/);
  // B clearly faster: 50-52 ms against 100-120 ms.
  const faster = buildCompareView(forReading(a), forReading(repeatedRun([50, 51, 52])), 'a', 'b');
  assert.equal(ttft(faster)?.verdict, 'better');
  const [low, high] = ttft(faster)?.interval ?? [0, 0];
  assert.ok(low < 0 && high < 0, `interval ${low}..${high} below zero`);
  // Only one side repeated: the single-step comparison, and a note that says why.
  const single = buildCompareView(forReading(a), forReading(makeDocument([shape('concurrency@4', 4, 50)])), 'a', 'b');
  assert.ok(single.notes.some((n) => /Only A repeated its profile/.test(n)));
});

test('a delta cell of two repeated runs says its verdict came from their intervals across repeats, in the figure\'s own terms', () => {
  // The cell said "95% interval" of the change for every rule, as if a bootstrap had found it, and
  // showed the failures of a side at zero as a percent ("+4.0% to +4.0%" for 4 more failed requests).
  const view = buildCompareView(forReading(repeatedRun([100, 110, 120])), forReading(repeatedRun([105, 115, 125], 5)), 'a', 'b');
  const cells = view.deltas[0]?.cells ?? [];
  const detail = (metric: string, statistic?: string) => deltaTable(view.deltas).rows[0]?.cells[cells.findIndex((c) => c.metric === metric && c.statistic === statistic)]?.detail;
  assert.equal(cells.find((c) => c.metric === 'ttftMs' && c.statistic === 'p50')?.rule, 'repeat-intervals');
  assert.match(detail('ttftMs', 'p50') ?? '', /: within noise: the two runs' 95% intervals across repeats overlap \(the change lies within -\d+% to \+\d+%\)$/);
  assert.equal(detail('failures'), 'A 0 -> B 4: worse: the two runs\' 95% intervals across repeats do not overlap');
});

test('the report ranks repeated runs by their mean across repeats and ties them when the intervals overlap', () => {
  const withThroughput = (doc: ResultDocument, rates: number[]) => {
    doc.steps.forEach((step, i) => {
      if (step.summary) step.summary = { ...step.summary, outputTokensPerSecond: rates[i] ?? 0 };
    });
    return doc;
  };
  const runs = [
    { name: 'A', doc: withThroughput(repeatedRun([100, 100, 100]), [1000, 1010, 1020]) },
    { name: 'B', doc: withThroughput(repeatedRun([100, 100, 100]), [1005, 1015, 1025]) },
    { name: 'C', doc: withThroughput(repeatedRun([100, 100, 100]), [600, 602, 604]) },
  ];
  const model = buildReportModel(runs);
  assert.deepEqual(model.ranking.map((r) => [r.name, r.rank, r.tiedWithAbove]), [['B', 1, false], ['A', 1, true], ['C', 3, false]]);
  near(model.ranking[0]?.outputTokensPerSecond, 1015, 1e-9);
  // s = 10 over 3 repeats: half-width 4.3027 * 10 / sqrt(3) = 24.84.
  near(model.ranking[0]?.outputTokensPerSecondHalfWidth, 24.84, 0.01);
  assert.match(rankingTable(model).rows[0]?.[3] ?? '', /±/, 'the output tok/s cell');
  assert.deepEqual(model.ranking.map((r) => r.noiseRule), [null, 'repeat-intervals', 'repeat-intervals']);
  assert.match(rankingNoiseNote(model), /the two runs' intervals overlap/);
  assert.doesNotMatch(rankingNoiseNote(model), /under 5%/, 'no run was judged by the small-change rule');
});

test('a repeated run is charted as one point per step at its mean, with the 95% interval of the table across repeats as a band, each repeat faint behind it', () => {
  // The chart joined every repeat's point into one line that zig-zagged from repeat to repeat.
  const doc = makeDocument([...[100, 110, 120].map((ttft) => shape('concurrency@4', 4, ttft)), ...[200, 230, 260].map((ttft) => shape('concurrency@8', 8, ttft))]);
  doc.steps = doc.steps.map((step, i) => ({ ...step, repeat: i % 3 }));
  doc.steps = [0, 3, 1, 4, 2, 5].map((i) => doc.steps[i]!);
  const view = buildResultView(forReading(doc), 'r.llmbench.json');
  const ttft = view.charts.find((c) => c.id === 'ttft')!;
  const p50 = ttft.series.find((s) => s.label === 'p50 (mean of repeats)')!;
  assert.equal(p50.points.length, 2, 'one point per step name');
  const table = view.repeats!.map((row) => row.cells.find((c) => c.metric === 'ttftMs' && c.statistic === 'p50')!);
  p50.points.forEach(([, y], i) => near(y, table[i]!.mean!, 1e-9));
  assert.deepEqual(p50.pointLabels, ['concurrency@4: mean of 3 repeats', 'concurrency@8: mean of 3 repeats']);
  assert.match(p50.pointNotes?.[0] ?? '', /^95% interval ± 2\d(\.\d)?$/);
  // The band: the table's mean ± its half-width, filled between its two edges.
  const edges = ttft.series.filter((s) => s.bandEdge && s.label.startsWith('p50'));
  assert.equal(edges.length, 2);
  edges[0]!.points.forEach(([, y], i) => near(y, table[i]!.mean! - table[i]!.halfWidth!, 1e-9));
  edges[1]!.points.forEach(([, y], i) => near(y, table[i]!.mean! + table[i]!.halfWidth!, 1e-9));
  assert.equal(edges[1]!.fillToPrevious, true);
  // Each repeat, for the toggle: six faint points named with their repeat, off the chart until asked for.
  const each = ttft.series.find((s) => s.label === 'p50, each repeat')!;
  assert.equal(each.eachRepeat, true);
  assert.equal(each.points.length, 6);
  assert.ok(each.pointLabels?.includes('concurrency@8 #3'));
  assert.equal(withRepeatPoints(ttft, false).series.some((s) => s.eachRepeat), false);
  assert.equal(withRepeatPoints(ttft, true).series.length, ttft.series.length);
  const spec = resultChartSpec(withRepeatPoints(ttft, true));
  const drawn = spec.series.find((s) => s.label === 'p50, each repeat')!;
  assert.deepEqual([drawn.showLine, drawn.faint], [false, true]);
  assert.ok(spec.series.filter((s) => s.label.includes('interval')).every((s) => s.hideInLegend && s.pointRadius === 0));
  // The distributions name each repeat's curve with its repeat.
  assert.deepEqual(view.charts.find((c) => c.id === 'ttft-distribution')?.series.map((s) => s.label).slice(0, 2), ['concurrency@4 #1', 'concurrency@8 #1']);
});

test('compare draws both repeated runs as their means with intervals, B dashed with triangles so that it shows where the lines meet', () => {
  const view = buildCompareView(forReading(repeatedRun([100, 110, 120])), forReading(repeatedRun([100, 110, 120])), 'a', 'b');
  const ttft = view.charts.find((c) => c.id === 'ttft')!;
  const a = ttft.series.find((s) => s.label === 'A (mean of repeats)')!;
  const b = ttft.series.find((s) => s.label === 'B (mean of repeats)')!;
  assert.equal(a.points.length, 1);
  assert.deepEqual([b.dashed, b.pointStyle, a.dashed, a.pointStyle], [true, 'triangle', undefined, undefined]);
  assert.ok(ttft.series.some((s) => s.label === 'B 95% interval' && s.fillToPrevious));
  // Without repeats, the overlay is one line a run, each point named by its step.
  const single = buildCompareView(forReading(makeDocument([shape('concurrency@4', 4, 100), shape('concurrency@8', 8, 200)])), forReading(makeDocument([shape('concurrency@4', 4, 100)])), 'a', 'b');
  const requests = single.charts.find((c) => c.id === 'requests')!;
  assert.deepEqual(requests.series.map((s) => [s.label, s.pointLabels]), [['A', ['concurrency@4', 'concurrency@8']], ['B', ['concurrency@4']]]);
});

test('a delta cell shows why it is within noise: both runs\' intervals across repeats, the bootstrap interval, or the small-change threshold', () => {
  // "TTFT p50 48.3 (+267%) ≈" said within noise with no reason in view.
  const repeated = buildCompareView(forReading(repeatedRun([100, 110, 120])), forReading(repeatedRun([105, 115, 125])), 'a', 'b');
  const cells = repeated.deltas[0]!.cells;
  const at = cells.findIndex((c) => c.metric === 'ttftMs' && c.statistic === 'p50');
  assert.equal(cells[at]?.halfWidths?.length, 2);
  assert.match(deltaTable(repeated.deltas).rows[0]!.cells[at]!.reason, /^A 11\d(\.\d)? ± 2\d(\.\d)?, B 11\d(\.\d)? ± 2\d(\.\d)?: overlap$/);
  const single = buildCompareView(forReading(makeDocument([shape('concurrency@4', 4, 100)])), forReading(makeDocument([shape('concurrency@4', 4, 101)])), 'a', 'b');
  const table = deltaTable(single.deltas).rows[0]!.cells;
  const singleCells = single.deltas[0]!.cells;
  assert.match(table[singleCells.findIndex((c) => c.metric === 'ttftMs' && c.statistic === 'p50')]!.reason, /^95% interval -\d+(\.\d)?% to \+\d+(\.\d)?% spans 0$/);
  assert.equal(table[singleCells.findIndex((c) => c.metric === 'failures')]!.reason, 'no change');
  assert.match(table[singleCells.findIndex((c) => c.metric === 'outputTokensPerSecond')]!.reason, /^(under|over) 5%, no interval$|^no change$/);
});

test('a concurrency level a repeated run did not reach is said for each repeat that fell short, naming it', () => {
  const doc = repeatedRun([100, 110, 120]);
  for (const step of doc.steps.slice(0, 2)) step.summary = { ...step.summary!, achievedConcurrency: 1.5 };
  const notes = buildResultView(forReading(doc), 'r').notes.filter((n) => /requests in flight/.test(n));
  assert.deepEqual(notes.map((n) => /^Step "([^"]+)" averaged 1\.5 requests in flight, not 4/.exec(n)?.[1]), ['concurrency@4 #1', 'concurrency@4 #2']);
});

test('the table across repeats leaves out failures when no request failed in any repeat, and says so; a failure brings the column back', () => {
  // At 1000 px the failures column, zeros all the way down, was the one cut off.
  const clean = repeatTable(buildResultView(forReading(repeatedRun([100, 110, 120])), 'r').repeats ?? []);
  assert.ok(!clean.columns.some((c) => c.label === 'failures'), `columns: ${clean.columns.map((c) => c.label).join(', ')}`);
  assert.equal(clean.rows[0]?.cells.length, clean.columns.length);
  assert.deepEqual(clean.omitted, ['failures: no request failed in any repeat']);
  const failing = repeatTable(buildResultView(forReading(repeatedRun([100, 110, 120], 5)), 'r').repeats ?? []);
  assert.equal(failing.columns.at(-1)?.label, 'failures');
  assert.deepEqual(failing.omitted, []);
});
