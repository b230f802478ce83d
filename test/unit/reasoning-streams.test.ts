// A reasoning model's stream in each engine's layout (test/fixtures/streams, SOURCE.md there), read
// by the real client from a loopback server that sends it event by event: which chunks are the
// reasoning and which the answer, TTFT (first token of any kind) against TTFO (first answer
// token), the token counts and where they came from, and the answer a session keeps. Then the
// tag splitter on every way a tag can be cut across chunks, and the Responses API's failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfigInput } from '../../src/format/config';
import { RequestRecordSchema, type RequestRecord } from '../../src/format/result';
import { sendRequest } from '../../src/load/client';
import { splitTagged } from '../../src/load/output';
import { estimateTokens } from '../../src/workload/tokens';
import { clientContext, meta, preparedRequest } from '../helpers/client-context';
import { repoRoot } from '../helpers/limited-child';
import { startScriptedServer, type ScriptStep } from '../helpers/sse-server';

const fixture = (name: string): string => readFileSync(join(repoRoot, 'test', 'fixtures', 'streams', name), 'utf8');

/** The file's events (and comment blocks) one by one, `gapMs` apart, so that each chunk has its own arrival. */
function paced(text: string, gapMs = 4): ScriptStep[] {
  return text
    .split(/(?<=\n\n)/)
    .filter((event) => event.trim() !== '')
    .flatMap((event): ScriptStep[] => [{ delayMs: gapMs }, event]);
}

interface Served {
  record: RequestRecord;
  reply: string;
  body: unknown;
}

async function serve(steps: ScriptStep[], endpoint: Partial<RunConfigInput['endpoint']>, request: RunConfigInput['request'] = {}): Promise<Served> {
  const server = await startScriptedServer(() => ({ steps }));
  const { context, close } = clientContext(server.baseUrl, { endpoint, request });
  try {
    let reply = '';
    const record = await sendRequest({ ...preparedRequest('Hi', 64), onReply: (text) => (reply = text) }, meta(), context);
    assert.doesNotThrow(() => RequestRecordSchema.parse(record));
    return { record, reply, body: server.requests[0]?.body };
  } finally {
    await close();
    await server.close();
  }
}

interface Expected {
  file: string;
  api: 'chat' | 'completions' | 'responses';
  tags?: string;
  /** Chunks of the reasoning phase, the first answer chunk, all chunks. */
  reasoningChunks: number;
  answerChunk: number;
  chunks: number;
  reasoning: string;
  answer: string;
  /** Reasoning tokens as the server counted them; undefined: counted here (the estimate, as the test's counter is). */
  usageReasoning?: number;
  outputTokens: number;
}

const LAYOUTS: Expected[] = [
  { file: 'vllm-0.11-chat-reasoning.sse', api: 'chat', reasoningChunks: 5, answerChunk: 5, chunks: 9, reasoning: 'Okay, the user wants', answer: '\n\nHello there!', outputTokens: 21 },
  { file: 'vllm-0.8-chat-reasoning-content.sse', api: 'chat', reasoningChunks: 6, answerChunk: 6, chunks: 9, reasoning: 'First, compare 9.11 and 9.8', answer: '9.8 is greater', outputTokens: 12 },
  { file: 'sglang-chat-reasoning-content.sse', api: 'chat', reasoningChunks: 5, answerChunk: 5, chunks: 10, reasoning: 'Let me think about it', answer: 'The answer is 4.', outputTokens: 16 },
  { file: 'deepseek-api-reasoner.sse', api: 'chat', reasoningChunks: 6, answerChunk: 6, chunks: 13, reasoning: 'Okay, so the user asks', answer: 'Hi! How can I help?', usageReasoning: 31, outputTokens: 40 },
  { file: 'llamacpp-0.7.0-chat-reasoning-content.sse', api: 'chat', reasoningChunks: 6, answerChunk: 6, chunks: 11, reasoning: ' folden at', answer: 'chere to m', outputTokens: 27 },
  // The closing tag and the answer's first characters come in one chunk: it ends the reasoning phase and opens the answer.
  { file: 'qwen3-chat-think-tags.sse', api: 'chat', tags: 'think', reasoningChunks: 10, answerChunk: 9, chunks: 14, reasoning: '\nHmm, two plus two.\n', answer: '\n\nIt is 4.', outputTokens: 18 },
  { file: 'deepseek-r1-completions-closing-tag.sse', api: 'completions', tags: 'think', reasoningChunks: 5, answerChunk: 5, chunks: 8, reasoning: 'Let us count.', answer: '\n\nThree.', outputTokens: 8 },
  { file: 'openai-responses-reasoning-summary.sse', api: 'responses', reasoningChunks: 5, answerChunk: 5, chunks: 10, reasoning: '**Planning**\n\nI will greet', answer: 'Hello! Nice to meet you.', usageReasoning: 128, outputTokens: 146 },
  { file: 'vllm-responses-reasoning-text.sse', api: 'responses', reasoningChunks: 4, answerChunk: 4, chunks: 7, reasoning: 'User says hi.', answer: 'Hi there!', usageReasoning: 4, outputTokens: 7 },
  { file: 'llamacpp-0.7.0-responses.sse', api: 'responses', reasoningChunks: 6, answerChunk: 6, chunks: 11, reasoning: ' folden at', answer: 'chere to m', outputTokens: 27 },
];

for (const expected of LAYOUTS) {
  test(`reasoning layout ${expected.file}: reasoning and answer chunks, TTFT and TTFO, tokens and their source`, async () => {
    const { record, reply, body } = await serve(paced(fixture(expected.file)), { api: expected.api, ...(expected.tags ? { reasoningTags: expected.tags } : {}) });
    assert.equal(record.error, null, record.error?.message);
    assert.equal(record.chunkMs.length, expected.chunks, 'every chunk with text, of either kind, and no other');
    const reasoning = record.reasoning;
    assert.ok(reasoning, 'the record says the response reasoned');
    assert.equal(reasoning.chunks, expected.reasoningChunks, 'chunks of the reasoning phase');
    assert.equal(reasoning.answerChunk, expected.answerChunk, 'the first answer chunk');
    // TTFT keeps its meaning: the first token of any kind, here a thought.
    assert.equal(record.firstTokenMs, record.chunkMs[0]);
    assert.equal(reasoning.firstMs, record.chunkMs[0]);
    assert.equal(reasoning.answerFirstMs, record.chunkMs[expected.answerChunk]);
    assert.ok((reasoning.answerFirstMs as number) - (record.firstTokenMs as number) >= 4 * (expected.answerChunk - 1), 'TTFO comes a chunk gap per earlier chunk after TTFT');
    assert.equal(reasoning.durationMs, (reasoning.answerFirstMs as number) - (reasoning.firstMs as number));
    assert.equal(reply, expected.answer, 'a session keeps the answer, not the thoughts');
    assert.equal(record.outputTokens, expected.outputTokens);
    assert.equal(record.outputTokensSource, 'usage');
    if (expected.usageReasoning !== undefined) {
      assert.deepEqual([reasoning.tokens, reasoning.answerTokens, reasoning.tokensSource], [expected.usageReasoning, expected.outputTokens - expected.usageReasoning, 'usage']);
    } else {
      assert.deepEqual([reasoning.tokens, reasoning.answerTokens, reasoning.tokensSource], [estimateTokens(expected.reasoning), estimateTokens(expected.answer), 'estimate']);
    }
    if (expected.api === 'responses') {
      assert.deepEqual(Object.keys(body as object).sort(), ['input', 'max_output_tokens', 'model', 'stream']);
      assert.deepEqual((body as { input: unknown }).input, [{ role: 'user', content: 'Hi' }], 'the Responses API gets the messages as input');
    }
  });
}

test('reasoning: tags in the text without --reasoning-tags are answer text (TTFO is TTFT): the flag is what splits them', async () => {
  const { record, reply } = await serve(paced(fixture('qwen3-chat-think-tags.sse')), { api: 'chat' });
  assert.equal(record.error, null);
  assert.equal(record.reasoning, undefined);
  assert.equal(record.chunkMs.length, 14);
  assert.match(reply, /^<think>\nHmm/);
});

test('reasoning: a non-streamed chat body with reasoning_content, and a Responses body with reasoning and message items', async () => {
  const chat = JSON.stringify({
    id: 'c',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', reasoning_content: 'Think think', content: 'Done' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14, completion_tokens_details: { reasoning_tokens: 6 } },
  });
  const whole = await serve([chat], { api: 'chat' }, { stream: false });
  assert.equal(whole.record.error, null);
  assert.deepEqual(whole.record.chunkMs, []);
  assert.deepEqual(whole.record.reasoning, { firstMs: null, answerFirstMs: null, chunks: 0, answerChunk: null, durationMs: null, tokens: 6, answerTokens: 3, tokensSource: 'usage' });
  assert.equal(whole.reply, 'Done');

  const responses = JSON.stringify({
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    error: null,
    output: [
      { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Some thought' }] },
      { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The answer', annotations: [] }] },
    ],
    usage: { input_tokens: 4, output_tokens: 6 },
  });
  const body = await serve([responses], { api: 'responses' }, { stream: false });
  assert.equal(body.record.error, null);
  assert.deepEqual([body.record.inputTokens, body.record.inputTokensSource, body.record.outputTokens], [4, 'usage', 6]);
  assert.deepEqual([body.record.reasoning?.tokens, body.record.reasoning?.tokensSource], [estimateTokens('Some thought'), 'estimate']);
  assert.equal(body.reply, 'The answer');
});

test('reasoning: usage that reports reasoning tokens the stream never showed (hidden thoughts) still splits the counts', async () => {
  const events = fixture('deepseek-api-reasoner.sse').replace(/data: [^\n]*"reasoning_content":"[^"]+"[^\n]*\n\n/g, '');
  const { record } = await serve(paced(events), { api: 'chat' });
  assert.equal(record.error, null);
  assert.equal(record.chunkMs.length, 7);
  assert.deepEqual(record.reasoning, {
    firstMs: null,
    answerFirstMs: record.chunkMs[0],
    chunks: 0,
    answerChunk: 0,
    durationMs: null,
    tokens: 31,
    answerTokens: 9,
    tokensSource: 'usage',
  });
});

test('Responses API: an error event fails the request with its message; response.failed too; chunks before are counted', async () => {
  const error = await serve(paced(fixture('openai-responses-error-event.sse')), { api: 'responses' });
  assert.equal(error.record.error?.kind, 'server');
  assert.match(error.record.error?.message ?? '', /error event mid-stream, after 2 content chunks: server_error: The server had an error/);
  assert.equal(error.record.chunkMs.length, 2);
  const failed = await serve(paced(fixture('openai-responses-failed.sse')), { api: 'responses' });
  assert.equal(failed.record.error?.kind, 'server');
  assert.match(failed.record.error?.message ?? '', /response\.failed\), after 1 content chunks: server_error: The model failed to generate a response/);
});

test('Responses API: a stream cut before response.completed fails as cut short; one reset mid-way fails as a reset', async () => {
  const events = fixture('vllm-responses-reasoning-text.sse');
  const cut = events.slice(0, events.indexOf('event: response.completed'));
  const ended = await serve(paced(cut), { api: 'responses' });
  assert.equal(ended.record.error?.kind, 'protocol');
  assert.match(ended.record.error?.message ?? '', /ended before its final event \(response\.completed\), after 7 content chunks: it was cut short/);
  assert.equal(ended.record.reasoning?.chunks, 4, 'the partial record keeps what came');
  const steps = paced(events);
  const reset = await serve([...steps.slice(0, 16), { reset: true }], { api: 'responses' });
  assert.equal(reset.record.error?.kind, 'reset');
});

test('tag splitter: every two-way and three-way cut of a tagged text gives the same split, and the chunks holding tags are reasoning', () => {
  const text = 'pre<think>deep thought</think>answer';
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) {
      const pieces = [text.slice(0, i), text.slice(i, j), text.slice(j)];
      const split = splitTagged(pieces, [0, 0, 0], '<think>', '</think>');
      assert.equal(split.reasoning, 'deep thought', `cut at ${i}, ${j}`);
      assert.equal(split.answer, 'preanswer', `cut at ${i}, ${j}`);
      pieces.forEach((piece, k) => {
        if (piece === '') return assert.equal(split.parts[k], 0);
        const start = pieces.slice(0, k).join('').length;
        const inBlock = start < 30 && start + piece.length > 3;
        const outside = start < 3 || start + piece.length > 30;
        assert.equal(split.parts[k], (inBlock ? 1 : 0) | (outside ? 2 : 0), `piece ${k} of cut ${i}, ${j}: '${piece}'`);
      });
    }
  }
});

test('tag splitter: a closing tag alone closes a block the prompt opened; an opening tag never closed keeps the rest as reasoning', () => {
  assert.deepEqual(splitTagged(['a b', '</thi', 'nk>', 'c'], [0, 0, 0, 0], '<think>', '</think>'), { reasoning: 'a b', answer: 'c', parts: [1, 1, 1, 2] });
  assert.deepEqual(splitTagged(['<think>', 'still', ' going'], [0, 0, 0], '<think>', '</think>'), { reasoning: 'still going', answer: '', parts: [1, 1, 1] });
  assert.deepEqual(splitTagged(['no', ' tags'], [0, 0], '<think>', '</think>'), { reasoning: '', answer: 'no tags', parts: [2, 2] });
  // A second block is answer text: only the first is the reasoning.
  assert.deepEqual(splitTagged(['<think>a</think>b<think>c</think>'], [0], '<think>', '</think>').answer, 'b<think>c</think>');
});
