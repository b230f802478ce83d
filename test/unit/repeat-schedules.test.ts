// Each repeat of a run draws its own arrival schedule (issue 21, item 11): repeats that shared one
// would leave the arrival process's own variance out of the intervals across repeats. Deterministic
// for a seed: the same run planned again draws the same schedules, repeat for repeat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { StepSummary } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { planRun, planSweepRates, stepsOfRepeat, type StepPlan } from '../../src/load/plan';
import { startRunnerServer } from '../helpers/runner-server';

const config = (input: Partial<RunConfigInput>) =>
  RunConfigSchema.parse({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 12 }, repeat: { count: 3 }, seed: 5, ...input });

const scheduleOf = (step: StepPlan | undefined): number[] => (step?.pacing.kind === 'open' ? [...step.pacing.schedule] : []);

test('every repeat draws its own seeded schedule: rates, ramps and a sweep\'s rates, the same again when planned again', () => {
  const profiles: RunConfigInput['profile'][] = [
    { kind: 'rate', rates: [4, 9], arrival: 'poisson' },
    { kind: 'rate', rates: [4], arrival: 'gamma', burstiness: 0.5 },
    { kind: 'rate', arrival: 'poisson', ramp: { strategy: 'linear', startRate: 2, endRate: 20 } },
  ];
  for (const profile of profiles) {
    const c = config({ profile });
    const plan = planRun(c);
    const repeats = [0, 1, 2].map((r) => stepsOfRepeat(c, plan, r));
    assert.deepEqual(repeats[0], plan.steps, 'the first repeat is the plan as it always was');
    for (let step = 0; step < plan.steps.length; step++) {
      const schedules = repeats.map((steps) => scheduleOf(steps[step]));
      assert.equal(new Set(schedules.map((s) => s.join())).size, 3, `${JSON.stringify(profile)}: three repeats, three schedules`);
      assert.ok(schedules.every((s) => s.length === 12 && s[0] === 0), 'the same count and start');
      assert.deepEqual(stepsOfRepeat(c, planRun(c), 2), repeats[2], 'deterministic for a seed');
    }
  }
  // A constant schedule has nothing to draw: every repeat sends at the same times.
  const constant = config({ profile: { kind: 'rate', rates: [4], arrival: 'constant' } });
  assert.deepEqual(scheduleOf(stepsOfRepeat(constant, planRun(constant), 1)[0]), scheduleOf(planRun(constant).steps[0]));
  // A sweep places its rates from the first repeat's summaries; each repeat draws its own gaps at those rates.
  const sweep = config({ profile: { kind: 'sweep', rateCount: 2, arrival: 'poisson' } });
  const measured = [{ requestsPerSecond: 2 }, { requestsPerSecond: 8 }] as StepSummary[];
  const [first, second] = [0, 1].map((r) => planSweepRates(sweep, measured, r).steps);
  assert.deepEqual(first?.map((s) => s.name), second?.map((s) => s.name));
  assert.notDeepEqual(first?.map(scheduleOf), second?.map(scheduleOf));
  assert.deepEqual(planSweepRates(sweep, measured).steps, first);
});

test('a repeated rate step against a loopback server: each repeat\'s records carry its own schedule', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 1 }));
  t.after(() => server.close());
  const c = RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 1 },
    profile: { kind: 'rate', rates: [40], arrival: 'poisson' },
    limits: { requests: 8 },
    repeat: { count: 2 },
    serverMetrics: { url: 'off' },
  });
  const doc = await runBenchmark(c, {});
  assert.equal(doc.status, 'complete');
  const scheduled = doc.steps.map((step) => [...step.requests].sort((a, b) => a.index - b.index).map((r) => r.scheduledMs));
  const plan = planRun(c);
  assert.deepEqual(
    scheduled,
    [0, 1].map((r) => scheduleOf(stepsOfRepeat(c, plan, r)[0]).map((sec) => Math.round(sec * 1e6) / 1000)),
  );
  assert.notDeepEqual(scheduled[0], scheduled[1]);
});
