// Rate ramps (vLLM's --ramp-up-strategy): the schedule against its formula, the requests a loopback
// server saw, the target rates the result records, and the live chart's target line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema } from '../../src/format/config';
import { RunEventSchema, type RunEvent } from '../../src/format/events';
import { ResultDocumentSchema } from '../../src/format/result';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { runBenchmark } from '../../src/load/runner';
import { arrivalSchedule, rampRate, rampTargets } from '../../src/load/schedule';
import { liveCharts, targetRateSeries } from '../../src/views/live';
import { formatStepsCsv } from '../../src/report/csv';
import { startRunnerServer } from '../helpers/runner-server';

const runInfo = (expectedSteps: number | null) => ({ id: 'run', model: 'm', baseUrl: 'http://127.0.0.1:1/v1', profile: 'rate', startedAt: '2026-01-01T00:00:00.000Z', labels: [], expectedSteps, resultPath: null });
const close = (actual: number, expected: number, tolerance = 1e-9): boolean => Math.abs(actual - expected) <= tolerance;

test('ramp rates follow vLLM\'s formulas by request index: linear and exponential', () => {
  // Linear 1 -> 9 over 5 requests: 1, 3, 5, 7, 9. Exponential 1 -> 16: 1, 2, 4, 8, 16.
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => rampRate(i, 5, 'linear', 1, 9)), [1, 3, 5, 7, 9]);
  assert.ok([1, 2, 4, 8, 16].every((rate, i) => close(rampRate(i, 5, 'exponential', 1, 16), rate)));
  // One request: progress 0, the start rate.
  assert.equal(rampRate(0, 1, 'linear', 2, 8), 2);
});

test('a constant ramp sends request i after a gap of 1 / rate(i); random ramps keep that pace overall', () => {
  // Gaps 1/3, 1/5, 1/7, 1/9 after 0, by hand: 0, 0.33333, 0.53333, 0.67619, 0.78730.
  const linear = arrivalSchedule({ count: 5, rate: { strategy: 'linear', startRate: 1, endRate: 9 }, arrival: 'constant', seed: 1 });
  [0, 1 / 3, 1 / 3 + 1 / 5, 1 / 3 + 1 / 5 + 1 / 7, 1 / 3 + 1 / 5 + 1 / 7 + 1 / 9].forEach((t, i) => assert.ok(close(linear[i] ?? NaN, t), `t${i} ${linear[i]} vs ${t}`));
  const exponential = arrivalSchedule({ count: 5, rate: { strategy: 'exponential', startRate: 1, endRate: 16 }, arrival: 'constant', seed: 1 });
  assert.deepEqual([...exponential], [0, 0.5, 0.75, 0.875, 0.9375]);

  const count = 2000;
  const poisson = arrivalSchedule({ count, rate: { strategy: 'linear', startRate: 10, endRate: 100 }, arrival: 'poisson', seed: 7 });
  let meanTotal = 0;
  for (let i = 1; i < count; i++) meanTotal += 1 / rampRate(i, count, 'linear', 10, 100);
  assert.ok(close(poisson[count - 1] ?? NaN, meanTotal, 1e-9), 'the last request goes when the mean gaps would send it');
  // Rates measured over the first and last tenth of the requests are near the ramp's there.
  const measured = (from: number, to: number) => (to - from) / ((poisson[to] ?? 0) - (poisson[from] ?? 0));
  const early = measured(0, 200);
  const late = measured(1799, 1999);
  assert.ok(early > 10 && early < 22, `early ${early} req/s (ramp 10 -> 19)`);
  assert.ok(late > 80 && late < 115, `late ${late} req/s (ramp 91 -> 100)`);
  assert.ok(poisson.every((t, i) => i === 0 || t >= (poisson[i - 1] ?? 0)));

  const points = rampTargets(poisson, { strategy: 'linear', startRate: 10, endRate: 100 }, 50);
  assert.ok(points.length <= 51);
  assert.deepEqual(points[0], { atSec: 0, rate: 10 });
  assert.deepEqual(points.at(-1), { atSec: poisson[count - 1], rate: 100 });
});

test('a ramp whose start and end rates are equal is exactly the schedule of that one rate, for every arrival process', () => {
  for (const arrival of ['constant', 'poisson', 'gamma'] as const) {
    for (const strategy of ['linear', 'exponential'] as const) {
      const fixed = arrivalSchedule({ count: 1000, rate: 10, arrival, burstiness: 0.5, seed: 9 });
      const ramp = arrivalSchedule({ count: 1000, rate: { strategy, startRate: 10, endRate: 10 }, arrival, burstiness: 0.5, seed: 9 });
      assert.deepEqual([...ramp], [...fixed], `${arrival}, ${strategy}`);
    }
  }
});

test('a ramp step: a loopback server receives requests on the ramp\'s schedule; the result records the target rates over time', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 1 }));
  t.after(() => server.close());
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 1 },
    profile: { kind: 'rate', ramp: { strategy: 'linear', startRate: 5, endRate: 50 }, arrival: 'constant' },
    limits: { requests: 30 },
  });
  const events: RunEvent[] = [];
  const doc = ResultDocumentSchema.parse(await runBenchmark(config, { onEvent: (e) => events.push(RunEventSchema.parse(e)) }));
  assert.equal(doc.status, 'complete');
  const step = doc.steps[0];
  assert.equal(step?.name, 'constant linear ramp@5.00-50.00 req/sec');
  const schedule = arrivalSchedule({ count: 30, rate: { strategy: 'linear', startRate: 5, endRate: 50 }, arrival: 'constant', seed: 42 });
  // Every record carries its planned send time, to the microsecond.
  assert.deepEqual(
    [...(step?.requests ?? [])].sort((a, b) => a.index - b.index).map((r) => r.scheduledMs),
    Array.from(schedule, (sec) => Math.round(sec * 1e6) / 1000),
  );
  // The server saw them arrive on that schedule (generous for a loaded machine): gaps shrink from 1/5 s to 1/50 s.
  const first = server.arrivals[0] ?? 0;
  server.arrivals.forEach((at, i) => assert.ok(Math.abs(at - first - (schedule[i] ?? 0) * 1000) < 60, `request ${i} at ${(at - first).toFixed(1)} ms, planned ${((schedule[i] ?? 0) * 1000).toFixed(1)} ms`));
  const ramp = step?.profile.ramp;
  assert.deepEqual({ strategy: ramp?.strategy, startRate: ramp?.startRate, endRate: ramp?.endRate }, { strategy: 'linear', startRate: 5, endRate: 50 });
  // The summary's target is the ramp's mean: its 29 gaps over the 1.17 s its schedule spans; the CSV export carries it.
  const meanTarget = Math.round((29 / (schedule[29] ?? NaN)) * 1000) / 1000;
  assert.equal(ramp?.meanRate, meanTarget);
  assert.equal(step?.summary?.targetRate, meanTarget);
  const [header, row] = formatStepsCsv([{ name: 'ramp', doc }]).trim().split('\r\n').map((line) => line.split(','));
  assert.equal(row?.[(header ?? []).indexOf('target_rate_req_per_s')], String(meanTarget));
  assert.equal(ramp?.targetRates.length, 30);
  ramp?.targetRates.forEach((p, i) => {
    assert.ok(close(p.rate, 5 + (45 * i) / 29, 1e-3), `rate ${i}`);
    assert.ok(close(p.atSec, schedule[i] ?? NaN, 1e-3), `time ${i}`);
  });
  // The live panel's state takes the ramp from the step-start event: the target line is the ramp.
  const state = newLiveState(runInfo(null));
  events.forEach((event, i) => applyRunEvent(state, event, i * 0.01));
  const [target] = targetRateSeries(state, state.steps);
  assert.equal(target?.label, 'target requests/s');
  assert.deepEqual(target?.data.map((p) => p.y), ramp?.targetRates.map((p) => p.rate).filter((_, i) => (state.steps[0]?.startedAtSec ?? 0) + (ramp?.targetRates[i]?.atSec ?? 0) <= state.elapsedSec));
  const throughput = liveCharts(state).find((c) => c.id === 'throughput');
  assert.ok(throughput?.spec.series.some((s) => s.label === 'target requests/s' && s.rightAxis && s.dashed));
});

test('the live chart shows a fixed rate step\'s target as a level over its step, and no target for closed-loop steps', () => {
  const state = newLiveState(runInfo(2));
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@4', profile: { kind: 'concurrency', concurrency: 4 } }, 0);
  applyRunEvent(state, { type: 'step-start', stepIndex: 1, name: 'poisson@8.00 req/sec', profile: { kind: 'rate', rate: 8, arrival: 'poisson' } }, 10);
  applyRunEvent(state, { type: 'log', level: 'info', message: 'later' }, 25);
  assert.deepEqual(targetRateSeries(state, state.steps)[0]?.data, [
    { x: 10, y: 8 },
    { x: 25, y: 8 },
  ]);
  assert.deepEqual(targetRateSeries(state, state.steps.slice(0, 1)), []);
});
