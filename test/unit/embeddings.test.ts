// Embeddings (`--api embeddings`): the request a batch makes, the record (latency, input tokens from
// usage, vectors returned, no TTFT and no output tokens), the step figures, the simulator's latency
// growing with the batch's tokens, and a server that returns fewer vectors than inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, RequestRecordSchema } from '../../src/format/result';
import { sendRequest } from '../../src/load/client';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer } from '../../src/sim';
import { clientContext, meta } from '../helpers/client-context';
import { JSON_HEADERS, startScriptedServer } from '../helpers/sse-server';

const run = async (input: RunConfigInput) => ResultDocumentSchema.parse(await runBenchmark(RunConfigSchema.parse(input), {}));

test('embeddings against the simulator: batches of the workload\'s prompts, one vector each, counted by usage; no stream figures', async () => {
  const sim = await startSimServer({ preset: 'tiny', embeddingDim: 16 });
  try {
    const doc = await run({
      endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'embeddings' },
      workload: { kind: 'synthetic', inputTokens: 32, embeddingBatch: 4 },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 6 },
      serverMetrics: { url: 'off' },
    });
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    assert.equal(doc.endpoint.api, 'embeddings');
    const step = doc.steps[0]!;
    for (const record of step.requests) {
      assert.equal(record.error, null);
      assert.equal(record.embeddings, 4);
      assert.deepEqual([record.inputTokens, record.inputTokensSource], [4 * 32, 'usage']);
      assert.deepEqual([record.outputTokens, record.outputTokensSource, record.firstTokenMs, record.chunkMs], [null, null, null, []]);
      assert.ok((record.endMs as number) > record.sentMs);
    }
    const traces = await sim.trace();
    assert.deepEqual(traces.map((t) => [t.api, t.inputs, t.promptTokens]), Array.from({ length: 6 }, () => ['embeddings', 4, 128]));
    const summary = step.summary!;
    assert.deepEqual([summary.ttftMs, summary.itlMs, summary.tpotMs, summary.outputTokensPerSecond], [null, null, null, null], 'no TTFT, ITL, TPOT or output rate: null, never 0');
    assert.ok(Math.abs((summary.embeddingsPerSecond as number) - 4 * (summary.requestsPerSecond as number)) < 1e-9);
    assert.ok(Math.abs((summary.inputTokensPerSecond as number) - 128 * (summary.requestsPerSecond as number)) < 1e-9);
    assert.equal(summary.latencyMs?.count, 6);
  } finally {
    await sim.close();
  }
});

test('the simulator\'s embeddings latency grows with the batch\'s tokens (prefill at its programmed rate)', async () => {
  // 20,000 tokens/s of prefill: 1 input of 256 tokens is about 13 ms of compute, 16 of them about 200 ms.
  const sim = await startSimServer({ preset: 'tiny', hardware: { prefillTokensPerSec: 20_000 }, embeddingDim: 8 });
  try {
    const latency = async (batch: number): Promise<number> => {
      const doc = await run({
        endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'embeddings' },
        workload: { kind: 'synthetic', inputTokens: 256, embeddingBatch: batch },
        limits: { requests: 3 },
        serverMetrics: { url: 'off' },
      });
      return doc.steps[0]!.summary!.latencyMs!.p50 as number;
    };
    const one = await latency(1);
    const sixteen = await latency(16);
    assert.ok(one > 12, `one input: ${one} ms`);
    // 15 more inputs are 3,840 more tokens: 192 ms more of prefill at 20,000 tokens/s (a busy machine only adds).
    assert.ok(sixteen - one > 0.8 * 192, `sixteen inputs (${sixteen} ms) against one (${one} ms)`);
  } finally {
    await sim.close();
  }
});

test('embeddings request body; a server that returns fewer vectors than inputs fails the request; base64 vectors count too', async () => {
  const answers = [
    { data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }, { object: 'embedding', index: 1, embedding: [0.3, 0.4] }], usage: { prompt_tokens: 9, total_tokens: 9 } },
    { data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], usage: { prompt_tokens: 9, total_tokens: 9 } },
    { object: 'list', data: [{ object: 'embedding', index: 0, embedding: 'zczMPc3MTD4=' }, { object: 'embedding', index: 1, embedding: 'mpmZPs3MzD4=' }] },
  ];
  const server = await startScriptedServer((_, index) => ({ headers: JSON_HEADERS, steps: [JSON.stringify(answers[index])] }));
  const { context, close } = clientContext(server.baseUrl, { endpoint: { api: 'embeddings' }, request: { extraBody: { dimensions: 2 } } });
  try {
    const request = { prompt: 'first text', inputs: ['first text', 'second text'], inputTokens: { count: 6, source: 'estimate' as const } };
    const ok = await sendRequest(request, meta(0), context);
    assert.doesNotThrow(() => RequestRecordSchema.parse(ok));
    assert.equal(ok.error, null);
    assert.deepEqual([ok.embeddings, ok.inputTokens, ok.inputTokensSource, ok.outputTokens], [2, 9, 'usage', null]);
    assert.deepEqual(server.requests[0]?.body, { model: 'test-model', input: ['first text', 'second text'], encoding_format: 'float', dimensions: 2 }, 'no stream field: an embeddings request does not stream');
    assert.equal(server.requests[0]?.path, '/v1/embeddings');
    assert.equal(server.requests[0]?.headers.accept, 'application/json');
    const short = await sendRequest(request, meta(1), context);
    assert.equal(short.error?.kind, 'protocol');
    assert.match(short.error?.message ?? '', /returned 1 embeddings for the 2 inputs sent/);
    const base64 = await sendRequest(request, meta(2), context);
    assert.equal(base64.error, null);
    assert.deepEqual([base64.embeddings, base64.inputTokens, base64.inputTokensSource], [2, 6, 'estimate'], 'without usage the workload\'s own count stays');
  } finally {
    await close();
    await server.close();
  }
});

test('an embeddings run refuses what it cannot do: sessions, and a batch for another API', () => {
  const base = { endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', api: 'embeddings' as const }, limits: { requests: 1 } };
  assert.match(RunConfigSchema.safeParse({ ...base, sessions: { turns: 2 } }).error?.message ?? '', /embeddings have no conversation/);
  assert.match(RunConfigSchema.safeParse({ ...base, endpoint: { ...base.endpoint, api: 'chat' }, workload: { kind: 'synthetic', embeddingBatch: 4 } }).error?.message ?? '', /embedding batch applies to api embeddings only/);
});
