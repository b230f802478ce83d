/**
 * A tuner that is not fooled by noise: after the search the best candidates are measured again,
 * interleaved, and the winner is given with its interval; figures within noise are ties wherever a
 * person reads them (the tune editor, the live panel, the command line); a benchmark that repeats
 * its profile is scored by its mean, not its luckiest repeat; max-load-within-slo probes replace
 * the benchmark's profile and are checked when the config is read; and the best command is printed
 * as the user wrote it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TuneConfigSchema, type Objective, type TuneConfigInput, type TuneEvent } from '../../src/format/tune';
import type { RunOverview } from '../../src/load/worker-host';
import { parseTuneConfigText, runTune, TuneConfigError } from '../../src/tune/index';
import { scoreRun } from '../../src/tune/objective';
import { meanInterval } from '../../src/views/repeats';
import { buildTuneView } from '../../src/views/tune';
import { applyTuneEvent, newTuneLiveState, tuneLiveView } from '../../src/views/tune-live';
import { issueTuneConfig, makeTrial, sampleTuneFile } from '../helpers/tune-documents';
import { engineWorkerScript, exited, liveSimulators, llmbenchCommand, readTune, startCli, tempDir, vllmLikeConfig } from '../helpers/tune-runs';

/** Every combination launches (no rule refuses any): the search's trials all complete. */
const ALWAYS_ALLOWED_SPACE: TuneConfigInput['space'] = {
  max_num_seqs: { type: 'int', min: 4, max: 64, log: true },
  max_num_batched_tokens: { type: 'choice', values: [8192] },
  enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill', false: '--no-enable-chunked-prefill' },
};

test('re-measurement is on by default (the best 3, 3 rounds each) and can be set or turned off in the tune config', () => {
  const base = vllmLikeConfig();
  assert.deepEqual(parseTuneConfigText(JSON.stringify(base), 'tune.json').remeasure, { candidates: 3, rounds: 3 });
  assert.deepEqual(parseTuneConfigText(JSON.stringify({ ...base, remeasure: { candidates: 2, rounds: 5 } }), 'tune.json').remeasure, { candidates: 2, rounds: 5 });
  assert.equal(parseTuneConfigText(JSON.stringify({ ...base, remeasure: false }), 'tune.json').remeasure, false);
  assert.throws(() => parseTuneConfigText(JSON.stringify({ ...base, remeasure: { candidates: 2, rounds: 1 } }), 'tune.json'), /remeasure\.rounds/);
});

test('after the search, the best candidates are re-measured interleaved; the winner is the best mean, with its interval; the noise is recorded; the CLI says so and prints the command as written', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(vllmLikeConfig({ space: ALWAYS_ALLOWED_SPACE, budget: { trials: 3 }, remeasure: { candidates: 2, rounds: 2 } })));
  const child = startCli(['tune', '--config', 'tune.json', '--out', 'noise.llmtune.json'], dir, { LLMBENCH_TUNE_TEST: dir });
  assert.equal(await exited(child), 0, child.output());
  const file = readTune(join(dir, 'noise.llmtune.json'));
  assert.equal(file.status, 'complete', file.statusReason ?? '');
  assert.equal(file.trials.length, 3);
  const { remeasure } = file;
  assert.ok(remeasure, 'the tune file has no re-measurement');
  // The two trials the search scored highest, best first.
  const ranked = [...file.trials].sort((a, b) => (b.objective ?? -1) - (a.objective ?? -1)).slice(0, 2).map((t) => t.number);
  assert.deepEqual(remeasure.candidates, ranked);
  // Interleaved: round 1 in rank order, round 2 starting from the next candidate, so that neither always runs first.
  assert.deepEqual(remeasure.runs.map((r) => [r.trial, r.round]), [[ranked[0], 1], [ranked[1], 1], [ranked[1], 2], [ranked[0], 2]]);
  for (const run of remeasure.runs) {
    assert.ok(run.objective !== null && run.objective > 0, JSON.stringify(run));
    assert.ok(run.resultFile && existsSync(join(dir, run.resultFile)), `no result file for ${JSON.stringify(run)}`);
    assert.match(run.resultFile, new RegExp(`^noise\\.trial-${run.trial}\\.remeasure-${run.round}\\.llmbench\\.json$`));
    assert.ok(run.logFile && existsSync(join(dir, run.logFile)));
  }
  // Each candidate's figure: the mean of its re-measurements (not the search's own figure, picked for being high) and its 95% Student's t interval.
  for (const summary of remeasure.summaries) {
    const values = remeasure.runs.filter((r) => r.trial === summary.trial).map((r) => r.objective as number);
    const expected = meanInterval(values)!;
    assert.equal(summary.n, 2);
    assert.ok(Math.abs(summary.mean! - expected.mean) < 1e-9);
    assert.ok(Math.abs(summary.halfWidth! - expected.halfWidth!) < 1e-9);
  }
  const winner = [...remeasure.summaries].sort((a, b) => b.mean! - a.mean!)[0]!;
  assert.equal(file.best?.trial, winner.trial);
  assert.ok(Math.abs(file.best!.objective - winner.mean!) < 1e-9, 'the best objective is the re-measured mean');
  // The noise: how much one measurement of the same flags moved, as a share of its mean.
  assert.ok(remeasure.noisePercent !== null && remeasure.noisePercent >= 0 && remeasure.noisePercent < 100, String(remeasure.noisePercent));
  const output = child.output();
  assert.match(output, new RegExp(`^Best: trial ${winner.trial}, objective [\\d,.]+ ± [\\d,.]+ output tok/s \\(mean of 2 re-measurements, 95% interval\\)`, 'm'));
  assert.match(output, /^ {2}Noise: one measurement moved by [\d.]+% /m);
  assert.match(output, /^ {2}(Within noise of it: trial \d+ \(|No other candidate is within noise of it)/m);
  // The command as the user wrote it: `llmbench`, no Node path, no bundle, no trial port.
  assert.match(output, /^ {2}llmbench sim --preset tiny --speedup 50 --max-num-seqs \d+ --max-num-batched-tokens 8192 --max-model-len 4096 --(no-)?enable-chunked-prefill$/m);
  assert.doesNotMatch(output.split('\nBest:')[1] ?? '', /dist\/cli\.js|--port/);
  assert.deepEqual(liveSimulators(dir), []);
});

test('remeasure false: no re-measurement; the best is the search\'s figure, said to be one measurement', async () => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(vllmLikeConfig({ space: ALWAYS_ALLOWED_SPACE, budget: { trials: 2 }, remeasure: false }));
  const events: TuneEvent[] = [];
  const file = await runTune({ config, configDir: dir, outPath: join(dir, 'off.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir }, onEvent: (e) => events.push(e) });
  assert.equal(file.status, 'complete');
  assert.equal(file.remeasure, null);
  assert.equal(events.filter((e) => e.type === 'trial-stage' && e.stage === 'launching').length, 2, 'no launch beyond the budget');
  const view = buildTuneView(file, 'off.llmtune.json', []);
  assert.match(view.headline, /one measurement each, not re-measured/);
});

test('ties: trials within noise of the best are said to tie, in the editor, the live panel and the headline; the issue\'s 3,149 against 3,127 and 3,121', () => {
  const trials = [
    makeTrial(1, { seqs: 16, batched: 2048, chunked: false, objective: 2100, ttftP99: 800 }),
    makeTrial(2, { seqs: 128, batched: 4096, chunked: true, objective: 3127, ttftP99: 900 }),
    makeTrial(3, { seqs: 32, batched: 2048, chunked: true, objective: 2600, ttftP99: 700 }),
    makeTrial(4, { seqs: 64, batched: 4096, chunked: true, objective: 3149, ttftP99: 1000 }),
    makeTrial(5, { seqs: 96, batched: 8192, chunked: true, objective: 3121, ttftP99: 1100 }),
  ];
  const file = sampleTuneFile({ trials, best: { trial: 4, params: trials[3]!.params, objective: 3149, command: trials[3]!.command } });
  const view = buildTuneView(file, 'ties.llmtune.json', []);
  assert.match(view.headline, /Best: 3,149 output tok\/s \(trial 4\), tied within noise with trials 2 \(3,127\) and 5 \(3,121\)/);
  assert.match(view.headline, /one measurement each, not re-measured/);
  assert.deepEqual(view.best?.ties, [2, 5]);
  assert.match(view.best?.tieText ?? '', /under 5% apart with one value each/);
  // The tied rows are marked, not only the best.
  assert.deepEqual(view.rows.map((r) => r.tie), [false, true, false, false, true]);

  const state = newTuneLiveState({ id: 't', outPath: '/w/ties.llmtune.json', configPath: '/w/c.json', startedAt: '2026-11-25T08:00:00.000Z' }, issueTuneConfig());
  for (const trial of trials) applyTuneEvent(state, { type: 'trial-end', trial, best: file.best });
  assert.match(tuneLiveView(state).headline, /tied within noise with trials 2 \(3,127\) and 5 \(3,121\)/);
});

test('ties after re-measurement: intervals that overlap are a tie; the winner is shown with its interval and the noise', () => {
  const trials = [
    makeTrial(1, { seqs: 16, batched: 2048, chunked: false, objective: 2100, ttftP99: 800 }),
    makeTrial(2, { seqs: 128, batched: 4096, chunked: true, objective: 3127, ttftP99: 900 }),
    makeTrial(3, { seqs: 64, batched: 4096, chunked: true, objective: 3149, ttftP99: 1000 }),
  ];
  const runs = [
    [3, 1, 3100], [2, 1, 3050], [1, 1, 2000],
    [2, 2, 3090], [1, 2, 2050], [3, 2, 3000],
    [1, 3, 2020], [3, 3, 3080], [2, 3, 3120],
  ].map(([trial, round, objective]) => ({ trial: trial!, round: round!, objective: objective!, status: 'complete' as const, reason: null, slo: null, load: null, resultFile: `t.trial-${trial}.remeasure-${round}.llmbench.json`, logFile: null, port: 1, gpuMemoryUsedMiB: null, gpuMemoryNote: null, startedAt: '2026-11-25T08:10:00.000Z', endedAt: '2026-11-25T08:10:10.000Z' }));
  const summary = (trial: number) => {
    const values = runs.filter((r) => r.trial === trial).map((r) => r.objective);
    const interval = meanInterval(values)!;
    return { trial, n: 3, mean: interval.mean, halfWidth: interval.halfWidth, missed: 0 };
  };
  const summaries = [summary(3), summary(2), summary(1)];
  const winner = summaries.sort((a, b) => b.mean - a.mean)[0]!;
  const file = sampleTuneFile({
    trials,
    best: { trial: winner.trial, params: trials[winner.trial - 1]!.params, objective: winner.mean, command: trials[winner.trial - 1]!.command },
    remeasure: { candidates: [3, 2, 1], rounds: 3, status: 'complete', runs, summaries, noisePercent: 1.5 },
  });
  const view = buildTuneView(file, 't.llmtune.json', []);
  // 2 (3,087 ± 87) and 3 (3,060 ± 131) overlap; 1 (2,023 ± 63) does not.
  assert.equal(winner.trial, 2);
  assert.match(view.best?.objective ?? '', /^3,087 ± \d+ output tok\/s$/);
  assert.match(view.headline, /Best: 3,087 ± \d+ output tok\/s \(trial 2, mean of 3 re-measurements, 95% interval\), tied within noise with trial 3 \(3,060 ± \d+\)/);
  assert.match(view.headline, /Noise: one measurement moved by 1\.5%/);
  assert.deepEqual(view.best?.ties, [3]);
  const column = view.columns.findIndex((c) => c.label === 're-measured');
  assert.ok(column >= 0, view.columns.map((c) => c.label).join(', '));
  // A figure may break before its ±, not between it and its half-width.
  assert.deepEqual(view.rows.map((r) => r.cells[column]), ['2,023 ±\u00a063', '3,087 ±\u00a087', '3,060 ±\u00a0131']);
});

test('with repeat, a trial scores the mean across repeats of its best step, not its luckiest repeat', () => {
  const objective: Extract<Objective, { maximize: unknown }> = { mode: 'maximize', maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': 500 } };
  const step = (repeat: number, tokens: number, ttftP99: number) => ({
    name: 'concurrency@8',
    repeat,
    profile: { concurrency: 8 },
    summary: { requests: { completed: 16 }, outputTokensPerSecond: tokens, ttftMs: { p99: ttftP99 } },
  });
  const run = { steps: [step(1, 100, 300), step(2, 200, 400), step(3, 150, 200)] } as unknown as RunOverview;
  const score = scoreRun(run, objective);
  assert.equal(score.objective, 150);
  assert.equal(score.slo.figures['ttftMs.p99'], 300);
  assert.deepEqual(score.load, { kind: 'concurrency', value: 8 });
  // A step whose repeats meet the SLO on average scores; the mean decides, as it does for the objective.
  const over = { steps: [step(1, 300, 450), step(2, 320, 650), step(3, 310, 520)] } as unknown as RunOverview;
  assert.equal(scoreRun(over, objective).objective, null, 'mean p99 TTFT 540 ms is over the 500 ms SLO');
});

test('max-load-within-slo on a ramp benchmark (the ramp preset): each probe replaces the profile, and the trial completes', async () => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      space: { max_num_seqs: { type: 'choice', values: [16] }, max_num_batched_tokens: { type: 'choice', values: [8192] }, enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill' } },
      benchmark: { preset: 'ramp', limits: { requests: 12, warmup: 0 }, workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 8 } },
      objective: { mode: 'max-load-within-slo', slo: { 'ttftMs.p99': 5000 }, load: { kind: 'rate', min: 20, max: 80, precision: 0.5 } },
      budget: { trials: 1 },
      remeasure: false,
    }),
  );
  const file = await runTune({ config, configDir: dir, outPath: join(dir, 'ramp.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } });
  const [trial] = file.trials;
  assert.equal(trial?.status, 'complete', trial?.reason ?? '');
  assert.equal(trial.objective, 80);
  assert.deepEqual(liveSimulators(dir), []);
});

test('max-load-within-slo: a probe the benchmark cannot take is refused when the config is read, before any launch', async () => {
  const dir = tempDir();
  // 100,000 req/s for an hour is 360 million requests a step: more than a step may plan.
  const input = vllmLikeConfig({
    benchmark: { limits: { durationSec: 3600 }, workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 8 } },
    objective: { mode: 'max-load-within-slo', slo: { 'ttftMs.p99': 5000 }, load: { kind: 'rate', min: 1, max: 100_000 } },
    budget: { trials: 1 },
  });
  const config = TuneConfigSchema.parse(input);
  const launched: number[] = [];
  const stop = AbortSignal.timeout(5000);
  await assert.rejects(
    runTune({ config, configDir: dir, outPath: join(dir, 'probe.llmtune.json'), resume: false, signal: stop, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir }, onEvent: (e) => e.type === 'trial-start' && launched.push(e.trial) }),
    (error: Error) => error instanceof TuneConfigError && /load\.max.*100,000 req\/s.*rate times durationSec must be at most/s.test(error.message),
  );
  assert.deepEqual(launched, []);
  assert.deepEqual(liveSimulators(dir), []);
});
