/**
 * The server's side of the views (src/views/server-views.ts and its users: the live strip, the result
 * editor's server section, compare, the report's marks beside the knee), on the hand-made run of
 * test/helpers/server-samples.ts, whose expected figures are worked out here by hand.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forReading } from '../../src/results/read-result';
import { LiveStateSchema, type LiveState } from '../../src/format/messages/live';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { formatRankingMarkdown } from '../../src/report/tables';
import { renderHtmlReport } from '../../src/report/html';
import { buildCompareView } from '../../src/views/compare';
import { runTimeAxis, serverStrip } from '../../src/views/live';
import { resultChartSpec, timeTicks } from '../../src/views/chart-spec';
import { buildReportModel, kneeTable } from '../../src/views/report';
import { buildResultView, serverSection } from '../../src/views/result';
import { compareServerTable, markText, serverMarks, serverSourceText, serverTable, serverTimeCharts, stepMarkers } from '../../src/views/server-views';
import { concurrencySweep } from '../helpers/result-documents';
import { METRICS_INFO, runWithServerMetrics, VLLM_VALUES, vllmSeries } from '../helpers/server-samples';

const column = (table: { columns: { label: string; unit?: string }[]; rows: string[][] }, label: string, unit: string) => {
  const index = table.columns.findIndex((c) => c.label === label && c.unit === unit);
  assert.ok(index > 0, `column ${label} (${unit}) among ${table.columns.map((c) => `${c.label} ${c.unit ?? ''}`).join(', ')}`);
  return table.rows.map((row) => row[index]);
};

test("each step's server figures come from its own span of the run's clock", () => {
  const section = serverSection(runWithServerMetrics());
  assert.ok(section);
  assert.equal(section.source, 'vLLM metrics from http://127.0.0.1:8000/metrics, scraped every 1 s');
  const table = section.table;
  assert.deepEqual(table.rows.map((r) => r[0]), ['concurrency@1', 'concurrency@8']);
  // Step 1, scrapes at 0..3000 ms: running 0,1,1,1; step 2, at 3000..7000: 1,8,8,8,0.
  assert.deepEqual(column(table, 'Running', 'mean / max'), ['0.8\u00a0/\u00a01', '5\u00a0/\u00a08']);
  assert.deepEqual(column(table, 'Waiting', 'max'), ['0', '3']);
  assert.deepEqual(column(table, 'KV cache', 'max %'), ['10.0', '97.0']);
  // Counters over the step: preemptions 0 -> 0 and 0 -> 3; generated 150 tokens in 3 s, 1260 in 4 s.
  assert.deepEqual(column(table, 'Preempted', 'count'), ['0', '3']);
  assert.deepEqual(column(table, 'Server tok/s', 'generated / prompt'), ['50\u00a0/\u00a0100', '315\u00a0/\u00a0600']);
  // Prefix hits: 100 of 300 tokens, then 600 of 2400.
  assert.deepEqual(column(table, 'Prefix hits', '%'), ['33.3', '25.0']);
  // vLLM's queue-time histogram is not in this run: its column is left out, not shown as n/a.
  assert.ok(!table.columns.some((c) => c.label === 'Queue time'));
  // The server's tokens/s agree with the client's: nothing to explain; the run's cross-check is said to have run.
  assert.deepEqual(section.notes, ['Token cross-check over the whole run: the server counted 1,410 generated tokens, the client received 1,410 (warm-up and failed requests included): they agree within 28.']);
});

test('each repeat of a step is its own row, named by its repeat', () => {
  const doc = runWithServerMetrics();
  const repeated = { ...doc, steps: doc.steps.map((step, i) => ({ ...step, name: 'concurrency@1', repeat: i })) };
  assert.deepEqual(serverSection(repeated)?.table.rows.map((r) => r[0]), ['concurrency@1 #1', 'concurrency@1 #2']);
});

test('the server charts are drawn over run time in seconds, KV-cache usage in percent, with a mark where each step began', () => {
  const section = serverSection(runWithServerMetrics());
  assert.ok(section);
  assert.deepEqual(section.charts.map((c) => c.id), ['server-requests', 'server-kv-cache', 'server-tokens']);
  const [requests, kv, tokens] = section.charts;
  assert.deepEqual(requests!.series.map((s) => s.label), ['running', 'waiting']);
  assert.deepEqual(requests!.series[1]!.points, [[0, 0], [1, 0], [2, 0], [3, 0], [4, 2], [5, 3], [6, 1], [7, 0]]);
  assert.deepEqual(kv!.series[0]!.points.map(([, y]) => Math.round(y * 10) / 10), [0, 10, 10, 10, 50, 96, 97, 0]);
  assert.equal(kv!.yMax, 100);
  // Counter rates between scrapes: generated 50, 50, 50, 400, 400, 400, 60 tokens per second.
  assert.deepEqual(tokens!.series[0]!.points, [[1, 50], [2, 50], [3, 50], [4, 400], [5, 400], [6, 400], [7, 60]]);
  assert.equal(tokens!.xLabel, 'Run time (s)');
  assert.deepEqual(kv!.markers, [{ x: 0, label: 'concurrency@1' }, { x: 3, label: 'concurrency@8' }]);
  // Charts side by side share their time range, from 0, ticked at round times (chart.js picked 16.7 and 33.3).
  assert.deepEqual(section.charts.map((c) => [c.timeAxis, c.xMax]), [[true, 7], [true, 7], [true, 7]]);
  for (const chart of section.charts) assert.deepEqual([resultChartSpec(chart).x.min, resultChartSpec(chart).x.max, resultChartSpec(chart).x.step], [0, 8, 2]);
  assert.deepEqual(resultChartSpec({ ...tokens!, xMax: 50 }).x, { title: 'Run time (s)', min: 0, max: 50, step: 10 });
});

test('a run without server metrics has no server section; one whose scrapes brought nothing says why', () => {
  assert.equal(serverSection(concurrencySweep()), null);
  const failed = { ...concurrencySweep(), serverMetrics: METRICS_INFO };
  assert.deepEqual(serverSection(failed), {
    source: 'vLLM metrics from http://127.0.0.1:8000/metrics, scraped every 1 s',
    table: { columns: [], rows: [] },
    charts: [],
    notes: ['No server figures: no sample was scraped (see the warnings above).'],
  });
});

test("an engine without some quantities: its charts and columns are left out and named; a step without a span reads n/a", () => {
  const { 'vllm:kv_cache_usage_perc': _kv, 'vllm:num_requests_waiting': _waiting, ...rest } = VLLM_VALUES;
  const doc = runWithServerMetrics(rest);
  delete doc.steps[0]!.startMs;
  const section = serverSection(doc);
  assert.ok(section);
  assert.deepEqual(section.charts.map((c) => c.id), ['server-requests', 'server-tokens']);
  assert.deepEqual(section.notes, ['vLLM does not export: waiting, KV-cache usage.', "No span on the run's clock for: concurrency@1 (the file predates it).", 'Token cross-check over the whole run: the server counted 1,410 generated tokens, the client received 1,410 (warm-up and failed requests included): they agree within 28.']);
  assert.deepEqual(section.table.rows[0]!.slice(0, 3), ['concurrency@1', 'n/a', 'n/a']);
  assert.ok(!section.table.columns.some((c) => c.label === 'KV cache' || c.label === 'Waiting'));
});

test('serverTimeCharts: a chart with only the client line is not drawn; the client line is dashed and muted', () => {
  const { charts, missing } = serverTimeCharts({ runningRequests: [[0, 1]] }, [[0, 5]]);
  assert.deepEqual(charts.map((c) => c.id), ['server-requests']);
  assert.deepEqual(missing, ['waiting', 'KV-cache usage', 'generated tok/s']);
  const withTokens = serverTimeCharts({ generatedTokens: [[1, 10]] }, [[0, 5]]).charts[0];
  assert.deepEqual(withTokens?.lines.map((l) => [l.label, l.color, l.dashed ?? false]), [['generated tok/s', 0, false], ['client output tok/s', 'muted', true]]);
});

test('serverTable and compareServerTable: formatted cells, columns no step has left out, A then B per paired step', () => {
  const figures = (running: number | null) => ({
    runningMean: running, runningMax: running, waitingMean: null, waitingMax: null, kvCacheUsageMean: null, kvCacheUsageMax: 0.5,
    preemptions: null, prefixCacheHitRate: null, generatedTokensPerSecond: null, promptTokensPerSecond: null, queueTimeMeanMs: null, prefillTimeMeanMs: null,
  });
  const table = serverTable([{ name: 's1', figures: figures(2.25) }, { name: 's2', figures: null }]);
  assert.deepEqual(table.columns.map((c) => c.label), ['Step', 'Running', 'KV cache']);
  assert.deepEqual(table.rows, [['s1', '2.3\u00a0/\u00a02.3', '50.0'], ['s2', 'n/a', 'n/a']]);
  // Server tok/s as every view prints tokens per second: "6,335", not "6335".
  const busy = serverTable([{ name: 's1', figures: { ...figures(1280), generatedTokensPerSecond: 6335.4, promptTokensPerSecond: 20000, waitingMax: 1500 } }]);
  assert.deepEqual(busy.rows[0], ['s1', '1,280\u00a0/\u00a01,280', '1,500', '50.0', '6,335\u00a0/\u00a020,000']);
  const compared = compareServerTable([[{ name: 's1', figures: figures(1) }, { name: 's1', figures: figures(4) }], [{ name: 'a', figures: null }, { name: 'b', figures: figures(3) }]]);
  assert.equal(compared.columns[1]?.unit, 'mean / max');
  assert.deepEqual(compared.rows, [['s1', '1\u00a0/\u00a01 \u2192 4\u00a0/\u00a04', '50.0 \u2192 50.0'], ['a / b', 'n/a \u2192 3\u00a0/\u00a03', 'n/a \u2192 50.0']]);
});

test('stepMarkers and serverSourceText', () => {
  assert.deepEqual(stepMarkers([{ name: 'a', startMs: 0 }, { name: 'b' }, { name: 'c', startMs: 2500 }]), [{ x: 0, label: 'a' }, { x: 2.5, label: 'c' }]);
  // Each repeat's mark is named as the tables name it, not three marks all "concurrency@1".
  assert.deepEqual(stepMarkers([0, 1].map((repeat) => ({ name: 'concurrency@1', repeat, startMs: repeat * 1000 }))).map((m) => m.label), ['concurrency@1 #1', 'concurrency@1 #2']);
  assert.equal(serverSourceText({ serverMetrics: { ...METRICS_INFO, intervalMs: 250, engine: 'unknown' } }, 'unknown'), 'Metrics from http://127.0.0.1:8000/metrics, scraped every 250 ms');
  assert.equal(serverSourceText({}, 'sglang'), 'SGLang metrics');
});

test('report marks: the KV cache first at 95% at 5 s, requests first kept waiting from 4 s (above zero for two scrapes), both in concurrency@8', () => {
  const doc = runWithServerMetrics();
  const marks = serverMarks(doc);
  assert.deepEqual(marks, { kvCacheFull: { atSec: 5, step: 'concurrency@8' }, queueing: { atSec: 4, step: 'concurrency@8' } });
  assert.equal(markText(marks.kvCacheFull), 'concurrency@8 at 5.0 s');
  // Waiting above zero in one scrape only is a burst, not a queue; a KV cache below 95% never filled.
  const values = { ...VLLM_VALUES, 'vllm:num_requests_waiting': { kind: 'gauge' as const, values: [0, 0, 0, 0, 2, 0, 1, 0] }, 'vllm:kv_cache_usage_perc': { kind: 'gauge' as const, values: [0, 0, 0, 0, 0.9, 0.94, 0.94, 0] } };
  assert.deepEqual(serverMarks(runWithServerMetrics(values)), { kvCacheFull: 'never', queueing: 'never' });
  assert.equal(markText('never'), 'not seen');
  assert.deepEqual(serverMarks(concurrencySweep()), { kvCacheFull: null, queueing: null });
  assert.equal(markText(null), 'n/a');
});

test('report marks with scrapes every 250 ms: waiting counts as a queue once it held a second, not in four scrapes', () => {
  const withWaiting = (values: number[]) => {
    const doc = runWithServerMetrics();
    const samples = values.map((v, i): [number, number] => [4000 + i * 250, v]);
    doc.steps[1]!.sampled = [{ source: 'server', name: 'vllm:num_requests_waiting', kind: 'gauge', labels: {}, samples }];
    doc.steps[0]!.sampled = [];
    return serverMarks({ ...doc, serverMetrics: { ...METRICS_INFO, intervalMs: 250 } }).queueing;
  };
  // Four scrapes above zero span 750 ms: arrivals passing through, not a queue.
  assert.equal(withWaiting([0, 3, 2, 5, 1, 0]), 'never');
  // Five span 1000 ms: a queue from the first of them, at 4.25 s.
  assert.deepEqual(withWaiting([0, 3, 2, 5, 1, 4, 0]), { atSec: 4.25, step: 'concurrency@8' });
});

test("the report names the marks beside each run's knee in its ranking, the Markdown and the HTML export, and marks the curve's points", () => {
  const runs = [
    { name: 'with server', doc: runWithServerMetrics() },
    { name: 'without', doc: concurrencySweep() },
  ];
  const model = buildReportModel(runs);
  const rows = kneeTable(model).rows;
  assert.deepEqual(rows.find((row) => row[0] === 'with server'), ['with server', 'none', 'concurrency@8 at 5.0 s', 'concurrency@8 at 4.0 s']);
  assert.deepEqual(rows.find((row) => row[0] === 'without')?.slice(2), ['n/a', 'n/a'], 'a run without server metrics: the server did not say');
  const throughput = model.charts.find((c) => c.id === 'outputTokensPerSecond')!;
  const curve = throughput.curves[0]!;
  const heavier = curve.points.find((p) => p.step === 'concurrency@8');
  assert.deepEqual(curve.marks, [{ kind: 'kv-cache-full', point: heavier }, { kind: 'queueing', point: heavier }]);
  assert.deepEqual(throughput.curves[1]!.marks, []);
  const markdown = formatRankingMarkdown(model);
  assert.match(markdown, /\| Run \| Knee \(and its load\) \| KV cache first \u2265 95% \| First kept waiting \|/);
  assert.match(markdown, /\| with server \| none \| concurrency@8 at 5\.0 s \| concurrency@8 at 4\.0 s \|/);
  const html = renderHtmlReport(model, runs, 'Report');
  assert.match(html, /<table class="knees"><thead><tr><th>Run<\/th><th>Knee<span class="unit">and its load<\/span><\/th><th>KV cache first \u2265 95%<\/th>/);
  assert.match(html, /<td>with server<\/td><td>none<\/td><td>concurrency@8 at 5\.0 s<\/td><td>concurrency@8 at 4\.0 s<\/td>/);
  assert.equal((html.match(/class="server-mark" data-kind="kv-cache-full"/g) ?? []).length, model.charts.length + 1, 'a triangle on every chart of the run');
});

test('compare: both runs\u2019 server figures per paired step, and a note for a run without them', () => {
  const withServer = runWithServerMetrics();
  const view = buildCompareView(forReading(withServer), forReading(withServer), 'a.llmbench.json', 'b.llmbench.json');
  assert.ok(view.server);
  assert.deepEqual(view.server.notes, []);
  const running = column(view.server.table, 'Running', 'mean / max');
  assert.deepEqual(running, ['0.8\u00a0/\u00a01 \u2192 0.8\u00a0/\u00a01', '5\u00a0/\u00a08 \u2192 5\u00a0/\u00a08']);
  assert.ok(view.ownCharts.some((c) => c.id === 'a-server-kv-cache') && view.ownCharts.some((c) => c.id === 'b-server-kv-cache'));
  const without = { ...withServer, serverMetrics: undefined, steps: withServer.steps.map(({ sampled: _s, ...step }) => step) };
  const half = buildCompareView(forReading(withServer), forReading(without), 'a.llmbench.json', 'b.llmbench.json');
  assert.deepEqual(half.server?.notes, ['B has no server metrics: its cells read n/a.']);
  const none = buildCompareView(forReading(without), forReading(without), 'a.llmbench.json', 'b.llmbench.json');
  assert.equal(none.server, null);
});

test("the result view carries the run's warnings", () => {
  const doc = { ...runWithServerMetrics(), warnings: ['The server counted 1410 generated tokens, the client 1200.'] };
  assert.deepEqual(buildResultView(forReading(doc), 'r.llmbench.json').warnings, ['The server counted 1410 generated tokens, the client 1200.']);
});

const RUN = {
  id: 'run-s',
  model: 'm',
  baseUrl: 'http://127.0.0.1:8000/v1',
  profile: 'concurrency 1,8',
  startedAt: '2025-01-01T00:00:00.000Z',
  labels: [] as Array<[string, string]>,
  expectedSteps: 2,
  resultPath: null,
};

function scrapedState(): LiveState {
  const state = newLiveState(RUN);
  applyRunEvent(state, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null, serverMetrics: METRICS_INFO }, 0.1);
  // The engine's run clock started 0.5 s after this panel's: its 0 ms is the panel's 0.5 s.
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, startMs: 0 }, 0.5);
  for (const t of [0, 1000, 2000]) applyRunEvent(state, { type: 'sampled', engine: 'vllm', series: vllmSeries((s) => s === t) }, 0.5 + t / 1000 + 0.01);
  return state;
}

test('live: each scrape adds points on the panel clock; counters become rates with the previous sample', () => {
  const state = scrapedState();
  const lines = state.server!.lines;
  assert.equal(state.server!.scrapes, 3);
  assert.deepEqual(lines.runningRequests, { t: [0.5, 1.5, 2.5], v: [0, 1, 1], stride: 1, lastCount: 1 });
  // 50 tokens between scrapes a second apart: 50 tok/s, from the second scrape on.
  assert.deepEqual(lines.generatedTokens, { t: [1.5, 2.5], v: [50, 50], stride: 1, lastCount: 1 });
  assert.deepEqual(lines.kvCacheUsage.v, [0, 0.1, 0.1]);
  assert.doesNotThrow(() => LiveStateSchema.parse(JSON.parse(JSON.stringify(state))), 'the state crosses to the webview');
});

test('live strip: one line when there are no server metrics, saying why', () => {
  const off = newLiveState(RUN);
  applyRunEvent(off, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null }, 0);
  assert.deepEqual(serverStrip(off), { message: 'Server metrics: not scraped in this run (turned off).', note: '', charts: [] });
  const waiting = newLiveState(RUN);
  applyRunEvent(waiting, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null, serverMetrics: METRICS_INFO }, 0);
  assert.equal(serverStrip(waiting).message, 'Server metrics: waiting for the first sample from http://127.0.0.1:8000/metrics\u2026');
  applyRunEvent(waiting, { type: 'run-end', status: 'complete', reason: null, resultPath: null }, 3);
  assert.equal(serverStrip(waiting).message, 'Server metrics: no sample came from http://127.0.0.1:8000/metrics during the run (see the warnings below).');
  applyRunEvent(waiting, { type: 'sampling-problem', source: 'gpu', message: 'nvidia-smi failed' }, 3);
  assert.equal(waiting.server?.problem, null, "the GPU's problems are not the server strip's");
  applyRunEvent(waiting, { type: 'sampling-problem', source: 'server', message: 'it answered HTTP 404' }, 3);
  assert.equal(serverStrip(waiting).message, 'Server metrics: none from http://127.0.0.1:8000/metrics: it answered HTTP 404');
  const unknown = newLiveState(RUN);
  applyRunEvent(unknown, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null, serverMetrics: METRICS_INFO }, 0);
  applyRunEvent(unknown, { type: 'sampled', engine: 'unknown', series: [{ source: 'server', name: 'process_cpu_seconds_total', kind: 'counter', labels: {}, samples: [[0, 1]] }] }, 1);
  assert.match(serverStrip(unknown).message ?? '', /answered, but with none of the metrics LLM Bench reads/);
});

test('live strip: three charts on the same time axis as the client charts, from the run start to the latest sample of either', () => {
  const state = scrapedState();
  applyRunEvent(state, { type: 'progress', snapshot: { stepIndex: 0, elapsedSec: 1, completed: 1, failed: 0, inFlight: 1, plannedRequests: 10, plannedDurationSec: null, requestsPerSecond: 1, outputTokensPerSecond: 40, recentTtftMs: [], recentLatencyMs: [] } }, 1.2);
  const strip = serverStrip(state);
  assert.equal(strip.message, null);
  assert.equal(strip.note, '');
  assert.deepEqual(strip.charts.map((c) => c.id), ['server-requests', 'server-kv-cache', 'server-tokens']);
  const axis = runTimeAxis(state, { latestStepOnly: false });
  // The latest sample is at 2.5 s, on a tick of 0.5 s (about six ticks): the axis ends there.
  assert.deepEqual(axis, { title: 'Run time (s)', unit: 's', min: 0, max: 2.5, step: 0.5 });
  for (const chart of strip.charts) {
    assert.deepEqual(chart.spec.x, axis);
    assert.deepEqual(chart.spec.markers, [{ x: 0.5, label: 'concurrency@1' }]);
  }
  const kv = strip.charts[1]!.spec;
  assert.deepEqual(kv.series[0]!.data.map((p) => Math.round(p.y)), [0, 10, 10]);
  assert.deepEqual([kv.y.min, kv.y.max], [0, 100]);
  applyRunEvent(state, { type: 'sampled', engine: 'vllm', series: [{ source: 'gpu', name: 'gpu:power_watts', kind: 'gauge', labels: { gpu: '0' }, samples: [[2500, 300]] }] }, 3);
  assert.equal(state.server?.scrapes, 3, 'GPU readings are not server scrapes');
  applyRunEvent(state, { type: 'sampling-problem', source: 'server', message: 'A scrape took longer than 1 s.' }, 3);
  assert.equal(serverStrip(state).note, 'A scrape took longer than 1 s.', 'a problem after samples is said under the charts');
  // Server tokens/s averaged over 5 s like the client's line: 50 then 50; the client's 40 dashed beside it.
  const tokens = strip.charts[2]!.spec;
  assert.deepEqual(tokens.series.map((s) => [s.label, s.data.map((p) => p.y)]), [['generated tok/s', [50, 50]], ['client output tok/s', [40]]]);
});

test('timeTicks: a time axis ticks at 1, 2 or 5 times a power of ten and ends on a whole tick', () => {
  assert.deepEqual(timeTicks(0, 10.03), { max: 12, step: 2 });
  assert.deepEqual(timeTicks(0, 9.7), { max: 10, step: 2 });
  assert.deepEqual(timeTicks(0, 100.3), { max: 120, step: 20 });
  assert.deepEqual(timeTicks(2, 5.2), { max: 6, step: 1 });
  assert.deepEqual(timeTicks(0, 3), { max: 3, step: 0.5 });
});

test('live strip on the latest step only: its lines and axis start where the step did', () => {
  const state = scrapedState();
  applyRunEvent(state, { type: 'step-start', stepIndex: 1, name: 'concurrency@8', profile: { kind: 'concurrency', concurrency: 8 }, startMs: 1500 }, 2.0);
  const strip = serverStrip(state, { latestStepOnly: true });
  assert.deepEqual(strip.charts[0]!.spec.series[0]!.data, [{ x: 2.5, y: 1 }]);
  assert.equal(strip.charts[0]!.spec.x.min, 2.0);
  assert.deepEqual(strip.charts[0]!.spec.markers, [{ x: 2.0, label: 'concurrency@8' }]);
});

test("a step whose server tokens/s differs from the client's says why: the scrapes' granularity over a short step, or what remains beyond it", () => {
  // At concurrency 64 the server reported 473 tok/s against the client's 1,298, with no comment.
  const doc = runWithServerMetrics();
  doc.steps[0]!.summary = { ...doc.steps[0]!.summary!, outputTokensPerSecond: 70 };
  doc.steps[1]!.summary = { ...doc.steps[1]!.summary!, outputTokensPerSecond: 1298 };
  delete doc.tokenCrossCheck;
  const notes = serverSection(doc)?.notes ?? [];
  // Step 1: 50 against 70 over 3 s is within what scrapes every 1 s can do to a 3 s step (up to 2 s of 3).
  assert.match(notes[0] ?? '', /^Server tok\/s differs from the client's output tok\/s in concurrency@1 \(50 against 70 over 3\.0 s\): \/metrics is read every 1 s, so the server's figure is its counter's increase over scrapes that can start up to 1 s before a step/);
  // Step 2: 315 against 1,298 over 4 s is beyond it.
  assert.match(notes[1] ?? '', /^Server tok\/s differs from the client's output tok\/s in concurrency@8 \(315 against 1298 over 4\.0 s\), by more than scrapes every 1 s explain: the server also counts warm-up requests/);
  assert.match(notes[2] ?? '', /^No token cross-check in this file/);
});
