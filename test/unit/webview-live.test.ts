import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunEvent } from '../../src/format/events';
import { HostToLiveMessageSchema, LiveStateSchema, type LiveState } from '../../src/format/messages/live';
import type { StepProfile } from '../../src/format/result';
import { Coalescer } from '../../src/host/coalescer';
import { applyRunEvent, MAX_SERIES_POINTS, newLiveState } from '../../src/host/live-state';
import { chartConfig } from '../../webview/shared/charts';
import { opaque, withAlpha, type Theme } from '../../webview/shared/theme';
import { liveCharts, movingAverage, stepAxis, TABLE_COLUMNS, tableRows, THROUGHPUT_WINDOW_SEC } from '../../src/views/live';
import { notificationText, progressView, resultPathText, runEndMessage, statusBarText } from '../../src/views/progress';
import { formatDuration, formatMetric } from '../../src/views/number-format';
import { makeStep } from '../helpers/result-documents';

const RUN = {
  id: 'run-1',
  model: 'Qwen/Qwen2-7B-Instruct',
  baseUrl: 'http://127.0.0.1:8000/v1',
  profile: 'concurrency 1,4',
  startedAt: '2025-01-01T00:00:00.000Z',
  labels: [['engine', 'vLLM']] as Array<[string, string]>,
  expectedSteps: 2,
  resultPath: '/tmp/x.llmbench.json',
};

const concurrency = (level: number): StepProfile => ({ kind: 'concurrency', concurrency: level });

function summaryOf(name: string, profile: StepProfile, ttftMs: number, failEvery = 0) {
  const step = makeStep({ name, profile, requests: 40, ttftMs, gapMs: 10, chunks: 20, failEvery });
  assert.ok(step.summary);
  return step.summary;
}

function progress(stepIndex: number, elapsedSec: number, completed: number, failed = 0): RunEvent {
  return {
    type: 'progress',
    snapshot: {
      stepIndex, elapsedSec, completed, failed, inFlight: 4, plannedRequests: 40, plannedDurationSec: null,
      requestsPerSecond: 3 + stepIndex, outputTokensPerSecond: 60 + stepIndex, recentTtftMs: [], recentLatencyMs: [],
    },
  };
}

/** A two-step concurrency run, the second step half done. */
function midRunState(): LiveState {
  const state = newLiveState(structuredClone(RUN));
  applyRunEvent(state, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: RUN.resultPath }, 0);
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@1', profile: concurrency(1) }, 0.1);
  applyRunEvent(state, progress(0, 1, 20), 1.1);
  applyRunEvent(state, { type: 'step-end', stepIndex: 0, name: 'concurrency@1', summary: summaryOf('concurrency@1', concurrency(1), 50, 4) }, 2);
  applyRunEvent(state, { type: 'step-start', stepIndex: 1, name: 'concurrency@4', profile: concurrency(4) }, 2);
  applyRunEvent(state, progress(1, 1, 20, 2), 3);
  return state;
}

const THEME: Theme = {
  kind: 'dark', background: '#1e1e1e', foreground: '#cccccc', mutedForeground: '#999999', gridLines: '#333333', border: '#444444',
  error: '#f14c4c', warning: '#cca700', success: '#89d185', fontFamily: 'sans-serif', fontSize: 13, palette: ['#3794ff', '#f28c28', '#89d185'],
};

test('the reducer builds steps, series and errors from run events, and the state fits its message schema', () => {
  const state = midRunState();
  assert.equal(state.phase, 'running');
  assert.deepEqual(state.steps.map((s) => [s.name, s.summary === null]), [['concurrency@1', false], ['concurrency@4', true]]);
  assert.deepEqual(state.series.t, [1.1, 3]);
  // Cumulative failures: the first step's 10 failed (every 4th of 40) plus 2 in the running step.
  assert.deepEqual(state.series.failed, [0, 12]);
  assert.deepEqual(state.errors, { http: 10 });
  assert.equal(state.current?.stepIndex, 1);
  assert.ok(HostToLiveMessageSchema.safeParse({ type: 'state', state }).success);
});

test('run-end finishes the run with its status, and the progress view says so', () => {
  const state = midRunState();
  applyRunEvent(state, { type: 'run-end', status: 'partial', reason: 'cancelled by the user', resultPath: RUN.resultPath }, 4.5);
  const view = progressView(state);
  assert.equal(state.phase, 'finished');
  assert.equal(state.current, null);
  assert.match(view.headline, /^Finished \(partial\) after 1 step in 4\.5 s: cancelled by the user$/);
  assert.equal(view.canCancel, false);
  assert.equal(view.canOpenResult, true);
  assert.equal(view.tone, 'warning');
  assert.equal(resultPathText(state), `Saved to ${RUN.resultPath}`, 'the finished run says where its file is');
  assert.equal(resultPathText(midRunState()), `Saving to ${RUN.resultPath}`);
});

test('progress: overall counts finished steps plus the running step\'s fraction of its requests', () => {
  const view = progressView(midRunState());
  assert.equal(view.headline, 'Running step 2 of 2: concurrency@4');
  assert.deepEqual(view.overall, { value: 1 + 22 / 40, max: 2 });
  assert.deepEqual(view.step, { value: 22, max: 40 });
  assert.equal(view.stepDetail, '20 / 40 requests done · 2 failed · 4 in flight · 1.0 s');
  assert.equal(view.canCancel, true);
});

test('a duration-limited step measures progress by time', () => {
  const state = midRunState();
  applyRunEvent(state, { type: 'progress', snapshot: { ...(progress(1, 15, 5) as Extract<RunEvent, { type: 'progress' }>).snapshot, plannedRequests: null, plannedDurationSec: 60 } }, 4);
  assert.deepEqual(progressView(state).step, { value: 15, max: 60 });
});

test('table rows are the table of means in the views\' names, units and format; the running step shows its live throughput', () => {
  // The live panel printed latency in seconds ("1.30"), TPOT as "ITL", 1297.65 where the result view
  // prints 1,298, and a header "Requests/s" over the unit "req/s".
  const state = midRunState();
  const rows = tableRows(state);
  assert.deepEqual(TABLE_COLUMNS.map((c) => [c.label, c.unit ?? '']), [
    ['Benchmark', ''], ['req/s', ''], ['output tok/s', ''], ['TTFT', 'mean, ms'], ['TPOT', 'mean, ms'], ['latency', 'mean, ms'], ['requests', 'ok / failed'],
  ]);
  assert.equal(rows.length, 2);
  const [first, running] = rows;
  const summary = state.steps[0]?.summary;
  assert.ok(summary && first && running);
  assert.equal(first[0], 'concurrency@1');
  assert.equal(first[1], formatMetric('requestsPerSecond', summary.requestsPerSecond));
  assert.equal(first[2], formatMetric('outputTokensPerSecond', summary.outputTokensPerSecond));
  assert.equal(first[3], formatMetric('ttftMs', summary.ttftMs?.mean));
  assert.equal(first[4], formatMetric('tpotMs', summary.tpotMs?.mean));
  assert.equal(first[5], formatMetric('latencyMs', summary.latencyMs?.mean), 'latency in ms, as everywhere');
  assert.equal(first[6], '30 / 10');
  assert.deepEqual(running, ['concurrency@4 (running)', '4.00*', '61*', '…', '…', '…', '20 / 2']);
  assert.equal(formatMetric('latencyMs', 1297.65), '1,298', 'the figure the issue found as "1297.65" here and "1,298" in the result view');
});

test('per-step charts place steps at the concurrency they measured when all have one, else at their measured rate', () => {
  const state = midRunState();
  assert.equal(stepAxis(state.steps).title, 'Concurrency (measured mean in flight)');
  applyRunEvent(state, { type: 'step-end', stepIndex: 1, name: 'concurrency@4', summary: summaryOf('concurrency@4', concurrency(4), 80) }, 5);
  const ttft = liveCharts(state).find((c) => c.id === 'ttft');
  assert.ok(ttft);
  assert.deepEqual(ttft.spec.series.map((s) => s.label), ['p50', 'p90', 'p99']);
  assert.deepEqual(ttft.spec.series[0]?.data.map((p) => p.x), state.steps.map((step) => step.summary?.achievedConcurrency));
  assert.ok((ttft.spec.series[0]?.data[1]?.y ?? 0) > (ttft.spec.series[0]?.data[0]?.y ?? 0), 'the slower step plots higher');
  state.steps.push({ name: 'asynchronous@2.00 req/s', profile: { kind: 'rate', rate: 2 }, startedAtSec: 6, summary: summaryOf('r', { kind: 'rate', rate: 2 }, 60) });
  const axis = stepAxis(state.steps);
  assert.equal(axis.title, 'Achieved request rate (req/s)');
  assert.equal(axis.x(state.steps[2]!), state.steps[2]?.summary?.requestsPerSecond);
});

test('throughput is a moving average over its window; samples older than the window drop out', () => {
  assert.deepEqual(movingAverage([0, 1, 2, 3], [10, 20, 30, 40], 2), [10, 15, 25, 35]);
  assert.deepEqual(movingAverage([0, 5, 5.5, 11], [64, 128, 64, 0], THROUGHPUT_WINDOW_SEC), [64, 128, 96, 0]);
  assert.deepEqual(movingAverage([], [], 5), []);
});

test('per-step charts are in ms and named as the result view names them, time series charts decimate, mark where each step began and say their unit', () => {
  const state = midRunState();
  const charts = liveCharts(state);
  assert.deepEqual(charts.map((c) => c.id), ['throughput', 'load', 'ttft', 'tpot', 'latency']);
  const latency = charts.find((c) => c.id === 'latency');
  const p50 = state.steps[0]?.summary?.latencyMs?.p50 ?? NaN;
  assert.equal(latency?.spec.series[0]?.data[0]?.y, p50, 'in ms, not seconds');
  assert.equal(latency?.spec.y.title, 'latency (ms)');
  assert.deepEqual(charts.filter((c) => c.id === 'tpot').map((c) => [c.title, c.spec.y.title]), [['TPOT per step', 'TPOT (ms)']]);
  const throughput = charts.find((c) => c.id === 'throughput');
  // 60 then 61 output tok/s, 1.9 s apart: the second point is the mean of both.
  assert.deepEqual(throughput?.spec.series[0]?.data, [{ x: 1.1, y: 60 }, { x: 3, y: 60.5 }]);
  assert.match(throughput?.title ?? '', /5 s moving average/);
  assert.deepEqual(throughput?.spec.markers, state.steps.map((step) => ({ x: step.startedAtSec, label: step.name })));
  assert.equal(throughput?.spec.x.unit, 's');
  assert.equal(throughput?.spec.series[1]?.rightAxis, true);
  const config = chartConfig(throughput!.spec, THEME);
  const plugins = config.options?.plugins as { decimation?: { enabled?: boolean; threshold?: number } };
  assert.equal(plugins.decimation?.enabled, true);
  assert.equal(config.options?.animation, false);
  assert.equal(config.options?.parsing, false);
  assert.equal(config.data.datasets[0]?.borderColor, '#3794ff');
  assert.equal(config.data.datasets[1]?.yAxisID, 'y2');
});

test('series stay bounded over a long run and keep its whole time span', () => {
  const state = newLiveState(structuredClone(RUN));
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'throughput', profile: { kind: 'throughput' } }, 0);
  const started = performance.now();
  const events = 50_000;
  for (let i = 1; i <= events; i++) applyRunEvent(state, progress(0, i / 4, i), i / 4);
  const ms = performance.now() - started;
  assert.ok(state.series.t.length <= MAX_SERIES_POINTS, `${state.series.t.length} points`);
  assert.ok(state.series.t.length > MAX_SERIES_POINTS / 2);
  assert.ok((state.series.t.at(-1) ?? 0) > events / 4 - 20, 'the latest samples are there');
  assert.ok((state.series.t[0] ?? Infinity) < 20, 'the start of the run is still there');
  const bytes = JSON.stringify(state).length;
  console.log(`# ${events} progress events reduced in ${ms.toFixed(0)} ms; state ${state.series.t.length} points, ${(bytes / 1024).toFixed(0)} KiB as JSON`);
  assert.ok(LiveStateSchema.safeParse(state).success);
});

test('the coalescer delivers at most once per interval and waits while delivery is refused', async () => {
  let deliveries = 0;
  let accepting = true;
  const coalescer = new Coalescer(40, () => {
    if (!accepting) return false;
    deliveries++;
    return true;
  });
  for (let i = 0; i < 100; i++) coalescer.request();
  await sleep(10);
  assert.equal(deliveries, 1, 'the first change goes out at once');
  for (let i = 0; i < 100; i++) coalescer.request();
  await sleep(100);
  assert.equal(deliveries, 2, 'a burst within the interval is one delivery');
  accepting = false;
  coalescer.request();
  await sleep(100);
  assert.equal(deliveries, 2, 'refused while hidden');
  accepting = true;
  coalescer.flush();
  assert.equal(deliveries, 3, 'flushed when shown again');
  coalescer.flush();
  assert.equal(deliveries, 3, 'nothing pending, nothing sent');
  coalescer.forceFlush();
  assert.equal(deliveries, 4);
  coalescer.dispose();
});

test('withAlpha turns theme colours into translucent fills', () => {
  assert.equal(withAlpha('#3794ff', 0.2), 'rgba(55, 148, 255, 0.2)');
  assert.equal(withAlpha('#fff', 0.5), 'rgba(255, 255, 255, 0.5)');
  assert.equal(withAlpha('rgb(1, 2, 3)', 0.1), 'rgba(1, 2, 3, 0.1)');
  assert.equal(withAlpha('red', 0.1), 'red');
});

test('opaque drops a theme colour\'s alpha so that series lines stay solid', () => {
  assert.equal(opaque('#d1861666'), '#d18616');
  assert.equal(opaque('#abcd'), '#aabbcc');
  assert.equal(opaque('rgba(1, 2, 3, 0.4)'), '#010203');
  assert.equal(opaque('#3794ff'), '#3794ff');
});

test('time left: the step by its completion rate so far, the run by the planned steps at the rate per slot measured; the bar stays between steps', () => {
  const state = newLiveState({ ...structuredClone(RUN), expectedSteps: 3 });
  const planned = (level: number) => ({ name: `concurrency@${level}`, profile: concurrency(level), requests: 100, warmup: 0, durationSec: null });
  applyRunEvent(state, { type: 'run-start', plannedSteps: [planned(1), planned(4), planned(16)], stepCount: 3, resultPath: RUN.resultPath }, 0);
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@1', profile: concurrency(1) }, 0);
  // One request at a time, 2 a second: 0.5 s a request.
  const first = { ...summaryOf('concurrency@1', concurrency(1), 50), durationSec: 20, requestsPerSecond: 2, achievedConcurrency: 1 };
  applyRunEvent(state, { type: 'step-end', stepIndex: 0, name: 'concurrency@1', summary: first }, 20);
  applyRunEvent(state, { type: 'step-start', stepIndex: 1, name: 'concurrency@4', profile: concurrency(4) }, 20);
  const between = progressView(state);
  assert.deepEqual(between.step, { value: 0, max: 1 }, 'a step that has not reported yet shows an empty bar, not none');
  assert.match(between.stepDetail, /^concurrency@4: sending the first requests/);
  applyRunEvent(state, { type: 'progress', snapshot: { stepIndex: 1, elapsedSec: 10, completed: 25, failed: 0, inFlight: 4, plannedRequests: 100, plannedDurationSec: null, requestsPerSecond: 2.5, outputTokensPerSecond: 300, recentTtftMs: [], recentLatencyMs: [] } }, 30);
  // 75 requests left at 2.5/s: 30 s; then 100 requests on 16 slots, seven rounds (the last one not full) at 2 a second each: 3.5 s more, not another 20 s step.
  assert.equal(progressView(state).eta, 'about 30 s left in this step, about 34 s in all');
  // The same words in the notification and, shortened, in the status bar.
  assert.match(notificationText(progressView(state)), /^Running step 2 of 3: concurrency@4 · .* · about 30 s left in this step, about 34 s in all$/);
  assert.equal(statusBarText(state), 'LLM Bench 42% · 300 tok/s · 30 s left');
  // Without the engine's plan (an older engine's events), only the step's time is said.
  const unplanned = structuredClone(state);
  unplanned.run.plan = [];
  assert.equal(progressView(unplanned).eta, 'about 30 s left in this step');
  assert.equal(formatDuration(190), '3 min 10 s');
  assert.equal(formatDuration(3900), '1 h 5 min');
});

test('time left counts the warm-up with the step\'s requests, and the progress line counts the measured requests the table will show', () => {
  // The progress said 42 requests (2 of them warm-up) while the table showed 40.
  const state = newLiveState({ ...structuredClone(RUN), expectedSteps: 1 });
  applyRunEvent(state, { type: 'run-start', plannedSteps: [{ name: 'concurrency@1', profile: concurrency(1), requests: 40, warmup: 2, durationSec: null }], stepCount: 1, resultPath: RUN.resultPath }, 0);
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@1', profile: concurrency(1) }, 0);
  applyRunEvent(state, { type: 'progress', snapshot: { stepIndex: 0, elapsedSec: 1, completed: 0, failed: 0, inFlight: 1, plannedRequests: 40, plannedDurationSec: null, warmup: { planned: 2, ended: 1 }, requestsPerSecond: 0, outputTokensPerSecond: 0, recentTtftMs: [], recentLatencyMs: [] } }, 1);
  assert.match(progressView(state).stepDetail, /^warming up \(1 of 2\) · 0 \/ 40 requests done/);
  applyRunEvent(state, { type: 'progress', snapshot: { stepIndex: 0, elapsedSec: 10, completed: 8, failed: 0, inFlight: 1, plannedRequests: 40, plannedDurationSec: null, warmup: { planned: 2, ended: 2 }, requestsPerSecond: 1, outputTokensPerSecond: 0, recentTtftMs: [], recentLatencyMs: [] } }, 10);
  const view = progressView(state);
  assert.match(view.stepDetail, /^8 \/ 40 requests done/);
  assert.deepEqual(view.step, { value: 8, max: 40 });
  // 10 requests (2 warm-up) took 10 s: 32 more take 32 s.
  assert.equal(view.eta, 'about 32 s left in this step');
});

test('the time charts can show the latest step alone, on its own scale', () => {
  const state = midRunState();
  const whole = liveCharts(state).find((c) => c.id === 'throughput');
  const latest = liveCharts(state, { latestStepOnly: true }).find((c) => c.id === 'throughput');
  const startOfLatest = state.steps.at(-1)!.startedAtSec;
  assert.ok((whole?.spec.series[0]?.data.length ?? 0) > (latest?.spec.series[0]?.data.length ?? 0));
  assert.ok(latest?.spec.series[0]?.data.every((p) => p.x >= startOfLatest));
  assert.deepEqual(latest?.spec.markers?.map((m) => m.label), ['concurrency@4']);
});

test('the run-end notification ends each sentence once, whether or not the engine\'s reason has its own full stop', () => {
  assert.equal(
    runEndMessage('failed', '50 requests failed in a row, rather than send more.', 50),
    'LLM Bench: the run failed: 50 requests failed in a row, rather than send more.',
  );
  assert.equal(runEndMessage('failed', 'the server closed the connection', 3), 'LLM Bench: the run failed: the server closed the connection.');
  assert.equal(runEndMessage('failed', undefined, 0), 'LLM Bench: the run failed: see the log.');
  assert.equal(
    runEndMessage('partial', 'Cancelled.', 12),
    'LLM Bench: the run stopped early: Cancelled. The result keeps the 12 requests measured.',
  );
  assert.equal(runEndMessage('complete', null, 40), null);
});
