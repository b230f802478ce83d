import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { absoluteSchedule, arrivalSchedule, waitUntil } from '../../src/load/schedule';

function gapsOf(times: Float64Array): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push((times[i] ?? 0) - (times[i - 1] ?? 0));
  return gaps;
}

function meanAndVariance(values: number[]): { mean: number; variance: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, variance };
}

test('a constant schedule sends request i at exactly i / rate', () => {
  const times = arrivalSchedule({ count: 5, rate: 4, arrival: 'constant', seed: 1 });
  assert.deepEqual([...times], [0, 0.25, 0.5, 0.75, 1]);
});

test('a Poisson schedule has exponential gaps: mean 1/rate and variance 1/rate^2', () => {
  const rate = 20;
  const gaps = gapsOf(arrivalSchedule({ count: 40_001, rate, arrival: 'poisson', seed: 7 }));
  const { mean, variance } = meanAndVariance(gaps);
  assert.ok(Math.abs(mean - 1 / rate) < 1e-12, `mean gap ${mean}`);
  // Relative standard error of the variance of 40k exponential gaps is about 1.5%.
  assert.ok(Math.abs(variance / (1 / rate ** 2) - 1) < 0.06, `variance ratio ${variance * rate ** 2}`);
  // Exponential gaps: about 1 - 1/e of them are shorter than the mean.
  const shorter = gaps.filter((g) => g < 1 / rate).length / gaps.length;
  assert.ok(Math.abs(shorter - (1 - Math.exp(-1))) < 0.01, `share below mean ${shorter}`);
});

test('a gamma schedule has variance 1 / (burstiness * rate^2) for bursty and smooth shapes', () => {
  const rate = 5;
  for (const burstiness of [0.25, 4]) {
    const gaps = gapsOf(arrivalSchedule({ count: 60_001, rate, arrival: 'gamma', burstiness, seed: 11 }));
    const { mean, variance } = meanAndVariance(gaps);
    const expected = 1 / (burstiness * rate ** 2);
    assert.ok(Math.abs(mean - 1 / rate) < 1e-12, `mean gap ${mean} at burstiness ${burstiness}`);
    assert.ok(Math.abs(variance / expected - 1) < 0.08, `variance ${variance}, expected ${expected} at burstiness ${burstiness}`);
  }
});

test('random schedules are rescaled to keep the rate exactly, and reproducible for a seed', () => {
  for (const arrival of ['poisson', 'gamma'] as const) {
    const count = 37;
    const rate = 3.5;
    const times = arrivalSchedule({ count, rate, arrival, burstiness: 0.5, seed: 3 });
    assert.equal(times[0], 0);
    assert.equal(times[count - 1], (count - 1) / rate);
    for (let i = 1; i < count; i++) assert.ok((times[i] ?? 0) >= (times[i - 1] ?? 0), 'ascending');
    assert.deepEqual(arrivalSchedule({ count, rate, arrival, burstiness: 0.5, seed: 3 }), times);
    assert.notDeepEqual(arrivalSchedule({ count, rate, arrival, burstiness: 0.5, seed: 4 }), times);
  }
});

test('an absolute schedule is taken as is; unordered or negative times are refused with the index', () => {
  assert.deepEqual([...absoluteSchedule([0, 0.5, 0.5, 2])], [0, 0.5, 0.5, 2]);
  assert.throws(() => absoluteSchedule([0, 2, 1]), /ascending: times\[2\] = 1 comes after times\[1\] = 2/);
  assert.throws(() => absoluteSchedule([0, -1]), /times\[1\] = -1/);
  assert.throws(() => arrivalSchedule({ count: 3, rate: 0, arrival: 'constant', seed: 1 }), /positive finite rate/);
});

test('waitUntil resolves at its absolute time, never before, and at once on abort', async () => {
  const start = performance.now();
  const lateness: number[] = [];
  for (let i = 1; i <= 20; i++) {
    const target = start + i * 3.3;
    await waitUntil(target);
    lateness.push(performance.now() - target);
  }
  assert.ok(lateness.every((l) => l >= 0), `woke early: ${lateness}`);
  // Generous: the machine is shared. Lateness does not accumulate across waits.
  assert.ok(Math.max(...lateness) < 50, `lateness ${lateness}`);

  const controller = new AbortController();
  const before = performance.now();
  setTimeout(() => controller.abort(), 10);
  await waitUntil(before + 60_000, controller.signal);
  assert.ok(performance.now() - before < 5_000);
});
