/**
 * Reasoning, the Responses API and embeddings against a real llama.cpp `llama-server` (Debian's
 * 0.7.0 build, scripts/setup.d/llama.sh). Its test model does not think by itself, so the server is
 * made to: a chat template that opens `<think>` blocks (the server's `--reasoning-format deepseek`
 * then parses them, as it does for DeepSeek-R1 and Qwen3), and a grammar sent with each request
 * that makes the model write `<think>...</think>` before its answer. What the server streams is its
 * own: `reasoning_content` deltas on chat, `response.reasoning_text.delta` events on /v1/responses,
 * or, asked for `reasoning_format: none`, the tags left in the text. Embeddings come from a second
 * server started with `--embeddings --pooling mean`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { ResultDocument, Step } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { LLAMA_MODEL_ID, LLAMA_STARTUP_LIMIT_MS, startLlamaServer, type LlamaServer } from '../helpers/llama-server';

/** A Qwen3-like template: assistant turns wrapped with their reasoning in `<think>` blocks, which the server takes as a thinking model's. */
const THINK_TEMPLATE = [
  "{%- for message in messages %}",
  "{%- if message.role == 'assistant' %}",
  "{{- '<|im_start|>assistant\\n<think>\\n' + (message.reasoning_content if message.reasoning_content is defined else '') + '\\n</think>\\n\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- else %}",
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- endif %}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
].join('');

/** Thoughts of 24 to 32 characters, then an answer of 16 to 24: both always there, whatever the model. */
const GRAMMAR = 'root ::= "<think>" [a-z ]{24,32} "</think>" [a-z ]{16,24}';

let thinking: LlamaServer | undefined;
let embedding: LlamaServer | undefined;

async function bench(server: LlamaServer | undefined, overrides: Omit<RunConfigInput, 'endpoint'> & { endpoint: Partial<RunConfigInput['endpoint']> }): Promise<Step> {
  if (server === undefined) throw new Error('llama-server did not start (see the before hook)');
  const { endpoint, ...rest } = overrides;
  const doc: ResultDocument = await runBenchmark(
    RunConfigSchema.parse({
      endpoint: { baseUrl: server.baseUrl, model: LLAMA_MODEL_ID, ...endpoint },
      workload: { kind: 'synthetic', inputTokens: 24, outputTokens: 96 },
      request: { totalTimeoutMs: 60_000, ...rest.request },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 4 },
      ...rest,
    }),
    {},
  );
  assert.equal(doc.status, 'complete', doc.statusReason ?? '');
  return doc.steps[0] as Step;
}

/** Every record split into its thoughts and its answer, as this server's stream puts them. */
function checkSplit(step: Step): void {
  for (const r of step.requests) {
    assert.equal(r.error, null, r.error?.message);
    const reasoning = r.reasoning;
    assert.ok(reasoning, 'the response reasoned');
    assert.ok(reasoning.chunks >= 2 && reasoning.answerChunk !== null && reasoning.answerChunk >= reasoning.chunks - 1, `phases: ${reasoning.chunks} reasoning chunks, answer from chunk ${reasoning.answerChunk}`);
    assert.ok(r.chunkMs.length - (reasoning.answerChunk ?? 0) >= 2, 'answer chunks follow');
    assert.equal(r.firstTokenMs, r.chunkMs[0], 'TTFT: the first token of any kind, a thought');
    assert.ok((reasoning.answerFirstMs as number) > (r.firstTokenMs as number), 'TTFO after TTFT');
    // llama.cpp's usage has no reasoning count: both parts are counted here (the estimate, this run has no tokenizer).
    assert.equal(reasoning.tokensSource, 'estimate');
    assert.ok((reasoning.tokens as number) >= 6 && (reasoning.answerTokens as number) >= 4, `${reasoning.tokens} reasoning, ${reasoning.answerTokens} answer tokens`);
    assert.equal(r.outputTokensSource, 'usage');
  }
  const summary = step.summary!;
  assert.equal(summary.ttfoMs?.count, step.requests.length);
  assert.ok((summary.ttfoMs?.p50 as number) > (summary.ttftMs?.p50 as number));
  assert.ok(summary.reasoningItlMs !== null && summary.reasoningItlMs !== undefined && summary.answerItlMs !== null && summary.answerItlMs !== undefined);
}

describe('llama.cpp llama-server: reasoning, the Responses API, embeddings (real engine)', { timeout: 600_000 }, () => {
  before(async () => {
    thinking = await startLlamaServer({ extraArgs: ['--reasoning-format', 'deepseek', '--jinja', '--chat-template', THINK_TEMPLATE] });
    embedding = await startLlamaServer({ embeddings: true });
    console.log(`llama-server ready at ${thinking.baseUrl} (reasoning) and ${embedding.baseUrl} (embeddings), serving ${thinking.model}`);
  }, { timeout: 2 * LLAMA_STARTUP_LIMIT_MS + 60_000 });
  after(() => {
    thinking?.stop();
    embedding?.stop();
  });

  test('chat: the server parses the thoughts into reasoning_content; TTFO, per-phase ITL and both token counts', { timeout: 120_000 }, async () => {
    checkSplit(await bench(thinking, { endpoint: { api: 'chat' }, request: { extraBody: { grammar: GRAMMAR } } }));
  });

  test('/v1/responses: response.reasoning_text.delta events, then the answer, then response.completed with the usage', { timeout: 120_000 }, async () => {
    const step = await bench(thinking, { endpoint: { api: 'responses' }, request: { extraBody: { grammar: GRAMMAR } } });
    checkSplit(step);
    assert.ok(step.requests.every((r) => r.inputTokensSource === 'usage'));
  });

  test('chat with reasoning_format none: the tags stay in the text, and --reasoning-tags think splits them the same way', { timeout: 120_000 }, async () => {
    const extraBody = { grammar: GRAMMAR, reasoning_format: 'none' };
    checkSplit(await bench(thinking, { endpoint: { api: 'chat', reasoningTags: 'think' }, request: { extraBody } }));
    const unsplit = await bench(thinking, { endpoint: { api: 'chat' }, request: { extraBody } });
    assert.ok(unsplit.requests.every((r) => r.error === null && r.reasoning === undefined), 'without the flag the tags are answer text');
  });

  test('embeddings: batches of 4, one vector each, the input tokens from the server\'s usage, no stream figures', { timeout: 120_000 }, async () => {
    const step = await bench(embedding, { endpoint: { api: 'embeddings' }, workload: { kind: 'synthetic', inputTokens: 24, embeddingBatch: 4 } });
    for (const r of step.requests) {
      assert.equal(r.error, null, r.error?.message);
      assert.equal(r.embeddings, 4);
      assert.equal(r.inputTokensSource, 'usage');
      assert.ok((r.inputTokens as number) >= 4 * 10, `${r.inputTokens} input tokens for 4 inputs of about 24`);
      assert.deepEqual([r.outputTokens, r.firstTokenMs], [null, null]);
    }
    const summary = step.summary!;
    assert.deepEqual([summary.ttftMs, summary.itlMs, summary.tpotMs, summary.outputTokensPerSecond], [null, null, null, null]);
    assert.ok((summary.embeddingsPerSecond as number) > 0 && (summary.inputTokensPerSecond as number) > 0);
  });
});
