// Executing a step's plan (src/load/execute.ts) as one executor, and as two executors on its two
// parts in this thread from the same start instant, against the loopback server: the server must
// receive the same request for every request index either way. This is what worker threads and
// shards will rely on: they differ from the second case only in where the executors run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfig, type RunConfigInput } from '../../src/format/config';
import type { RequestRecord } from '../../src/format/result';
import { createDispatcher } from '../../src/load/client';
import { executePart } from '../../src/load/execute';
import { ThreadLoadMeter } from '../../src/load/thread-load';
import { cursorAfter, executorOf, partConnections, partition, planRun, type RunCursor, type StepPlan } from '../../src/load/plan';
import { createWorkload } from '../../src/workload/sources';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { startRunnerServer, type Answer, type RunnerServer } from '../helpers/runner-server';

const FIRST: RunCursor = { prompt: 5, session: 2 };

function configFor(server: RunnerServer, overrides: Partial<RunConfigInput>): RunConfig {
  return RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: { mean: 24, stdev: 8 }, outputTokens: { mean: 6, stdev: 2 } },
    limits: { requests: 20, warmup: 2 },
    request: { connectTimeoutMs: 2000, idleTimeoutMs: 5000, totalTimeoutMs: 10000 },
    ...overrides,
  });
}

/**
 * Every answer's usage reports its arrival number (plus one) as its completion tokens, which the
 * record keeps: the record of a request names the body the server received for it.
 */
async function taggingServer(t: { after(fn: () => Promise<void>): void }, answer: (body: Record<string, unknown>) => Answer = () => ({})): Promise<RunnerServer> {
  const server = await startRunnerServer((arrival, body) => ({ tokens: 2, ...answer(body), completionTokens: arrival + 1 }));
  t.after(() => server.close());
  return server;
}

interface Executed {
  records: { executor: number; record: RequestRecord }[];
  next: RunCursor;
}

/** Runs a step's parts over `executors` executors in this thread, each with its own workload and connection pool, from one start. */
async function execute(config: RunConfig, step: StepPlan, executors: number): Promise<Executed> {
  const counter = await createTokenCounter(config.tokenizer);
  const parts = partition(step, executors, FIRST);
  const envs = await Promise.all(
    parts.map(async (part) => ({
      config,
      apiKey: undefined,
      workload: await createWorkload(config, counter),
      tokenCounter: counter,
      dispatcher: createDispatcher(Math.max(partConnections(part), 1), config.request),
      meter: new ThreadLoadMeter(),
    })),
  );
  const signals = { stop: new AbortController().signal, drain: new AbortController().signal };
  const records: Executed['records'] = [];
  const startMs = performance.now();
  try {
    const usages = await Promise.all(
      parts.map((part, executor) =>
        executePart(part, startMs, envs[executor] as (typeof envs)[number], signals, {
          inFlight: (count) => assert.ok(count <= partConnections(part), `executor ${executor} keeps at most its share in flight`),
          record: (record) => records.push({ executor, record }),
          lateness: () => undefined,
        }),
      ),
    );
    return { records, next: cursorAfter(FIRST, usages) };
  } finally {
    await Promise.all(envs.map((env) => env.dispatcher.destroy()));
  }
}

/** The body the server received for a record, found by the tag its answer carried back. */
function bodyOf(server: RunnerServer, record: RequestRecord): string {
  assert.equal(record.error, null);
  assert.equal(record.outputTokensSource, 'usage');
  const body = server.bodies[(record.outputTokens ?? 0) - 1];
  assert.ok(body !== undefined, `record ${record.index} names a request the server received`);
  return JSON.stringify(body);
}

/** (index, body, warm-up, due time) of every request, in index order; the due time only where the plan fixes it. */
function requestsSent(server: RunnerServer, executed: Executed, step: StepPlan): [number, string, boolean, number | null][] {
  const fixedDue = step.pacing.kind === 'open' || (step.pacing.kind === 'closed' && step.pacing.dueAtStart);
  return executed.records
    .map(({ record }): [number, string, boolean, number | null] => [record.index, bodyOf(server, record), record.warmup, fixedDue ? record.scheduledMs : null])
    .sort((a, b) => a[0] - b[0]);
}

const CASES: Record<string, Partial<RunConfigInput>> = {
  'closed loop, 3 lanes over 2 executors': { profile: { kind: 'concurrency', levels: [3] } },
  'throughput, its queue due at the start': { profile: { kind: 'throughput', maxConcurrency: 4 } },
  'Poisson arrivals capped at 3 in flight': { profile: { kind: 'rate', rates: [400], arrival: 'poisson', maxConcurrency: 3 } },
  'constant arrivals, uncapped': { profile: { kind: 'rate', rates: [500] } },
};

for (const [name, overrides] of Object.entries(CASES)) {
  test(`one executor and two on the halves send the same request for every index: ${name}`, async (t) => {
    const server = await taggingServer(t);
    const config = configFor(server, overrides);
    const step = planRun(config).steps[0] as StepPlan;
    const whole = await execute(config, step, 1);
    const halves = await execute(config, step, 2);
    const planned = step.requests as number;
    assert.deepEqual(whole.records.map((r) => r.record.index).sort((a, b) => a - b), Array.from({ length: planned }, (_, k) => k), 'one executor sends every planned request once');
    assert.deepStrictEqual(requestsSent(server, halves, step), requestsSent(server, whole, step));
    for (const { executor, record } of halves.records) assert.equal(executor, executorOf(step, 2, record.index), `request ${record.index} went out from the executor the plan gives it`);
    assert.deepEqual(new Set(halves.records.map((r) => r.executor)), new Set([0, 1]), 'both executors sent');
    assert.deepEqual(halves.next, whole.next);
    assert.deepEqual(whole.next, { prompt: FIRST.prompt + planned, session: FIRST.session });
    assert.equal(server.arrivals.length, 2 * planned);
  });
}

test('sessions stay whole on one executor, and a session turn carries the same conversation split or not', async (t) => {
  type Message = { role: string; content: string };
  // The reply to a turn depends only on its last user message, so a session's history is the same wherever it runs.
  const server = await taggingServer(t, (body) => ({ pieces: [`re: ${((body.messages as Message[]).at(-1)?.content ?? '').slice(0, 16)}`] }));
  const config = configFor(server, { profile: { kind: 'concurrency', levels: [2] }, limits: { requests: 12 }, sessions: { turns: 3 } });
  const step = planRun(config).steps[0] as StepPlan;
  const turns = async (executors: number): Promise<{ executed: Executed; bodies: Map<string, string> }> => {
    const executed = await execute(config, step, executors);
    const bodies = new Map(executed.records.map(({ record }) => [`${record.session}/${record.turn}`, bodyOf(server, record)]));
    return { executed, bodies };
  };
  const whole = await turns(1);
  const halves = await turns(2);
  for (const { executed } of [whole, halves]) assert.equal(executed.records.length, 12, 'the request limit counts turns');
  // Split, each executor has one lane and 6 turns: two whole sessions of 3 turns each, in order.
  const sessions = [0, 1, 2, 3].map((j) => FIRST.session + j);
  assert.deepEqual([...halves.bodies.keys()].sort(), sessions.flatMap((s) => [0, 1, 2].map((turn) => `${s}/${turn}`)).sort());
  for (const s of sessions) {
    const from = new Set(halves.executed.records.filter((r) => r.record.session === s).map((r) => r.executor));
    assert.deepEqual([...from], [executorOf(step, 2, s - FIRST.session)], `session ${s} is sent whole by the executor the plan gives it`);
  }
  for (const [key, body] of whole.bodies) if (halves.bodies.has(key)) assert.equal(halves.bodies.get(key), body, `turn ${key} carries the same conversation`);
  assert.ok([...whole.bodies.keys()].filter((key) => halves.bodies.has(key)).length >= 9, 'one executor sent (nearly) the same turns');
  assert.deepEqual(halves.executed.next, { prompt: FIRST.prompt, session: FIRST.session + 4 });
});
