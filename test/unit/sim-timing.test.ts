/**
 * The simulator's timing against its own trace: model times follow the hardware profile exactly,
 * no token is written before its model time, and a client on the same machine receives each chunk
 * after it was written. Only orderings and the model's arithmetic are exact; where wall-clock
 * delays are looked at, the bounds are medians with a wide margin, because this machine's cores
 * are shared with other jobs (a descheduled thread can be late by tens of milliseconds). The
 * accuracy goal itself (p99 lateness) is measured by test/bench/sim.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sendRequest } from '../../src/load/client';
import { startSimServer, tokenLateness, type RequestTrace } from '../../src/sim';
import { clientContext, meta } from '../helpers/client-context';

const workerScript = join(process.env.LLMBENCH_ROOT ?? process.cwd(), 'dist', 'sim-worker.js');
const hardware = { stepBaseMs: 4, decodePerSeqMs: 0.25, prefillTokensPerSec: 100_000, requestOverheadMs: 2, outputPerSeqMs: 0.02 };

test('a lone request follows the hardware profile exactly in model time', async () => {
  const sim = await startSimServer({ preset: 'tiny', hardware, inWorker: true, workerScript });
  try {
    const res = await fetch(`${sim.baseUrl}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: sim.model, prompt: 'z'.repeat(4 * 500), max_tokens: 10, ignore_eos: true, stream: true }),
    });
    await res.text();
    const [trace] = await sim.trace();
    assert.ok(trace && trace.scheduledMs !== null);
    const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-6, `${what}: ${actual} != ${expected}`);
    close(trace.scheduledMs - trace.arrivalMs, hardware.requestOverheadMs, 'arrival to scheduled: the API overhead');
    const prefillMs = hardware.stepBaseMs + hardware.decodePerSeqMs + (500 * 1000) / hardware.prefillTokensPerSec;
    close((trace.tokenMs[0] as number) - trace.scheduledMs, prefillMs, 'the prefill step');
    for (let i = 1; i < trace.tokenMs.length; i++) {
      close((trace.tokenMs[i] as number) - (trace.tokenMs[i - 1] as number), hardware.stepBaseMs + hardware.decodePerSeqMs, `decode step ${i}`);
    }
    assert.equal(trace.writeMs.length, 10);
  } finally {
    await sim.close();
  }
});

test("writes follow model times closely, and the client's chunk times follow the writes", async () => {
  const sim = await startSimServer({ preset: 'tiny', hardware, inWorker: true, workerScript });
  const concurrency = 16;
  const { context, close } = clientContext(sim.baseUrl, {
    endpoint: { model: sim.model },
    request: { extraBody: { ignore_eos: true } },
    concurrency,
  });
  try {
    // Distinct output lengths tell the requests apart in the trace.
    const records = await Promise.all(
      Array.from({ length: concurrency }, (_, i) =>
        sendRequest({ prompt: `Request ${i} `.repeat(20), maxTokens: 30 + i, inputTokens: { count: 60, source: 'estimate' } }, meta(i), context),
      ),
    );
    const traces = await sim.trace();
    assert.equal(traces.length, concurrency);
    for (const trace of traces) {
      assert.equal(trace.writeMs.length, trace.tokenMs.length, `request ${trace.index}: a write per token`);
      trace.writeMs.forEach((ms, i) => assert.ok(ms >= (trace.tokenMs[i] as number), `request ${trace.index}: token ${i} written before its model time`));
    }
    // A pump that misses its wake-ups (tokens left for the next step, 8 ms later) shows in the
    // median; a busy machine stretches the tail.
    const lateness = tokenLateness(traces);
    assert.ok(lateness?.p50 != null && lateness.p50 < 4, `median write lateness ${lateness?.p50} ms`);

    const stepStartEpoch = performance.timeOrigin + context.stepStartMs;
    const delays: number[] = [];
    const itlGaps: number[] = [];
    for (const record of records) {
      assert.equal(record.error, null);
      const trace = traces.find((t: RequestTrace) => t.targetTokens === record.outputTokens) as RequestTrace;
      assert.ok(trace, `a trace for the request with ${record.outputTokens} tokens`);
      assert.equal(record.chunkMs.length, trace.writeMs.length);
      record.chunkMs.forEach((ms, i) => delays.push(stepStartEpoch + ms - (trace.writeMs[i] as number)));
      // The client's ITL against the model's: the same steps, seen through the network.
      const clientItl = (record.chunkMs.at(-1)! - record.chunkMs[0]!) / (record.chunkMs.length - 1);
      const modelItl = (trace.tokenMs.at(-1)! - trace.tokenMs[0]!) / (trace.tokenMs.length - 1);
      itlGaps.push(Math.abs(clientItl - modelItl));
    }
    const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    // Both clocks are performance.timeOrigin + now() on one machine: a chunk cannot arrive before
    // its write began (0.5 ms allows for rounding between the threads' origins).
    assert.ok(Math.min(...delays) > -0.5, `a chunk arrived ${-Math.min(...delays)} ms before it was written`);
    assert.ok(median(delays) < 10, `median write-to-read delay ${median(delays)} ms`);
    assert.ok(median(itlGaps) < 2, `median gap between client and model ITL ${median(itlGaps)} ms`);
  } finally {
    await close();
    await sim.close();
  }
});
