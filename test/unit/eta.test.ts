// The live panel's time left, against a simulator run whose length is measured: a concurrency sweep
// 1, 4, 16 whose first step, one request at a time, takes most of the run. The estimate said "about
// 2 min 13 s in all" during step 1 of a run that took 43.7 s: it took every later step to last as
// long as the first. It is now built from the steps' planned requests and the rate per slot measured
// so far. The run's progress events are replayed as the live panel receives them, at the moments
// they came, and the estimate at each is held against the time the run really went on for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runBenchmark } from '../../src/load/runner';
import { RunConfigSchema } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { progressView } from '../../src/views/progress';
import { startSimServer } from '../../src/sim';

const workerScript = join(process.env.LLMBENCH_ROOT ?? process.cwd(), 'dist', 'sim-worker.js');
// 7.5 ms a step and 40 tokens a reply: about 0.3 s a request at any of these loads (16 sequences fit a batch).
const hardware = { stepBaseMs: 7.5, decodePerSeqMs: 0.02, prefillTokensPerSec: 500_000, requestOverheadMs: 0.5, outputPerSeqMs: 0.01 };

/** "about 3 s left in this step, about 6 s in all" -> 6; "1 min 5 s" -> 65. */
function secondsInAll(eta: string): number | null {
  const match = /about ((?:\d+ h ?)?(?:\d+ min ?)?(?:\d+ s)?) in all/.exec(eta);
  if (!match?.[1]) return null;
  const part = (unit: string) => Number(new RegExp(`(\\d+) ${unit}`).exec(match[1] ?? '')?.[1] ?? 0);
  return part('h') * 3600 + part('min') * 60 + part('s');
}

test('the time left in all, during a sweep whose first step is its slowest, is within a third of the time the run really took', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', hardware, inWorker: true, workerScript });
  t.after(() => sim.close());
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'chat' },
    request: { stream: true, extraBody: { ignore_eos: true } },
    workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 40 },
    profile: { kind: 'concurrency', levels: [1, 4, 16] },
    limits: { requests: 16, warmup: 1 },
    serverMetrics: { url: 'off' },
  });
  const started = performance.now();
  const events: { atSec: number; event: RunEvent }[] = [];
  await runBenchmark(config, { onEvent: (event) => events.push({ atSec: (performance.now() - started) / 1000, event }) });
  const endSec = events.at(-1)?.atSec ?? 0;

  const state = newLiveState({ id: 'eta', model: sim.model, baseUrl: sim.baseUrl, profile: 'concurrency 1,4,16', startedAt: new Date(0).toISOString(), labels: [], expectedSteps: null, resultPath: null });
  const checked: string[] = [];
  for (const { atSec, event } of events) {
    applyRunEvent(state, event, atSec);
    const c = state.current;
    // From a quarter of the first step on (before it, a rate per slot is a few requests' worth).
    if (event.type !== 'progress' || !c || c.plannedRequests === null || c.completed < c.plannedRequests / 4 || c.completed === c.plannedRequests) continue;
    if (c.stepIndex === 2) continue; // the last step: "in all" is this step alone
    const eta = progressView(state).eta;
    const estimated = secondsInAll(eta);
    const actual = endSec - atSec;
    // The estimate prints whole seconds: allow that rounding beyond the third.
    assert.ok(estimated !== null && Math.abs(estimated - actual) <= actual / 3 + 0.5, `step ${c.stepIndex + 1}, ${c.completed} done at ${atSec.toFixed(1)} s: "${eta}", while the run went on for ${actual.toFixed(1)} s`);
    checked.push(`${c.stepIndex + 1}:${c.completed}`);
  }
  assert.ok(checked.filter((at) => at.startsWith('1:')).length >= 3, `estimates checked during the first step: ${checked.join(' ')}`);
  assert.ok(endSec > 3, `the run lasted ${endSec.toFixed(1)} s, long enough for whole seconds to tell estimates apart`);
});
