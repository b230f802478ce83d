// The plan of a run (src/load/plan.ts): deterministic from the config and its seed, split over N
// executors so that together they send exactly the requests one executor sends, lanes and caps
// shared with the remainder to the first executors, a sweep's rate steps placed from gathered
// summaries, and all of it plain data that survives a structured clone (a worker's postMessage).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfig, type RunConfigInput } from '../../src/format/config';
import type { StepSummary } from '../../src/format/result';
import {
  cursorAfter,
  DEFAULT_THROUGHPUT_CONCURRENCY,
  executorOf,
  partConnections,
  partition,
  partLanes,
  partSlots,
  plannedRequests,
  plannedSessions,
  planRun,
  planSweepRates,
  stepConnections,
  sweepRates,
  type ExecutorPart,
  type PlannedRequest,
  type RunCursor,
  type StepPlan,
} from '../../src/load/plan';
import { arrivalSchedule } from '../../src/load/schedule';
import { summarizeStep } from '../../src/results/stats';

const config = (overrides: Partial<RunConfigInput>): RunConfig =>
  RunConfigSchema.parse({
    endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
    limits: { requests: 23, warmup: 2 },
    seed: 7,
    ...overrides,
  });

/** One config per kind of step: closed loops (lanes not dividing the executors), open loops with and without a cap, a ramp, a user schedule, sessions. */
const CONFIGS: Record<string, RunConfig> = {
  concurrency: config({ profile: { kind: 'concurrency', levels: [1, 7] } }),
  throughput: config({ profile: { kind: 'throughput', maxConcurrency: 6 } }),
  synchronous: config({ profile: { kind: 'synchronous' } }),
  poisson: config({ profile: { kind: 'rate', rates: [5, 40], arrival: 'poisson' } }),
  'gamma capped': config({ profile: { kind: 'rate', rates: [20], arrival: 'gamma', burstiness: 0.5, maxConcurrency: 3 } }),
  ramp: config({ profile: { kind: 'rate', arrival: 'poisson', ramp: { strategy: 'linear', startRate: 2, endRate: 20 } } }),
  schedule: config({ profile: { kind: 'schedule', times: [0, 0.1, 0.1, 0.25, 0.5, 0.9, 1.5, 2], maxConcurrency: 2 } }),
  sweep: config({ profile: { kind: 'sweep', rateCount: 3 } }),
  'closed sessions': config({ profile: { kind: 'concurrency', levels: [5] }, sessions: { turns: 3 } }),
  'open sessions': config({ profile: { kind: 'rate', rates: [10], arrival: 'poisson' }, sessions: { turns: 2 } }),
  'duration only': config({ profile: { kind: 'concurrency', levels: [4] }, limits: { durationSec: 2 } }),
};

/** Request indexes looked at in a step only a duration limits. */
const LISTING_CAP = 50;
const CURSOR: RunCursor = { prompt: 11, session: 3 };

const requestsOf = (part: ExecutorPart): PlannedRequest[] => plannedRequests(part, LISTING_CAP);
const one = (step: StepPlan): ExecutorPart => partition(step, 1, CURSOR)[0] as ExecutorPart;

test('the same config and seed give the same plan, request by request; another seed another open-loop schedule', () => {
  for (const [name, c] of Object.entries(CONFIGS)) {
    const [first, again] = [planRun(c), planRun(structuredClone(c))];
    assert.deepStrictEqual(again, first, name);
    assert.deepStrictEqual(again.steps.map((s) => requestsOf(one(s))), first.steps.map((s) => requestsOf(one(s))), name);
  }
  const steps = planRun(CONFIGS.poisson as RunConfig).steps;
  const requests = requestsOf(one(steps[1] as StepPlan));
  assert.equal(requests.length, 25, 'warm-up and measured requests');
  assert.deepEqual(requests.map((r) => r.index), Array.from({ length: 25 }, (_, k) => k));
  assert.deepEqual(requests.map((r) => r.promptIndex), Array.from({ length: 25 }, (_, k) => CURSOR.prompt + k), 'request k takes prompt cursor + k');
  assert.deepEqual(requests.map((r) => r.warmup), Array.from({ length: 25 }, (_, k) => k < 2));
  assert.deepEqual(
    requests.map((r) => r.dueSec),
    [...arrivalSchedule({ count: 25, rate: 40, arrival: 'poisson', seed: 7 + 1 })],
    'the second rate step draws its gaps with seed + 1',
  );
  const otherSeed = planRun({ ...(CONFIGS.poisson as RunConfig), seed: 8 }).steps[1] as StepPlan;
  assert.notDeepEqual(requestsOf(one(otherSeed)).map((r) => r.dueSec), requests.map((r) => r.dueSec));

  const closed = planRun(CONFIGS.concurrency as RunConfig).steps[1] as StepPlan;
  assert.deepEqual(closed.pacing, { kind: 'closed', lanes: 7, dueAtStart: false });
  assert.ok(requestsOf(one(closed)).every((r) => r.dueSec === null), 'a concurrency step sends each request when a lane frees');
  const throughput = planRun(CONFIGS.throughput as RunConfig).steps[0] as StepPlan;
  assert.ok(requestsOf(one(throughput)).every((r) => r.dueSec === 0), 'a throughput step with a request count has its whole queue due at the start');
  const durationOnly = planRun(CONFIGS['duration only'] as RunConfig).steps[0] as StepPlan;
  assert.equal(durationOnly.requests, null);
  assert.throws(() => plannedRequests(one(durationOnly)), /no request limit/);
});

test('split over 1 to 5 executors, every request goes to exactly one, with the prompt and due time it has in one', () => {
  for (const [name, c] of Object.entries(CONFIGS)) {
    for (const step of planRun(c).steps) {
      const whole = requestsOf(one(step));
      for (let executors = 1; executors <= 5; executors++) {
        const parts = partition(step, executors, CURSOR);
        const listed = parts.map(requestsOf);
        listed.forEach((requests, executor) =>
          assert.ok(requests.every((r) => executorOf(step, executors, r.index) === executor), `${name} ${step.name}: executorOf agrees with part ${executor} of ${executors}`),
        );
        const merged = listed.flat().sort((a, b) => a.index - b.index);
        assert.deepStrictEqual(merged, whole, `${name} ${step.name} over ${executors}`);
        if (step.pacing.kind === 'open' && step.pacing.maxConcurrency === null && executors <= whole.length) {
          listed.forEach((requests, executor) =>
            assert.ok(requests.every((r) => r.index % executors === executor), `${name}: an uncapped open loop gives request k to executor k mod ${executors}`),
          );
        }
      }
    }
  }
});

test('sessions stay whole: each session of a step is started by exactly one executor, the same session number as in one', () => {
  for (const name of ['closed sessions', 'open sessions']) {
    const step = planRun(CONFIGS[name] as RunConfig).steps[0] as StepPlan;
    assert.equal(step.sessions, true);
    const whole = plannedSessions(one(step), LISTING_CAP);
    assert.deepEqual(whole.map((s) => s.session), whole.map((s) => CURSOR.session + s.ordinal), `${name}: the j-th session is cursor + j`);
    for (let executors = 1; executors <= 5; executors++) {
      const listed = partition(step, executors, CURSOR).map((part) => plannedSessions(part, LISTING_CAP));
      const merged = listed.flat().sort((a, b) => a.ordinal - b.ordinal);
      assert.deepStrictEqual(merged, whole, `${name} over ${executors}`);
      listed.forEach((sessions, executor) => assert.ok(sessions.every((s) => executorOf(step, executors, s.ordinal) === executor)));
      // A session's turns take request indexes of the executor that started it: every executor with sessions has turns to send, and only those.
      listed.forEach((sessions, executor) => assert.equal(sessions.length > 0, requestsOf(partition(step, executors, CURSOR)[executor] as ExecutorPart).length > 0, `${name} executor ${executor} of ${executors}`));
    }
    const requests = requestsOf(one(step));
    assert.ok(requests.every((r) => r.promptIndex === null), `${name}: a turn's prompt is its session's`);
  }
});

test('a closed loop splits its lanes over the executors, the remainder to the first, and its requests by lane', () => {
  const closedStep = (lanes: number, requests = 60): StepPlan => planRun(config({ profile: { kind: 'concurrency', levels: [lanes] }, limits: { requests, warmup: 0 } })).steps[0] as StepPlan;
  const lanesOf = (step: StepPlan, executors: number): number[] => partition(step, executors, CURSOR).map(partLanes);
  assert.deepEqual(lanesOf(closedStep(7), 3), [3, 2, 2]);
  assert.deepEqual(lanesOf(closedStep(8), 3), [3, 3, 2]);
  assert.deepEqual(lanesOf(closedStep(6), 3), [2, 2, 2]);
  assert.deepEqual(lanesOf(closedStep(2), 5), [1, 1, 0, 0, 0], 'fewer lanes than executors: the last ones get none');
  assert.deepEqual(lanesOf(closedStep(10, 4), 3), [2, 1, 1], 'the lanes are capped at the requests');
  // Each executor's share of the requests is its share of the lanes: 7 lanes over 3 take 60 requests as 3:2:2 (26, 17, 17).
  assert.deepEqual(partition(closedStep(7), 3, CURSOR).map((p) => plannedRequests(p).length), [26, 17, 17]);
  assert.deepEqual(partition(closedStep(2), 5, CURSOR).map((p) => plannedRequests(p).length), [30, 30, 0, 0, 0]);
  // When the executors divide the lanes, request k goes to executor k mod N.
  for (const [executor, part] of partition(closedStep(6), 3, CURSOR).entries()) assert.ok(plannedRequests(part).every((r) => r.index % 3 === executor));
  // Connections follow the lanes; summed over the executors they are the step's.
  const step = closedStep(7);
  for (let executors = 1; executors <= 5; executors++) {
    const parts = partition(step, executors, CURSOR);
    assert.equal(parts.reduce((n, p) => n + partConnections(p), 0), stepConnections(step));
    assert.ok(parts.every((p) => partSlots(p) === null), 'a closed loop has lanes, not slots');
  }
});

test('an open loop shares its cap over the executors it can use, the remainder to the first', () => {
  const capped = (cap: number): StepPlan => planRun(config({ profile: { kind: 'rate', rates: [50], maxConcurrency: cap } })).steps[0] as StepPlan;
  assert.deepEqual(partition(capped(5), 2, CURSOR).map(partSlots), [3, 2]);
  assert.deepEqual(partition(capped(2), 3, CURSOR).map(partSlots), [1, 1, 0]);
  assert.deepEqual(partition(capped(2), 3, CURSOR).map((p) => requestsOf(p).length), [13, 12, 0], 'an executor without a slot gets no request');
  assert.deepEqual(partition(capped(2), 3, CURSOR).map(partConnections), [1, 1, 0]);
  const uncapped = planRun(config({ profile: { kind: 'rate', rates: [50] } })).steps[0] as StepPlan;
  assert.deepEqual(partition(uncapped, 2, CURSOR).map(partSlots), [null, null]);
  assert.deepEqual(partition(uncapped, 2, CURSOR).map(partConnections), [13, 12], 'uncapped: no more connections than its requests');
  assert.equal(partConnections(one(uncapped)), stepConnections(uncapped));
});

test("a sweep's rate steps are planned from the gathered summaries of its first two steps", () => {
  const sweep = CONFIGS.sweep as RunConfig;
  const plan = planRun(sweep);
  assert.deepEqual(plan.steps.map((s) => [s.name, s.needsRate]), [['synchronous', true], ['throughput', true]]);
  assert.equal(plan.stepCount, 5);
  const measured = (step: StepPlan, requestsPerSecond: number | null): StepSummary => ({ ...summarizeStep([], step.profile), requestsPerSecond });
  const summaries = plan.steps.map((s, i) => measured(s, [2, 10][i] ?? null));
  const placed = planSweepRates(sweep, summaries);
  assert.deepEqual(placed.steps.map((s) => s.name), ['asynchronous@4.00 req/sec', 'asynchronous@6.00 req/sec', 'asynchronous@8.00 req/sec']);
  assert.deepEqual(placed.steps.map((s) => s.profile.rate), sweepRates(2, 10, 3));
  assert.ok(placed.steps.every((s) => s.pacing.kind === 'open' && s.pacing.maxConcurrency === DEFAULT_THROUGHPUT_CONCURRENCY && !s.needsRate));
  placed.steps.forEach((s, i) => {
    assert.ok(s.pacing.kind === 'open');
    assert.deepStrictEqual(s.pacing.schedule, arrivalSchedule({ count: 25, rate: sweepRates(2, 10, 3)[i] as number, arrival: 'constant', seed: 7 + i }));
  });
  assert.deepEqual(placed.notes, [{ level: 'info', message: 'Sweep rates: 4.00, 6.00, 8.00 req/s' }]);
  assert.deepStrictEqual(planSweepRates(sweep, structuredClone(summaries)), placed, 'the same summaries place the same steps');

  const flat = planSweepRates(sweep, [measured(plan.steps[0] as StepPlan, 5), measured(plan.steps[1] as StepPlan, 4)]);
  assert.equal(flat.steps.length, 3);
  assert.match(flat.notes[0]?.message ?? '', /Throughput \(4\.00 req\/s\) is not above synchronous \(5\.00 req\/s\)/);
  const unmeasured = planSweepRates(sweep, [measured(plan.steps[0] as StepPlan, 2), measured(plan.steps[1] as StepPlan, null)]);
  assert.deepEqual(unmeasured.steps, []);
  assert.deepEqual(unmeasured.notes.map((n) => n.level), ['warn']);
  assert.deepEqual(planSweepRates(CONFIGS.poisson as RunConfig, summaries), { steps: [], notes: [] }, 'no sweep, no rate steps');
});

test("the next step's cursor starts after the highest prompt and session any executor of the step took", () => {
  assert.deepEqual(cursorAfter(CURSOR, [{ prompts: 9, sessions: 0 }]), { prompt: 20, session: 3 });
  assert.deepEqual(cursorAfter(CURSOR, [{ prompts: 9, sessions: 2 }, { prompts: 12, sessions: 5 }, { prompts: 0, sessions: 0 }]), { prompt: 23, session: 8 });
  assert.deepEqual(cursorAfter(CURSOR, []), CURSOR);
});

test('a plan and its parts are plain data: a structured clone (what postMessage sends) is equal, schedules still typed arrays', () => {
  for (const [name, c] of Object.entries(CONFIGS)) {
    const plan = planRun(c);
    const cloned = structuredClone(plan);
    assert.deepStrictEqual(cloned, plan, name);
    for (const step of plan.steps) {
      const parts = partition(step, 3, CURSOR);
      const clonedParts = structuredClone(parts);
      assert.deepStrictEqual(clonedParts, parts, `${name} ${step.name}`);
      assert.deepStrictEqual(clonedParts.map(requestsOf), parts.map(requestsOf), `${name} ${step.name}: a cloned part lists the same requests`);
      if (step.pacing.kind === 'open') assert.ok((clonedParts[0]?.step.pacing as { schedule: unknown }).schedule instanceof Float64Array);
    }
  }
});
