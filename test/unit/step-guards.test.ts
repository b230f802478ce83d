/**
 * Stop guards and idle starts against the simulator (docs/metrics.md, "Stop guards" and "Steps
 * start on an idle server"): a step past the knee ends early and a sweep skips the higher rates, a
 * step below it runs its length, too many failures end a step, and each step waits for the server
 * to read idle before it starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import type { RunEvent } from '../../src/format/events';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer, type SimServer } from '../../src/sim/index';
import { startRunnerServer } from '../helpers/runner-server';

/**
 * Two sequences at a time, 20 output tokens at 10 ms a step: a request takes about 0.2 s, and the
 * engine serves about 10 requests a second. Queued requests wait on the server (as vLLM's do).
 */
async function slowSim(t: { after(fn: () => Promise<void>): void }): Promise<SimServer> {
  const sim = await startSimServer({ preset: 'tiny', engine: { maxNumSeqs: 2 }, hardware: { stepBaseMs: 10 } });
  t.after(() => sim.close());
  return sim;
}

async function run(sim: { baseUrl: string; model: string }, overrides: Partial<RunConfigInput>): Promise<{ doc: ResultDocument; logs: string[] }> {
  const logs: string[] = [];
  const doc = await runBenchmark(
    RunConfigSchema.parse({
      endpoint: { baseUrl: sim.baseUrl, model: sim.model },
      request: { extraBody: { ignore_eos: true } },
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 20 },
      serverMetrics: { intervalMs: 500 },
      ...overrides,
    }),
    { onEvent: (e: RunEvent) => (e.type === 'log' ? logs.push(e.message) : undefined) },
  );
  ResultDocumentSchema.parse(doc);
  return { doc, logs };
}

const lastSendSec = (doc: ResultDocument, index: number): number => Math.max(...(doc.steps[index]?.requests.map((r) => r.sentMs) ?? [0])) / 1000;

test('past the knee a rate step ends well before its duration and the higher rates are skipped; below it a step runs its length', async (t) => {
  const sim = await slowSim(t);
  const { doc, logs } = await run(sim, {
    profile: { kind: 'rate', rates: [4, 40, 60], arrival: 'constant' },
    limits: { durationSec: 12, saturationWindowSec: 2, drainSec: 0 },
  });
  const [below, past, ...rest] = doc.steps;
  assert.equal(below?.summary?.warnings?.find((w) => w.kind === 'over-saturated'), undefined, 'at 4 req/s the server keeps up: no stop');
  assert.ok(lastSendSec(doc, 0) > 11, `the step below the knee sent for its 12 s (${lastSendSec(doc, 0).toFixed(1)} s)`);
  const stop = past?.summary?.warnings?.find((w) => w.kind === 'over-saturated');
  assert.ok(stop, `the step at 40 req/s was stopped: ${JSON.stringify(past?.summary?.warnings)}`);
  assert.ok((stop.figures['atSec'] ?? Infinity) < 6, `well under its 12 s: at ${stop.figures['atSec']} s`);
  assert.ok(lastSendSec(doc, 1) < 6.5, `it sent no more after the stop (last send ${lastSendSec(doc, 1).toFixed(1)} s)`);
  assert.ok((stop.figures['to'] ?? 0) > (stop.figures['from'] ?? 0) + (stop.figures['threshold'] ?? 0) - 1e-9, 'the rise it saw beat its threshold');
  assert.match(stop.message, /^Ended early at \d+\.\d s: over-saturated\./);
  assert.deepEqual(rest, [], 'the 60 req/s step was skipped');
  const skipped = 'Skipped 1 step at rates above 40.00 req/s, where the server was over-saturated: ';
  assert.ok(doc.warnings?.some((w) => w.startsWith(skipped)), `said in the result: ${JSON.stringify(doc.warnings)}`);
  assert.ok(logs.some((l) => l.startsWith(skipped)));
  // The simulator aborts what the client cancels (as vLLM does): the 40 req/s step began on an idle server.
  assert.equal(past?.startedOn?.server, 'idle');
});

test('without the guard (--no-saturation-stop) the same step runs its whole length', async (t) => {
  const sim = await slowSim(t);
  const { doc } = await run(sim, {
    profile: { kind: 'rate', rates: [40], arrival: 'constant' },
    limits: { durationSec: 5, saturationWindowSec: 2, saturationStop: false, drainSec: 0 },
  });
  assert.equal(doc.steps[0]?.summary?.warnings?.find((w) => w.kind === 'over-saturated'), undefined);
  assert.ok(lastSendSec(doc, 0) > 4.5, `sent for its 5 s (${lastSendSec(doc, 0).toFixed(1)} s)`);
});

/**
 * A server that goes on with what a step left queued, as llama.cpp does: from the end of the first
 * step (its 5th request) its gauges read 1 running and 3 waiting for `busyMs`, then 0.
 */
async function serverBusyAfterFirstStep(t: { after(fn: () => Promise<void>): void }, busyMs: number) {
  let busyUntil = 0;
  const server = await startRunnerServer(
    (index) => {
      if (index === 4) busyUntil = performance.now() + busyMs;
      return { tokens: 2, firstTokenMs: 5 };
    },
    () => {
      const busy = performance.now() < busyUntil;
      return {
        body: [
          '# TYPE vllm:num_requests_running gauge',
          `vllm:num_requests_running{model_name="m"} ${busy ? 1 : 0}`,
          '# TYPE vllm:num_requests_waiting gauge',
          `vllm:num_requests_waiting{model_name="m"} ${busy ? 3 : 0}`,
          '',
        ].join('\n'),
      };
    },
  );
  t.after(() => server.close());
  return server;
}

test('each step waits for the server to read idle; the wait is recorded, and a server still busy at the end of the cool-down is warned about', async (t) => {
  const steps = { profile: { kind: 'concurrency' as const, levels: [1, 1] } };
  const patient = await serverBusyAfterFirstStep(t, 1500);
  const waited = await run({ baseUrl: patient.baseUrl, model: 'm' }, { ...steps, limits: { requests: 5, cooldownSec: 30 } });
  const [first, second] = waited.doc.steps;
  assert.deepEqual(first?.startedOn, { server: 'idle', waitedSec: first?.startedOn?.waitedSec, running: 0, waiting: 0 });
  assert.equal(second?.startedOn?.server, 'idle', JSON.stringify(second?.startedOn));
  assert.ok((second?.startedOn?.waitedSec ?? 0) >= 1, `it waited for the backlog the server still had: ${second?.startedOn?.waitedSec} s`);
  assert.ok((second?.startedOn?.waitedSec ?? 0) < 5, `and no longer than that: ${second?.startedOn?.waitedSec} s`);
  assert.equal(second?.summary?.warnings?.find((w) => w.kind === 'busy-start'), undefined);

  const rushed = await serverBusyAfterFirstStep(t, 60_000);
  const { doc, logs } = await run({ baseUrl: rushed.baseUrl, model: 'm' }, { ...steps, limits: { requests: 5, cooldownSec: 0.5 } });
  const busy = doc.steps[1];
  assert.deepEqual([busy?.startedOn?.server, busy?.startedOn?.running, busy?.startedOn?.waiting], ['busy', 1, 3]);
  const warning = busy?.summary?.warnings?.find((w) => w.kind === 'busy-start');
  assert.ok(warning, JSON.stringify(busy?.summary?.warnings));
  assert.deepEqual([warning.figures['running'], warning.figures['waiting'], warning.figures['cooldownSec']], [1, 3, 0.5]);
  assert.match(warning.message, /^Began on a busy server: it still had 1 running and 3 waiting requests after a wait of 0\.\d s \(--cooldown-sec 0\.5\)/);
  assert.ok(logs.some((l) => l.startsWith(`${busy?.name}: Began on a busy server`)), 'said in the log as it happens');
});

test('--max-error-rate ends a step once too many of its requests failed, or the run with scope run', async (t) => {
  // Every third request fails: 33% against a 20% limit, judged from the 9th ended request on.
  const server = await startRunnerServer((index) => (index % 3 === 2 ? { status: 500 } : { tokens: 2, firstTokenMs: 5 }));
  t.after(() => server.close());
  const base = { profile: { kind: 'concurrency' as const, levels: [1, 2] } };
  const step = await run({ baseUrl: server.baseUrl, model: 'm' }, { ...base, limits: { requests: 60, maxErrorRate: 0.2, maxErrorRateMin: 9 } });
  const [first, second] = step.doc.steps;
  const stop = first?.summary?.warnings?.find((w) => w.kind === 'error-rate');
  assert.deepEqual(stop?.figures, { failed: 3, ended: 9, errorRate: 0.333, maxErrorRate: 0.2 });
  assert.ok((first?.requests.length ?? 0) < 15, `ended early: ${first?.requests.length} requests`);
  assert.ok(second?.summary?.warnings?.some((w) => w.kind === 'error-rate'), 'scope step: the next step ran, and was judged on its own');
  assert.equal(step.doc.status, 'complete');

  const whole = await run({ baseUrl: server.baseUrl, model: 'm' }, { ...base, limits: { requests: 60, maxErrorRate: 0.2, maxErrorRateMin: 9, maxErrorRateScope: 'run' } });
  assert.equal(whole.doc.steps.length, 1, 'scope run: no step after the stop');
  assert.match(whole.doc.steps[0]?.summary?.warnings?.[0]?.message ?? '', /; the run stopped\.$/);

  // Below the limit nothing stops.
  const fine = await run({ baseUrl: server.baseUrl, model: 'm' }, { ...base, limits: { requests: 30, maxErrorRate: 0.5, maxErrorRateMin: 9 } });
  assert.equal(fine.doc.steps[0]?.requests.length, 30);
  assert.equal(fine.doc.steps[0]?.summary?.warnings?.find((w) => w.kind === 'error-rate'), undefined);
});
