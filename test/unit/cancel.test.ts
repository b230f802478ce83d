// Cancellation by design (`--cancel-rate P --cancel-after MS|MS-MS`): which requests the seed
// picks and when, a run against the simulator that aborts them mid-stream (counted apart, with
// their partial tokens), and the cross-check with the server's own count of aborts: agreeing with
// the simulator's vLLM counter, and a warning against a server whose counter stays at 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { cancelDelayMs } from '../../src/load/cancel';
import { runBenchmark } from '../../src/load/runner';
import { cancelledByDesign } from '../../src/results/stats';
import { startSimServer, type SimServer } from '../../src/sim';
import { repoRoot } from '../helpers/limited-child';
import { startScriptedServer } from '../helpers/sse-server';

const STEP = { prompt: 0, session: 0 };

test('cancelDelayMs: the seed picks about the rate\'s share, the same ones every time, never a warm-up; delays fixed or within the range', () => {
  const cancel = { rate: 0.25, afterMs: { min: 100, max: 300 } };
  const picks = Array.from({ length: 4000 }, (_, i) => cancelDelayMs(cancel, 42, STEP, i, false));
  const chosen = picks.filter((d) => d !== undefined) as number[];
  // Binomial(4000, 0.25): standard deviation about 27; 4 of them either way.
  assert.ok(Math.abs(chosen.length - 1000) < 110, `${chosen.length} of 4000 chosen`);
  assert.ok(chosen.every((d) => Number.isInteger(d) && d >= 100 && d <= 300));
  assert.ok(Math.min(...chosen) < 110 && Math.max(...chosen) > 290, 'the delays spread over the range');
  assert.deepEqual(Array.from({ length: 4000 }, (_, i) => cancelDelayMs(cancel, 42, STEP, i, false)), picks, 'the same seed picks the same requests');
  assert.notDeepEqual(Array.from({ length: 200 }, (_, i) => cancelDelayMs(cancel, 42, { prompt: 300, session: 0 }, i, false)), picks.slice(0, 200), 'another step picks others');
  assert.ok(Array.from({ length: 200 }, (_, i) => cancelDelayMs(cancel, 42, STEP, i, true)).every((d) => d === undefined), 'warm-up requests are never cancelled');
  assert.ok(Array.from({ length: 200 }, (_, i) => cancelDelayMs({ rate: 1, afterMs: 50 }, 7, STEP, i, false)).every((d) => d === 50));
  assert.equal(cancelDelayMs(undefined, 42, STEP, 0, false), undefined);
});

async function cancelRun(sim: SimServer, metricsUrl?: string): Promise<{ doc: ResultDocument; logs: string[] }> {
  const config: RunConfigInput = {
    endpoint: { baseUrl: sim.baseUrl, model: sim.model },
    // 150 tokens at about 4 ms each: a response lasts far longer than the 250 ms before a cancel.
    workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 150 },
    request: { extraBody: { ignore_eos: true } },
    profile: { kind: 'concurrency', levels: [4] },
    limits: { requests: 12, warmup: 2 },
    cancel: { rate: 0.5, afterMs: 250 },
    serverMetrics: { intervalMs: 250, ...(metricsUrl ? { url: metricsUrl } : {}) },
  };
  const logs: string[] = [];
  const doc = await runBenchmark(RunConfigSchema.parse(config), { onEvent: (e: RunEvent) => e.type === 'log' && logs.push(e.message) });
  return { doc: ResultDocumentSchema.parse(doc), logs };
}

test('a run that cancels half its requests 250 ms in: they count apart with their partial tokens, and the simulator\'s abort counter agrees', async () => {
  const sim = await startSimServer({ preset: 'tiny', hardware: { stepBaseMs: 4 }, inWorker: true, workerScript: join(repoRoot, 'dist', 'sim-worker.js') });
  try {
    const { doc, logs } = await cancelRun(sim);
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    const records = doc.steps[0]!.requests;
    const cut = records.filter(cancelledByDesign);
    const chosen = records.filter((r) => r.cancelAfterMs !== undefined);
    assert.ok(cut.length >= 3 && cut.length <= 9, `${cut.length} of 12 cut`);
    assert.equal(cut.length, chosen.length, 'every chosen request was still streaming at 250 ms');
    assert.ok(records.filter((r) => r.warmup).every((r) => r.cancelAfterMs === undefined));
    for (const r of cut) {
      assert.match(r.error?.message ?? '', /cancelled by design 250 ms after it was sent/);
      // Never before its delay (a timer on a busy machine may fire late, never early).
      assert.ok((r.endMs as number) - r.sentMs >= 249.9, `cut ${(r.endMs as number) - r.sentMs} ms after the send`);
      // What had come by then, counted from the text received (no usage came); none when not even the first token had (a busy machine).
      if (r.chunkMs.length === 0) assert.deepEqual([r.outputTokens, r.outputTokensSource], [null, null]);
      else assert.deepEqual([r.outputTokens, r.outputTokensSource], [r.chunkMs.length, 'estimate']);
      assert.ok((r.outputTokens ?? 0) < 150);
    }
    assert.ok(cut.some((r) => (r.outputTokens ?? 0) > 0), 'cut mid-stream, with partial tokens');
    const summary = doc.steps[0]!.summary!;
    assert.deepEqual(summary.cancelledByDesign, { requests: cut.length, outputTokens: cut.reduce((n, r) => n + (r.outputTokens ?? 0), 0) });
    assert.equal(summary.errors.cancelled, cut.length);
    assert.deepEqual(summary.requests, { total: 12 - cut.length, completed: 12 - cut.length, failed: 0 });
    assert.ok(logs.some((m) => /abort cross-check: the server's vllm:request_success_total\{finished_reason="abort"\} rose by \d+ during the run, the client cancelled \d+ requests mid-response: they agree/.test(m)), logs.join('\n'));
    assert.ok(!(doc.warnings ?? []).some((w) => /abort/.test(w)), (doc.warnings ?? []).join('\n'));
    const traces = await sim.trace();
    assert.equal(traces.filter((t) => t.finishReason === 'abort').length, cut.length, 'the simulator saw each abort');
    // The same seed cancels the same requests again.
    const again = await cancelRun(sim);
    assert.deepEqual(again.doc.steps[0]!.requests.filter((r) => r.cancelAfterMs !== undefined).map((r) => r.index).sort(), chosen.map((r) => r.index).sort());
  } finally {
    await sim.close();
  }
});

test('a server whose abort counter stays at 0 while the run cancels: the cross-check warns, naming the vLLM issue', async () => {
  const exposition = readFileSync(join(repoRoot, 'test', 'fixtures', 'server-metrics', 'vllm-design-doc.prom'), 'utf8');
  const metrics = await startScriptedServer(() => ({ headers: { 'content-type': 'text/plain' }, steps: [exposition] }));
  const sim = await startSimServer({ preset: 'tiny', hardware: { stepBaseMs: 4 }, inWorker: true, workerScript: join(repoRoot, 'dist', 'sim-worker.js') });
  try {
    const { doc } = await cancelRun(sim, `http://127.0.0.1:${metrics.port}/metrics`);
    assert.equal(doc.status, 'complete');
    const warning = (doc.warnings ?? []).find((w) => w.includes('abort cross-check'));
    assert.ok(warning, (doc.warnings ?? []).join('\n'));
    assert.match(warning, /rose by 0 during the run, the client cancelled [1-9]\d* requests mid-response; some vLLM versions do not count aborts there \(vllm#31503\)/);
  } finally {
    await sim.close();
    await metrics.close();
  }
});
