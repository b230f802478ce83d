/**
 * The default preset against its reference figures (src/sim/presets.ts, docs/simulator.md): a
 * real benchmark with the engine's runner over HTTP, bounded in requests. The simulator runs in a
 * worker thread: at real time for the synchronous figures (where any client delay would be
 * multiplied by a speed-up), at 4x speed for the saturated and knee steps so that they take
 * seconds; their measured times are scaled back by that factor before they are compared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runBenchmark } from '../../src/engine';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { StepSummary } from '../../src/format/result';
import { PRESETS, startSimServer, type SimServer } from '../../src/sim';

const SPEEDUP = 4;
const preset = PRESETS['qwen2-7b-a100-vllm'];
const reference = preset.reference;
const workerScript = join(process.env.LLMBENCH_ROOT ?? process.cwd(), 'dist', 'sim-worker.js');

let runs = 0;

async function measure(sim: SimServer, profile: RunConfigInput['profile'], requests: number): Promise<StepSummary[]> {
  const doc = await runBenchmark(
    RunConfigSchema.parse({
      endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'chat' },
      request: { stream: true, extraBody: { ignore_eos: true } },
      workload: { kind: 'synthetic', inputTokens: reference.inputTokens, outputTokens: reference.outputTokens },
      profile,
      limits: { requests },
      // Fresh prompts for every run: repeated ones would be served from the prefix cache.
      seed: ++runs,
    }),
    {},
  );
  return doc.steps.map((step, i) => {
    assert.ok(step.summary, `step ${i} has a summary`);
    assert.equal(step.summary.requests.failed, 0, `step ${step.name}: ${JSON.stringify(step.summary.errors)}`);
    return step.summary;
  });
}

const within = (what: string, measured: number, expected: number) => {
  const deviation = measured / expected - 1;
  assert.ok(
    Math.abs(deviation) <= reference.tolerance,
    `${what}: measured ${measured.toFixed(2)}, reference ${expected} (${(deviation * 100).toFixed(1)}%, tolerance ${reference.tolerance * 100}%)`,
  );
};

test('qwen2-7b-a100-vllm reproduces its reference figures and a knee, within the documented tolerance', { timeout: 60_000 }, async () => {
  const realTime = await startSimServer({ preset: 'qwen2-7b-a100-vllm', inWorker: true, workerScript });
  let sync: StepSummary | undefined;
  try {
    [sync] = await measure(realTime, { kind: 'synchronous' }, 5);
  } finally {
    await realTime.close();
  }
  const sim = await startSimServer({ preset: 'qwen2-7b-a100-vllm', speedup: SPEEDUP, inWorker: true, workerScript });
  try {
    const [saturated] = await measure(sim, { kind: 'throughput', maxConcurrency: 256 }, 384);
    assert.ok(sync && saturated);
    const syncRate = sync.requestsPerSecond ?? 0;
    const ttft = sync.ttftMs?.p50 ?? 0;
    const itl = sync.itlMs?.mean ?? 0;
    const throughput = (saturated.outputTokensPerSecond ?? 0) / SPEEDUP;
    console.log(
      `# measured: synchronous ${syncRate.toFixed(3)} req/s, TTFT p50 ${ttft.toFixed(1)} ms, ITL mean ${itl.toFixed(2)} ms; ` +
        `saturated (at x${SPEEDUP}, scaled) ${throughput.toFixed(0)} output tok/s`,
    );
    within('synchronous req/s', syncRate, reference.synchronousRequestsPerSec);
    within('synchronous TTFT p50 (ms)', ttft, reference.ttftMs);
    within('synchronous ITL mean (ms)', itl, reference.itlMs);
    within('saturated output tok/s', throughput, reference.saturatedOutputTokensPerSec);

    // The knee: at half the saturated request rate latency stays near its synchronous values;
    // above saturation the batch grows, every step slows (ITL) and new requests wait longer (TTFT).
    // Rates from the reference saturation (not the measured one, which a busy machine lowers).
    const saturatedRate = (reference.saturatedOutputTokensPerSec / reference.outputTokens) * SPEEDUP;
    const [below, above] = await measure(sim, { kind: 'rate', rates: [saturatedRate * 0.5, saturatedRate * 1.5], arrival: 'constant' }, 150);
    assert.ok(below && above);
    const scaled = (summary: StepSummary) => ({ ttft: (summary.ttftMs?.p50 ?? 0) * SPEEDUP, itl: (summary.itlMs?.mean ?? 0) * SPEEDUP });
    const [low, high] = [scaled(below), scaled(above)];
    console.log(
      `# at 50% of saturation: TTFT p50 ${low.ttft.toFixed(0)} ms, ITL mean ${low.itl.toFixed(1)} ms; ` +
        `at 150%: TTFT p50 ${high.ttft.toFixed(0)} ms, ITL mean ${high.itl.toFixed(1)} ms`,
    );
    assert.ok(low.ttft < 1.5 * reference.ttftMs, 'below the knee TTFT stays near its synchronous value');
    assert.ok(high.ttft > 3 * low.ttft, 'above the knee TTFT grows');
    assert.ok(high.itl > 2 * low.itl, 'above the knee every step slows');
  } finally {
    await sim.close();
  }
});
