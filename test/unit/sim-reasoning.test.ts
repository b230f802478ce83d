// Reasoning against the simulator, its ground truth: each field name it can imitate on chat, the
// Responses API and completions, streamed and whole; then records and summaries of a known split
// (N reasoning tokens at the model's pace, then M answer tokens) against the simulator's own trace,
// within the margins of test/unit/sim-timing.test.ts; a run without reasoning has none of the
// figures; and a session keeps only the answers in its history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, type RequestRecord } from '../../src/format/result';
import { sendRequest } from '../../src/load/client';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer } from '../../src/sim';
import type { ReasoningField } from '../../src/sim/protocol';
import { clientContext, meta } from '../helpers/client-context';
import { repoRoot } from '../helpers/limited-child';
import { startScriptedServer } from '../helpers/sse-server';

const workerScript = join(repoRoot, 'dist', 'sim-worker.js');
const hardware = { stepBaseMs: 4, decodePerSeqMs: 0.25, prefillTokensPerSec: 100_000, requestOverheadMs: 2, outputPerSeqMs: 0.02 };
const STEP_MS = hardware.stepBaseMs + hardware.decodePerSeqMs;

const CASES: { api: 'chat' | 'responses' | 'completions'; field: ReasoningField }[] = [
  { api: 'chat', field: 'reasoning' },
  { api: 'chat', field: 'reasoning_content' },
  { api: 'chat', field: 'tags' },
  { api: 'responses', field: 'reasoning' },
  { api: 'responses', field: 'tags' },
  // Completions have no reasoning field: the simulator writes the tags into the text, as vLLM does.
  { api: 'completions', field: 'reasoning' },
];

for (const { api, field } of CASES) {
  test(`simulator reasoning, ${api} with field ${field}: 5 reasoning then 4 answer tokens, streamed and whole`, async () => {
    const sim = await startSimServer({ preset: 'tiny', seed: 3, reasoning: { tokens: 5, field } });
    const tagged = field === 'tags' || api === 'completions';
    for (const stream of [true, false]) {
      const { context, close } = clientContext(sim.baseUrl, {
        endpoint: { model: sim.model, api, ...(tagged ? { reasoningTags: 'think' } : {}) },
        request: { stream, extraBody: { ignore_eos: true } },
      });
      try {
        let reply = '';
        const record = await sendRequest({ prompt: 'Think first, then answer.', maxTokens: 9, inputTokens: { count: 6, source: 'estimate' }, onReply: (text) => (reply = text) }, meta(), context);
        assert.equal(record.error, null, record.error?.message);
        assert.equal(record.outputTokens, 9);
        const reasoning = record.reasoning;
        assert.ok(reasoning, 'the response reasoned');
        // The server counts the thoughts in its usage only when it parsed them; with tags the client counts them (the estimate, exact against the simulator).
        assert.deepEqual([reasoning.tokens, reasoning.answerTokens, reasoning.tokensSource], [5, 4, tagged ? 'estimate' : 'usage']);
        assert.equal(reply.length, 4 * 4, 'the answer: 4 tokens of 4 characters, no thoughts, no tags');
        if (!stream) {
          assert.deepEqual([reasoning.chunks, reasoning.answerChunk, reasoning.firstMs, reasoning.answerFirstMs], [0, null, null, null]);
          continue;
        }
        assert.equal(record.chunkMs.length, 9, 'a chunk per token');
        // With tags, the chunk that brings `</think>` also brings the first answer piece.
        assert.deepEqual([reasoning.chunks, reasoning.answerChunk], tagged ? [6, 5] : [5, 5]);
        assert.equal(reasoning.answerFirstMs, record.chunkMs[5]);
      } finally {
        await close();
      }
    }
    const traces = await sim.trace();
    assert.deepEqual(traces.map((t) => t.reasoningTokens), [5, 5]);
    await sim.close();
  });
}

test('a known split against the simulator\'s trace: TTFO, reasoning duration, per-phase ITL and the token counts, record by record and in the summary', async () => {
  const N = 8;
  const M = 6;
  const sim = await startSimServer({ preset: 'tiny', hardware, reasoning: { tokens: N }, inWorker: true, workerScript });
  const logs: string[] = [];
  try {
    const doc = ResultDocumentSchema.parse(
      await runBenchmark(
        RunConfigSchema.parse({
          endpoint: { baseUrl: sim.baseUrl, model: sim.model },
          workload: { kind: 'synthetic', inputTokens: 64, outputTokens: N + M },
          request: { extraBody: { ignore_eos: true } },
          profile: { kind: 'synchronous' },
          limits: { requests: 6 },
          serverMetrics: { url: 'off' },
        }),
        { onEvent: (e) => e.type === 'log' && logs.push(e.message) },
      ),
    );
    assert.ok(!logs.some((m) => /Reasoning and answer tokens/.test(m)), 'the server counted the thoughts: no note on the counts');
    const step = doc.steps[0]!;
    const traces = (await sim.trace()).sort((x, y) => x.index - y.index);
    const records = [...step.requests].sort((x, y) => x.index - y.index);
    assert.equal(records.length, 6);
    const median = (values: number[]): number => values.sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
    const ttfoGaps: number[] = [];
    const reasoningItlGaps: number[] = [];
    const answerItlGaps: number[] = [];
    records.forEach((record: RequestRecord, i) => {
      const trace = traces[i]!;
      const r = record.reasoning!;
      assert.deepEqual([r.chunks, r.answerChunk, r.tokens, r.answerTokens, r.tokensSource], [N, N, N, M, 'usage']);
      // In model time the answer begins N decode steps after the first thought, exactly.
      const modelTtfoMinusTtft = (trace.tokenMs[N] as number) - (trace.tokenMs[0] as number);
      assert.ok(Math.abs(modelTtfoMinusTtft - N * STEP_MS) < 1e-6, `model: ${modelTtfoMinusTtft}`);
      ttfoGaps.push(Math.abs((r.answerFirstMs as number) - (record.firstTokenMs as number) - modelTtfoMinusTtft));
      assert.ok(Math.abs((r.durationMs as number) - ((r.answerFirstMs as number) - (r.firstMs as number))) < 1e-6);
      const chunks = record.chunkMs;
      reasoningItlGaps.push(Math.abs(((chunks[N - 1] as number) - (chunks[0] as number)) / (N - 1) - STEP_MS));
      answerItlGaps.push(Math.abs(((chunks.at(-1) as number) - (chunks[N] as number)) / (M - 1) - STEP_MS));
    });
    // The margins of sim-timing.test.ts: medians within 2 ms of the model's times on a shared machine.
    assert.ok(median(ttfoGaps) < 2, `median |client (TTFO - TTFT) - model| ${median(ttfoGaps)} ms`);
    assert.ok(median(reasoningItlGaps) < 2, `median reasoning ITL error ${median(reasoningItlGaps)} ms`);
    assert.ok(median(answerItlGaps) < 2, `median answer ITL error ${median(answerItlGaps)} ms`);
    const summary = step.summary!;
    assert.deepEqual([summary.reasoningTokens?.min, summary.reasoningTokens?.max, summary.answerTokens?.min, summary.answerTokens?.max], [N, N, M, M]);
    assert.equal(summary.ttfoMs?.count, 6);
    assert.ok(Math.abs((summary.ttfoMs?.p50 as number) - (summary.ttftMs?.p50 as number) - N * STEP_MS) < 2, `TTFO p50 ${summary.ttfoMs?.p50}, TTFT p50 ${summary.ttftMs?.p50}`);
    assert.ok(Math.abs((summary.reasoningMs?.p50 as number) - N * STEP_MS) < 2, `reasoning p50 ${summary.reasoningMs?.p50}`);
    assert.ok(Math.abs((summary.reasoningItlMs?.p50 as number) - STEP_MS) < 2, `reasoning ITL p50 ${summary.reasoningItlMs?.p50}`);
    assert.ok(Math.abs((summary.answerItlMs?.p50 as number) - STEP_MS) < 2, `answer ITL p50 ${summary.answerItlMs?.p50}`);
    assert.ok(Math.abs((summary.reasoningTpotMs?.p50 as number) - STEP_MS) < 2, `reasoning TPOT p50 ${summary.reasoningTpotMs?.p50}`);
    assert.ok(Math.abs((summary.answerTpotMs?.p50 as number) - STEP_MS) < 2, `answer TPOT p50 ${summary.answerTpotMs?.p50}`);
  } finally {
    await sim.close();
  }
});

test('phases at different paces (a scripted server: thoughts every 10 ms, the answer every 30 ms) come apart in the per-phase ITL', async () => {
  const events = ['data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'];
  const steps: (string | { delayMs: number })[] = [events[0]!, { delayMs: 20 }];
  for (let i = 0; i < 8; i++) steps.push(`data: {"choices":[{"index":0,"delta":{"reasoning":"t${i} "}}]}\n\n`, { delayMs: 10 });
  for (let i = 0; i < 6; i++) steps.push({ delayMs: 20 }, `data: {"choices":[{"index":0,"delta":{"content":"a${i} "}}]}\n\n`, { delayMs: 10 });
  steps.push('data: [DONE]\n\n');
  const server = await startScriptedServer(() => ({ steps }));
  try {
    const config: RunConfigInput = { endpoint: { baseUrl: server.baseUrl, model: 'm' }, workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 14 }, limits: { requests: 3 }, serverMetrics: { url: 'off' } };
    const logs: { level: string; message: string }[] = [];
    const summary = (await runBenchmark(RunConfigSchema.parse(config), { onEvent: (e) => e.type === 'log' && logs.push(e) })).steps[0]!.summary!;
    // No usage came: the split was estimated, and the run says so where its table is printed.
    assert.ok(
      logs.some((l) => l.level === 'warn' && l.message.startsWith('Reasoning and answer tokens of 3 responses are estimates (characters / 4)')),
      JSON.stringify(logs),
    );
    assert.ok(Math.abs((summary.reasoningItlMs?.p50 as number) - 10) < 4, `reasoning ITL p50 ${summary.reasoningItlMs?.p50}`);
    assert.ok(Math.abs((summary.answerItlMs?.p50 as number) - 30) < 4, `answer ITL p50 ${summary.answerItlMs?.p50}`);
    assert.ok((summary.ttfoMs?.p50 as number) - (summary.ttftMs?.p50 as number) >= 8 * 10 + 20 - 4, 'TTFO waits for the thoughts');
  } finally {
    await server.close();
  }
});

test('a run against the simulator without reasoning has no reasoning figures in its summary nor records', async () => {
  const sim = await startSimServer({ preset: 'tiny' });
  try {
    const doc = await runBenchmark(
      RunConfigSchema.parse({ endpoint: { baseUrl: sim.baseUrl, model: sim.model }, workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 8 }, limits: { requests: 3 }, serverMetrics: { url: 'off' } }),
      {},
    );
    const summary = doc.steps[0]!.summary!;
    assert.ok(!Object.keys(summary).some((key) => /ttfo|reasoning|answer/i.test(key)), Object.keys(summary).join(', '));
    assert.ok(doc.steps[0]!.requests.every((r) => r.reasoning === undefined));
  } finally {
    await sim.close();
  }
});

for (const api of ['chat', 'responses'] as const) {
  test(`sessions over ${api}: each turn resends the whole conversation, its assistant turns the answers without the thoughts`, async () => {
    const file = api === 'chat' ? 'deepseek-api-reasoner.sse' : 'vllm-responses-reasoning-text.sse';
    const stream = readFileSync(join(repoRoot, 'test', 'fixtures', 'streams', file), 'utf8');
    const server = await startScriptedServer(() => ({ steps: [stream] }));
    try {
      const config: RunConfigInput = {
        endpoint: { baseUrl: server.baseUrl, model: 'm', api },
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 16 },
        sessions: { turns: 3 },
        limits: { requests: 3 },
        serverMetrics: { url: 'off' },
      };
      const started = performance.now();
      const doc = await runBenchmark(RunConfigSchema.parse(config), {});
      assert.ok(performance.now() - started < 10_000);
      assert.equal(doc.status, 'complete', doc.statusReason ?? '');
      // The run first asks GET /v1/models (the engine probe); the turns are the POSTs.
      const third = server.requests.filter((r) => r.method === 'POST')[2]?.body as { messages?: { role: string; content: string }[]; input?: { role: string; content: string }[] };
      const history = (api === 'chat' ? third.messages : third.input) ?? [];
      assert.deepEqual(history.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
      const answer = api === 'chat' ? 'Hi! How can I help?' : 'Hi there!';
      assert.deepEqual(history.filter((m) => m.role === 'assistant').map((m) => m.content), [answer, answer]);
      if (api === 'responses') assert.ok(!('previous_response_id' in (third as object)), 'no server-side state: the history is resent');
    } finally {
      await server.close();
    }
  });
}
