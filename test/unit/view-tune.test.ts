// The tune views' model (src/views/tune.ts, src/views/tune-live.ts): the trials table, the objective
// per trial, the parameter effects, the Pareto front, the best command line (checked by a real
// shell), and the live panel's state built from the tuner's events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { TuneLiveStateSchema, TuneViewSchema, SERVER_LOG_LINES } from '../../src/format/messages/tune';
import type { StepSummary } from '../../src/format/result';
import { SLO_METRICS, SLO_STATS, type Objective } from '../../src/format/tune';
import { sloFigures } from '../../src/tune/objective';
import { buildTuneView, commandLine, paretoFront, sloFigureName, stepMeasure, tuneChartSpec, type StepMeasure } from '../../src/views/tune';
import { applyTuneEvent, newTuneLiveState, runningTrialProgress, tuneEndMessage, tuneLiveHeadline, tuneLiveView, tuneTimeLeft } from '../../src/views/tune-live';
import { chartConfig } from '../../webview/shared/charts';
import { concurrencySweep } from '../helpers/result-documents';
import { issueTuneConfig, makeTrial, sampleTuneFile } from '../helpers/tune-documents';

const column = (view: ReturnType<typeof buildTuneView>, label: string): string[] => {
  const at = view.columns.findIndex((c) => c.label === label);
  assert.ok(at >= 0, `no column ${label} in ${view.columns.map((c) => c.label).join(', ')}`);
  return view.rows.map((row) => row.cells[at] ?? '');
};

test('the trials table: one row per trial with its parameters, status, objective, SLO figure and reason; the best marked; result files to open', () => {
  const view = buildTuneView(sampleTuneFile(), 'sim.llmtune.json', []);
  assert.equal(TuneViewSchema.safeParse(view).success, true);
  assert.deepEqual(view.columns.map((c) => c.label), ['#', 'max_num_seqs', 'max_num_batched_tokens', 'enable_chunked_prefill', 'status', 'objective', 'p99 TTFT', 'SLO', 'reason']);
  assert.deepEqual(column(view, '#'), ['1', '2', '3', '4', '5', '6']);
  assert.deepEqual(column(view, 'max_num_seqs'), ['16', '128', '64', '256', '4', '32']);
  assert.deepEqual(column(view, 'enable_chunked_prefill'), ['off', 'off', 'on', 'on', 'on', 'on']);
  assert.deepEqual(column(view, 'status'), ['complete', 'refused', 'complete', 'complete', 'failed to start', 'complete']);
  assert.deepEqual(column(view, 'objective'), ['900', 'n/a', '1,500', 'n/a', 'n/a', '1,200']);
  assert.deepEqual(column(view, 'p99 TTFT'), ['800.0', 'n/a', '1,400.0', '2,600.0', 'n/a', '1,000.0']);
  assert.deepEqual(column(view, 'SLO'), ['met', 'n/a', 'met', 'missed', 'n/a', 'met']);
  assert.match(column(view, 'reason')[1] ?? '', /^refused by rule vllm\.batched-tokens-cover-model-len/);
  assert.match(column(view, 'reason')[4] ?? '', /exceeds available KV cache blocks/);
  assert.deepEqual(view.rows.map((r) => r.best), [false, false, true, false, false, false]);
  assert.deepEqual(view.rows.map((r) => r.resultFile !== null), [true, false, true, true, false, true]);
  assert.equal(view.columns.find((c) => c.label === 'reason')?.wrap, true);
  assert.equal(view.objective, 'output tok/s');
  assert.deepEqual(view.slo, ['p99 TTFT \u2264 2,000 ms']);
  assert.equal(view.headline, "6 trials of 12: 4 complete, 1 refused without a launch, 1 failed to start. Best: 1,500 output tok/s (trial 3); the search's figures are one measurement each, not re-measured.");
  assert.deepEqual(view.notes, []);
});

test('the best trial: its objective, parameters and command line as the user wrote it, which pastes', () => {
  const view = buildTuneView(sampleTuneFile(), 'sim.llmtune.json', []);
  assert.deepEqual(view.best, {
    trial: 3,
    objective: '1,500 output tok/s',
    measured: 'one measurement, not re-measured',
    ties: [],
    tieText: null,
    noise: null,
    params: 'max_num_seqs=64, max_num_batched_tokens=4096, enable_chunked_prefill=on',
    // As the user wrote it: `llmbench`, not the Node and bundle that ran it, and without the trial's own port.
    commandLine: 'llmbench sim --preset tiny --max-num-seqs 64 --max-num-batched-tokens 4096 --max-model-len 4096 --enable-chunked-prefill',
  });
  const none = buildTuneView(sampleTuneFile({ best: null, status: 'cancelled', statusReason: 'cancelled by the user' }), 'x.llmtune.json', []);
  assert.equal(none.best, null);
  assert.deepEqual(none.notes, ['The tune ended cancelled: cancelled by the user']);
});

test('a command line copied from the view runs in a POSIX shell as the same arguments', () => {
  const argv = ['llmbench', 'sim', '--served-model-name', 'my model', "it's", '--json', '{"a": [1, 2]}', '$HOME', 'a;b|c', '', 'plain-arg=1,2/x:y@z'];
  const line = commandLine(argv);
  const shell = spawnSync('/bin/sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  assert.equal(shell.status, 0, shell.stderr);
  assert.deepEqual(shell.stdout.split('\0').slice(0, -1), argv);
  assert.equal(commandLine(['vllm', 'serve', '--max-num-seqs', '64']), 'vllm serve --max-num-seqs 64', 'plain words stay unquoted');
});

test('the objective per trial: each measured trial, the best so far never falls, trials without an objective at zero', () => {
  const { progress } = buildTuneView(sampleTuneFile(), 'sim.llmtune.json', []);
  const series = Object.fromEntries(progress.series.map((s) => [s.label, s.points]));
  assert.deepEqual(series['trial'], [[1, 900], [3, 1500], [6, 1200]]);
  assert.deepEqual(series['best so far'], [[1, 900], [2, 900], [3, 1500], [4, 1500], [5, 1500], [6, 1500]]);
  assert.deepEqual(series['no objective'], [[2, 0], [4, 0], [5, 0]]);
  assert.equal(progress.y.title, 'output tok/s');
});

test('parameter effects: one chart per parameter; a log range on a log axis, a choice\'s values and a bool\'s off/on as categories; the best trial apart', () => {
  const { effects } = buildTuneView(sampleTuneFile(), 'sim.llmtune.json', []);
  assert.deepEqual(effects.map((c) => c.id), ['effect-max_num_seqs', 'effect-max_num_batched_tokens', 'effect-enable_chunked_prefill']);
  const [seqs, batched, chunked] = effects;
  assert.equal(seqs?.x.log, true);
  assert.deepEqual(seqs?.series.map((s) => [s.label, s.points]), [['trial', [[16, 900], [32, 1200]]], ['best', [[64, 1500]]]]);
  // A choice's values, numbers too, are evenly spaced and named: 512 to 8192 would crowd a linear axis and leave a log one unlabelled.
  assert.deepEqual(batched?.x.categories, ['512', '1024', '2048', '4096', '8192']);
  assert.equal(batched?.x.log, undefined);
  assert.deepEqual(batched?.series.map((s) => s.points), [[[2, 900], [2, 1200]], [[3, 1500]]]);
  assert.deepEqual(chunked?.x.categories, ['off', 'on']);
  assert.deepEqual(chunked?.series.map((s) => s.points), [[[0, 900], [1, 1200]], [[1, 1500]]]);
  const spec = tuneChartSpec(chunked!);
  assert.equal(spec.kind, 'scatter');
  assert.deepEqual(spec.x.categories, ['off', 'on']);
  assert.deepEqual(spec.series[1]?.data, [{ x: 1, y: 1500 }]);
  assert.equal(spec.series[1]?.showLine, false);
});

test('string choices are categories in the order of the space', () => {
  const config = issueTuneConfig();
  config.space = { scheduler: { type: 'choice', values: ['fcfs', 'priority'] } };
  const trial = { ...makeTrial(1, { seqs: 1, batched: 1, chunked: false, objective: 10, ttftP99: 5 }), params: { scheduler: 'priority' } };
  const view = buildTuneView({ config, trials: [trial], best: null, status: 'complete', statusReason: null }, 'x.llmtune.json', []);
  assert.deepEqual(view.effects[0]?.x.categories, ['fcfs', 'priority']);
  assert.deepEqual(view.columns.map((c) => c.label), ['#', 'scheduler', 'status', 'objective', 'p99 TTFT', 'SLO'], 'no reason column when no trial has a reason');
  assert.deepEqual(view.rows[0]?.cells, ['1', 'priority', 'complete', '10', '5.0', 'met']);
  assert.deepEqual(view.effects[0]?.series[0]?.points, [[1, 10]]);
});

test('the Pareto front keeps the steps no other step beats on both throughput and the SLO figure', () => {
  const m = (figure: number, throughput: number, trial = 0): StepMeasure => ({ trial, figure, throughput });
  const points = [m(500, 800), m(300, 600), m(400, 500), m(900, 1500), m(700, 1500), m(200, 100), m(1000, 1400)];
  assert.deepEqual(paretoFront(points), [m(200, 100), m(300, 600), m(500, 800), m(700, 1500)]);
  assert.deepEqual(paretoFront([]), []);
});

test('the Pareto chart: every measured step against the first SLO\'s figure, its front, and the SLO as a marker', () => {
  const file = sampleTuneFile();
  const doc = concurrencySweep(20);
  const measures = doc.steps.flatMap((step) => {
    const measure = stepMeasure(0, step.summary as StepSummary, file.config.objective);
    return measure ? [measure] : [];
  });
  assert.equal(measures.length, 3);
  for (const [i, step] of doc.steps.entries()) {
    assert.equal(measures[i]?.figure, step.summary?.ttftMs?.p99);
    assert.equal(measures[i]?.throughput, step.summary?.outputTokensPerSecond);
  }
  const { pareto } = buildTuneView(file, 'sim.llmtune.json', measures);
  assert.ok(pareto);
  assert.equal(pareto.title, 'output tok/s against p99 TTFT');
  assert.equal(pareto.x.title, 'p99 TTFT (ms)');
  assert.deepEqual(pareto.markers, [{ x: 2000, label: 'SLO 2,000 ms' }]);
  const front = paretoFront(measures);
  assert.deepEqual(pareto.series[1]?.points, front.map((p) => [p.figure, p.throughput]));
  assert.equal(pareto.series[0]?.points.length, measures.length - front.length, 'the other steps, each once');
  assert.equal(buildTuneView(file, 'sim.llmtune.json', []).pareto, null, 'nothing measured: no chart');
});

test('a running tune\'s file says so, and how to continue it', () => {
  const view = buildTuneView(sampleTuneFile({ status: 'running', finishedAt: null }), 'sim.llmtune.json', []);
  assert.match(view.notes[0] ?? '', /still running, or its tuner stopped.*--resume/);
});

function liveState() {
  return newTuneLiveState({ id: 't1', outPath: '/w/benchmarks/sim.llmtune.json', configPath: '/w/sim.llmtune-config.json', startedAt: '2026-11-25T08:00:00.000Z' }, issueTuneConfig());
}

test('the live state from the tuner\'s events: confirming, a trial launching then benchmarking, its server log, its end, the tune\'s end', () => {
  const state = liveState();
  assert.equal(tuneLiveHeadline(state).text, 'Waiting for you to confirm the first server launch.');
  const trial = makeTrial(1, { seqs: 16, batched: 2048, chunked: false, objective: 900, ttftP99: 800 });
  applyTuneEvent(state, { type: 'trial-start', trial: 1, params: trial.params, command: trial.command, port: 41000, logFile: null });
  assert.equal(state.phase, 'running');
  assert.equal(tuneLiveHeadline(state).text, 'Trial 1: launching its server (max_num_seqs=16, max_num_batched_tokens=2048, enable_chunked_prefill=off)');
  applyTuneEvent(state, { type: 'server-log', trial: 1, stream: 'stderr', line: 'INFO: Started server process' });
  applyTuneEvent(state, { type: 'server-log', trial: 7, stream: 'stderr', line: 'a line of another trial' });
  applyTuneEvent(state, { type: 'trial-stage', trial: 1, stage: 'benchmarking' });
  applyTuneEvent(state, {
    type: 'benchmark',
    trial: 1,
    event: { type: 'progress', snapshot: { stepIndex: 0, elapsedSec: 1, completed: 12, failed: 0, inFlight: 32, plannedRequests: 64, plannedDurationSec: null, requestsPerSecond: 10, outputTokensPerSecond: 830, recentTtftMs: [], recentLatencyMs: [] } },
  });
  assert.deepEqual(state.serverLog, ['INFO: Started server process']);
  let view = tuneLiveView(state);
  assert.equal(view.rows.length, 1);
  assert.equal(view.rows[0]?.status, 'running');
  assert.deepEqual(view.rows[0]?.cells.slice(0, 5), ['1', '16', '2048', 'off', 'benchmarking']);
  // The benchmark's progress has its own line; it sat in the table's reason column, which a running trial leaves out.
  assert.equal(runningTrialProgress(state), 'Trial 1: step 1: 12 / 64 requests, 830 output tok/s');
  assert.ok(!view.columns.some((c) => c.label === 'reason'), view.columns.map((c) => c.label).join(', '));
  assert.deepEqual(view.notes, []);

  applyTuneEvent(state, { type: 'trial-end', trial, best: { trial: 1, params: trial.params, objective: 900, command: trial.command } });
  assert.equal(state.running, null);
  view = tuneLiveView(state);
  assert.deepEqual(view.rows.map((r) => r.status), ['complete']);
  assert.equal(view.best?.objective, '900 output tok/s');
  assert.equal(tuneLiveHeadline(state).text, 'Choosing the next trial...');

  applyTuneEvent(state, { type: 'done', status: 'cancelled', reason: 'cancelled by the user', best: state.best, trials: 1 });
  assert.equal(state.phase, 'finished');
  assert.deepEqual(tuneLiveHeadline(state), { text: 'Finished (cancelled): cancelled by the user', tone: 'warning' });
  assert.equal(TuneLiveStateSchema.safeParse(state).success, true, 'the state goes to the webview as it is');
});

test('the server log keeps the running trial\'s last lines only, and starts over with each trial', () => {
  const state = liveState();
  const trial = makeTrial(1, { seqs: 16, batched: 2048, chunked: false });
  applyTuneEvent(state, { type: 'trial-start', trial: 1, params: trial.params, command: trial.command, port: 1, logFile: null });
  for (let i = 0; i < SERVER_LOG_LINES + 50; i++) applyTuneEvent(state, { type: 'server-log', trial: 1, stream: 'stdout', line: `line ${i}` });
  assert.equal(state.serverLog.length, SERVER_LOG_LINES);
  assert.equal(state.serverLog[0], 'line 50');
  assert.equal(state.serverLog.at(-1), `line ${SERVER_LOG_LINES + 49}`);
  applyTuneEvent(state, { type: 'trial-start', trial: 2, params: trial.params, command: trial.command, port: 2, logFile: null });
  assert.deepEqual(state.serverLog, []);
  assert.equal(state.serverLogTrial, 2);
});

test('a tune\'s end is told only when it did not complete (a complete tune opens its file)', () => {
  assert.equal(tuneEndMessage('complete', 'The budget of 5 launched trials is spent.', 5), null);
  assert.equal(tuneEndMessage('cancelled', 'cancelled by the user', 1), 'LLM Bench: the tune stopped after 1 trial; the tune file keeps every one that finished. cancelled by the user.');
  assert.equal(tuneEndMessage('failed', 'The tune file could not be written.', 3), 'LLM Bench: the tune failed after 3 trials. The tune file could not be written.');
});

test('an SLO key is read by one parser: the tuner and the views read the same figure of every key, and refuse the same keys', () => {
  // The views read a key without its statistic ("ttftMs") as p99 TTFT, where the tuner read no figure at all.
  const summary = concurrencySweep(20).steps[0]!.summary as StepSummary;
  for (const metric of SLO_METRICS) {
    for (const stat of SLO_STATS) {
      const key = `${metric}.${stat}`;
      const objective: Objective = { mode: 'maximize', maximize: 'outputTokensPerSecond', slo: { [key]: 1 } };
      const figure = sloFigures(summary, objective.slo)[key];
      assert.equal(typeof figure, 'number', `${key} is in the summary`);
      assert.equal(stepMeasure(0, summary, objective)?.figure, figure, key);
    }
  }
  for (const key of ['ttftMs', 'ttftMs.p42', 'speed.p99']) {
    assert.throws(() => sloFigureName(key), new RegExp(`'${key}' is not an SLO key`));
    assert.throws(() => sloFigures(summary, { [key]: 1 }), new RegExp(`'${key}' is not an SLO key`));
  }
});

test('the time left in the whole tune: the trials still to run at the time a trial has taken so far, never past the wall-time budget', () => {
  const state = liveState();
  const startMs = Date.parse('2026-11-25T08:00:00.000Z');
  const trial = (n: number) => makeTrial(n, { seqs: 16, batched: 2048, chunked: false, objective: 900, ttftP99: 800 });
  applyTuneEvent(state, { type: 'trial-start', trial: 1, params: trial(1).params, command: trial(1).command, port: 41000, logFile: null }, startMs);
  assert.equal(tuneTimeLeft(state, startMs + 10_000), '0 of 12 trials done. Time left: known once the first trial ends.');
  // Two trials of 30 s each (makeTrial), the third 10 s in: 20 s more, then 9 trials of 30 s.
  for (const n of [1, 2]) applyTuneEvent(state, { type: 'trial-end', trial: trial(n), best: null }, startMs);
  applyTuneEvent(state, { type: 'trial-start', trial: 3, params: trial(3).params, command: trial(3).command, port: 41000, logFile: null }, startMs + 60_000);
  assert.equal(tuneTimeLeft(state, startMs + 70_000), '2 of 12 trials done, 30 s a trial so far: about 4 min 50 s left in the tune.');
  const walled = { ...state, config: { ...state.config, budget: { trials: 12, wallTimeSec: 120 } } };
  assert.equal(tuneTimeLeft(walled, startMs + 70_000), '2 of 12 trials done, 30 s a trial so far: about 50 s left in the tune (its wall-time budget ends it).');
  applyTuneEvent(state, { type: 'done', status: 'complete', reason: null, best: null, trials: 2 });
  assert.equal(tuneTimeLeft(state, startMs + 70_000), '');
});

test('the objective per trial of a one-trial tune sits on an axis of whole trials, not 0 to 1.2 by 0.2; long parameter names are whole titles', () => {
  const file = sampleTuneFile();
  const one = buildTuneView({ ...file, trials: file.trials.slice(0, 1) }, 'x.llmtune.json', []);
  const spec = tuneChartSpec(one.progress);
  assert.deepEqual([spec.x.integer, spec.x.min, spec.x.max], [true, 0.5, 1.5]);
  const ticks = (chartConfig(spec, { kind: 'light', background: '#fff', foreground: '#333', mutedForeground: '#777', gridLines: '#ddd', border: '#ccc', error: '#e51400', warning: '#bf8803', success: '#388a34', fontFamily: 'sans-serif', fontSize: 13, palette: ['#005fb8'] }).options?.scales?.['x']?.ticks ?? {}) as unknown as { stepSize: number; callback: (v: number) => string };
  assert.equal(ticks.stepSize, 1);
  assert.deepEqual([0.5, 1, 1.2, 1.5].map((v) => ticks.callback(v)), ['', '1', '', '']);
  assert.ok(one.effects.some((c) => c.title === 'max_num_batched_tokens'), 'the title is the whole name (the page lets it wrap after an underscore)');
});
