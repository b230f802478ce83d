/**
 * Each preset with published figures against them (src/sim/presets.ts, docs/simulator.md): a real
 * benchmark with the engine's runner over HTTP, bounded in requests, the simulator in a worker
 * thread. A preset whose requests take seconds runs faster than real time (`speedup`); its
 * measured times are scaled back by that factor before they are compared. Fast presets run their
 * synchronous step at real time, where any client delay would otherwise be multiplied.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runBenchmark } from '../../src/load/runner';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { StepSummary } from '../../src/format/result';
import { PRESETS, PRESET_NAMES, startSimServer, type PresetName, type SimServer } from '../../src/sim';
import type { Preset, PresetReference } from '../../src/sim/presets';

const workerScript = join(process.env.LLMBENCH_ROOT ?? process.cwd(), 'dist', 'sim-worker.js');

interface Phase {
  speedup: number;
  /** Measured requests. */
  requests: number;
  /** Requests sent first and left out of the figures (the ramp-up of a closed loop). */
  warmup: number;
}

/** How each preset is measured: sized so that every run takes seconds on two shared cores. */
const CHECKS: Record<string, { synchronous: Phase; highLoad: Phase }> = {
  'qwen2-7b-a100-vllm': { synchronous: { speedup: 1, requests: 5, warmup: 0 }, highLoad: { speedup: 4, requests: 384, warmup: 0 } },
  // 9.7 s per synchronous request at real time; 50 warm-up requests fill the batch before measuring.
  'llama3.3-70b-fp8-2xh100-nim': { synchronous: { speedup: 4, requests: 3, warmup: 0 }, highLoad: { speedup: 8, requests: 50, warmup: 50 } },
  'qwen2.5-0.5b-l4-vllm': { synchronous: { speedup: 1, requests: 8, warmup: 0 }, highLoad: { speedup: 1, requests: 96, warmup: 32 } },
};

const referenced = PRESET_NAMES.flatMap((name) => {
  const { reference }: Preset = PRESETS[name];
  return reference ? [{ name, reference }] : [];
});

let runs = 0;

/** Runs a benchmark with the reference workload; times and rates come back scaled to real time. */
async function measure(sim: SimServer, reference: PresetReference, speedup: number, profile: RunConfigInput['profile'], limits: RunConfigInput['limits']) {
  const doc = await runBenchmark(
    RunConfigSchema.parse({
      endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'chat' },
      request: { stream: true, extraBody: { ignore_eos: true } },
      workload: { kind: 'synthetic', inputTokens: reference.inputTokens, outputTokens: reference.outputTokens },
      profile,
      limits,
      // Fresh prompts for every run: repeated ones would be served from the prefix cache.
      seed: ++runs,
    }),
    {},
  );
  return doc.steps.map((step, i) => {
    assert.ok(step.summary, `step ${i} has a summary`);
    assert.equal(step.summary.requests.failed, 0, `step ${step.name}: ${JSON.stringify(step.summary.errors)}`);
    return scaled(step.summary, speedup);
  });
}

const scaled = (summary: StepSummary, speedup: number) => ({
  requestsPerSec: (summary.requestsPerSecond ?? 0) / speedup,
  outputTokensPerSec: (summary.outputTokensPerSecond ?? 0) / speedup,
  ttftMs: (summary.ttftMs?.p50 ?? 0) * speedup,
  itlMs: (summary.itlMs?.mean ?? 0) * speedup,
});

async function withSim<T>(preset: PresetName, speedup: number, use: (sim: SimServer) => Promise<T>): Promise<T> {
  const sim = await startSimServer({ preset, speedup, inWorker: true, workerScript });
  try {
    return await use(sim);
  } finally {
    await sim.close();
  }
}

test('every preset with published figures has a check here', () => {
  assert.ok(referenced.length >= 3);
  assert.deepEqual(referenced.map((r) => r.name).sort(), Object.keys(CHECKS).sort());
});

for (const { name, reference } of referenced) {
  test(`${name} reproduces its reference figures within the documented tolerance`, { timeout: 60_000 }, async () => {
    const check = CHECKS[name];
    assert.ok(check, `no check for ${name}`);
    const { synchronous, highLoad } = check;
    const [sync] = await withSim(name, synchronous.speedup, (sim) =>
      measure(sim, reference, synchronous.speedup, { kind: 'synchronous' }, { requests: synchronous.requests, warmup: synchronous.warmup }),
    );
    const [loaded] = await withSim(name, highLoad.speedup, (sim) =>
      measure(sim, reference, highLoad.speedup, { kind: 'throughput', maxConcurrency: reference.highLoad.concurrency }, { requests: highLoad.requests, warmup: highLoad.warmup }),
    );
    assert.ok(sync && loaded);
    console.log(
      `# ${name}: synchronous ${sync.requestsPerSec.toFixed(3)} req/s, TTFT p50 ${sync.ttftMs.toFixed(1)} ms, ITL mean ${sync.itlMs.toFixed(2)} ms; ` +
        `${loaded.outputTokensPerSec.toFixed(0)} output tok/s at concurrency ${reference.highLoad.concurrency}`,
    );
    const within = (what: string, measured: number, expected: number) => {
      const deviation = measured / expected - 1;
      assert.ok(
        Math.abs(deviation) <= reference.tolerance,
        `${name} ${what}: measured ${measured.toFixed(2)}, reference ${expected} (${(deviation * 100).toFixed(1)}%, tolerance ${reference.tolerance * 100}%)`,
      );
    };
    within('synchronous req/s', sync.requestsPerSec, reference.synchronousRequestsPerSec);
    within('synchronous TTFT p50 (ms)', sync.ttftMs, reference.ttftMs);
    within('synchronous ITL mean (ms)', sync.itlMs, reference.itlMs);
    within(`output tok/s at concurrency ${reference.highLoad.concurrency}`, loaded.outputTokensPerSec, reference.highLoad.outputTokensPerSec);
  });
}

test('qwen2-7b-a100-vllm shows a knee: flat latency below saturation, queueing above', { timeout: 60_000 }, async () => {
  // At half the saturated request rate latency stays near its synchronous values; above
  // saturation the batch grows, every step slows (ITL) and new requests wait longer (TTFT).
  // Rates from the reference saturation (not the measured one, which a busy machine lowers).
  const speedup = 4;
  const { reference } = PRESETS['qwen2-7b-a100-vllm'];
  const saturatedRate = (reference.highLoad.outputTokensPerSec / reference.outputTokens) * speedup;
  const [low, high] = await withSim('qwen2-7b-a100-vllm', speedup, (sim) =>
    measure(sim, reference, speedup, { kind: 'rate', rates: [saturatedRate * 0.5, saturatedRate * 1.5], arrival: 'constant' }, { requests: 150 }),
  );
  assert.ok(low && high);
  console.log(
    `# at 50% of saturation: TTFT p50 ${low.ttftMs.toFixed(0)} ms, ITL mean ${low.itlMs.toFixed(1)} ms; ` +
      `at 150%: TTFT p50 ${high.ttftMs.toFixed(0)} ms, ITL mean ${high.itlMs.toFixed(1)} ms`,
  );
  assert.ok(low.ttftMs < 1.5 * reference.ttftMs, 'below the knee TTFT stays near its synchronous value');
  assert.ok(high.ttftMs > 3 * low.ttftMs, 'above the knee TTFT grows');
  assert.ok(high.itlMs > 2 * low.itlMs, 'above the knee every step slows');
});
