import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendRequest } from '../../src/load/client';
import { estimateTokens } from '../../src/workload/tokens';
import { RequestRecordSchema } from '../../src/format/result';
import { clientContext, meta, preparedRequest } from '../helpers/client-context';
import {
  chatCompletionBody,
  chatStreamEvents,
  completionBody,
  completionStreamEvents,
  JSON_HEADERS,
  sseEvent,
  startScriptedServer,
  type ScriptStep,
} from '../helpers/sse-server';

/** Events with a pause before each one, so that arrival times are apart. */
const paced = (events: string[], delayMs: number): ScriptStep[] => events.flatMap((e) => [{ delayMs }, e]);

test('client: streamed chat (vLLM shape) times the first non-empty content, every content chunk, and ends at the last one', async (t) => {
  const usage = { prompt_tokens: 21, completion_tokens: 9 };
  const events = chatStreamEvents({ pieces: ['Hel', 'lo', ' there'], reasoning: ['hmm'], usage });
  // role chunk, reasoning, 3 content, finish chunk, then 80 ms later the usage chunk and [DONE]
  const steps: ScriptStep[] = [events[0] as string, ...paced(events.slice(1, 6), 30), { delayMs: 80 }, events[6] as string, events[7] as string];
  const server = await startScriptedServer(() => ({ steps }));
  const { context, close } = clientContext(server.baseUrl, {
    request: { extraBody: { ignore_eos: true, min_tokens: 16, temperature: 0, stop: ['\n\n'] } },
    endpoint: { headers: { 'X-Team': 'perf' } },
    apiKey: 'sk-test-secret',
  });
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest('Tell me a story.', 16), { index: 3, warmup: true, scheduledMs: 0 }, context);
  assert.doesNotThrow(() => RequestRecordSchema.parse(record));
  assert.equal(record.error, null);
  assert.equal(record.httpStatus, 200);
  assert.equal(record.index, 3);
  assert.equal(record.warmup, true);
  assert.equal(record.chunkMs.length, 4, 'reasoning + 3 content chunks; role, finish and usage chunks do not count');
  assert.equal(record.firstTokenMs, record.chunkMs[0]);
  assert.ok((record.firstTokenMs as number) - record.sentMs >= 25, `the role chunk is not the first token (${record.firstTokenMs} - ${record.sentMs})`);
  for (let i = 1; i < record.chunkMs.length; i++) assert.ok((record.chunkMs[i] as number) > (record.chunkMs[i - 1] as number));
  assert.equal(record.endMs, record.chunkMs.at(-1), 'end is the last content chunk, not the usage chunk');
  assert.deepEqual([record.inputTokens, record.inputTokensSource, record.outputTokens, record.outputTokensSource], [21, 'usage', 9, 'usage']);
  assert.equal(record.finishReason, 'length');
  assert.equal(record.queueMs, record.sentMs - record.scheduledMs);

  const sent = server.requests[0];
  assert.equal(sent?.path, '/v1/chat/completions');
  assert.equal(sent?.method, 'POST');
  assert.deepEqual(sent?.body, {
    model: 'test-model',
    messages: [{ role: 'user', content: 'Tell me a story.' }],
    max_tokens: 16,
    ignore_eos: true,
    min_tokens: 16,
    temperature: 0,
    stop: ['\n\n'],
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(sent?.headers.authorization, 'Bearer sk-test-secret');
  assert.equal(sent?.headers['x-team'], 'perf');
  assert.equal(sent?.headers['content-type'], 'application/json');
});

test('client: streamed chat from llama.cpp (role chunk with content null) without usage counts the whole output once', async (t) => {
  const pieces = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const server = await startScriptedServer(() => ({ steps: chatStreamEvents({ pieces, style: 'llama.cpp', finishReason: 'stop' }) }));
  const { context, close } = clientContext(server.baseUrl);
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]), meta(), context);
  assert.equal(record.error, null);
  assert.equal(record.chunkMs.length, 8);
  // 'abcdefgh' is 2 tokens by the estimate; counting per chunk would say 8
  assert.deepEqual([record.outputTokens, record.outputTokensSource], [estimateTokens('abcdefgh'), 'estimate']);
  assert.equal(record.outputTokens, 2);
  assert.deepEqual([record.inputTokens, record.inputTokensSource], [5, 'estimate']);
  assert.equal(record.finishReason, 'stop');
  assert.deepEqual((server.requests[0]?.body as { messages: unknown }).messages, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ]);
});

test('client: streamed completions, vLLM and llama.cpp shapes (usage on the finishing chunk), CRLF line ends', async (t) => {
  const usage = { prompt_tokens: 4, completion_tokens: 3 };
  const server = await startScriptedServer((_request, index) => {
    const events = completionStreamEvents({ pieces: ['Once', ' upon', ' a time'], usage, style: index === 0 ? 'vllm' : 'llama.cpp' });
    return { steps: index === 0 ? events : events.map((e) => e.replace(/\n/g, '\r\n')) };
  });
  const { context, close } = clientContext(server.baseUrl, { endpoint: { api: 'completions' } });
  t.after(async () => {
    await close();
    await server.close();
  });
  for (const index of [0, 1]) {
    const record = await sendRequest(preparedRequest([{ role: 'user', content: 'Once' }], 3), meta(index), context);
    assert.equal(record.error, null, `request ${index}`);
    assert.equal(record.chunkMs.length, 3);
    assert.deepEqual([record.inputTokens, record.outputTokens, record.outputTokensSource], [4, 3, 'usage']);
    assert.equal(record.finishReason, 'length');
    assert.equal(record.endMs, record.chunkMs[2]);
  }
  const body = server.requests[0]?.body as Record<string, unknown>;
  assert.equal(server.requests[0]?.path, '/v1/completions');
  assert.equal(body.prompt, 'Once');
  assert.equal(body.max_tokens, 3);
  assert.deepEqual(body.stream_options, { include_usage: true });
});

test('client: non-streaming chat and completions have no TTFT and no chunks, and count reasoning as output', async (t) => {
  const server = await startScriptedServer((request) => {
    const api = request.path.endsWith('/chat/completions') ? 'chat' : 'completions';
    const body = api === 'chat' ? chatCompletionBody('four words of text', undefined, 'and reasoning') : completionBody('text', { prompt_tokens: 7, completion_tokens: 1 });
    return { headers: JSON_HEADERS, steps: [{ delayMs: 20 }, body] };
  });
  t.after(() => server.close());
  for (const api of ['chat', 'completions'] as const) {
    const { context, close } = clientContext(server.baseUrl, { endpoint: { api }, request: { stream: false } });
    const record = await sendRequest(preparedRequest(), meta(), context);
    await close();
    assert.equal(record.error, null, api);
    assert.equal(record.firstTokenMs, null);
    assert.deepEqual(record.chunkMs, []);
    assert.ok(record.endMs !== null && record.endMs - record.sentMs >= 15);
    assert.equal(record.finishReason, api === 'chat' ? 'stop' : 'length');
    if (api === 'chat') assert.deepEqual([record.outputTokens, record.outputTokensSource], [estimateTokens('and reasoningfour words of text'), 'estimate']);
    else assert.deepEqual([record.inputTokens, record.outputTokens, record.outputTokensSource], [7, 1, 'usage']);
  }
  const body = server.requests[0]?.body as Record<string, unknown>;
  assert.equal(body.stream, false);
  assert.equal(body.stream_options, undefined);
});

test('client: a chunk carrying several events, and events split across reads, are all timed by their read', async (t) => {
  const events = chatStreamEvents({ pieces: ['x', 'y', 'z'], usage: { prompt_tokens: 1, completion_tokens: 3 } });
  const joined = events.join('');
  const cut = joined.indexOf('"y"') + 1;
  const server = await startScriptedServer(() => ({ steps: [joined.slice(0, cut), { delayMs: 40 }, joined.slice(cut)] }));
  const { context, close } = clientContext(server.baseUrl);
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest(), meta(), context);
  assert.equal(record.error, null);
  assert.equal(record.chunkMs.length, 3);
  const [x, y, z] = record.chunkMs as [number, number, number];
  assert.ok(y - x >= 30, 'y completes in the second read');
  assert.equal(y, z, 'y and z arrive in the same read');
  assert.equal(record.outputTokens, 3);
});

test('client: an API key never appears in a record, even in an error message', async (t) => {
  const server = await startScriptedServer((request) => ({ status: 401, headers: JSON_HEADERS, steps: [JSON.stringify({ error: { message: `bad key ${String(request.headers.authorization).length}` } })] }));
  const { context, close } = clientContext(server.baseUrl, { apiKey: 'sk-very-secret' });
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest(), meta(), context);
  assert.equal(record.error?.kind, 'http');
  assert.ok(!JSON.stringify(record).includes('sk-very-secret'));
});

test('client: a reasoning-only stream still has a first token; a stream of only [DONE] succeeds with zero output', async (t) => {
  const server = await startScriptedServer((_r, index) => {
    if (index === 0) return { steps: [sseEvent({ choices: [{ index: 0, delta: { reasoning: 'thinking' } }] }), 'data: [DONE]\n\n'] };
    return { steps: ['data: [DONE]\n\n'] };
  });
  const { context, close } = clientContext(server.baseUrl);
  t.after(async () => {
    await close();
    await server.close();
  });
  const reasoning = await sendRequest(preparedRequest(), meta(0), context);
  assert.equal(reasoning.error, null);
  assert.equal(reasoning.chunkMs.length, 1);
  assert.equal(reasoning.outputTokens, estimateTokens('thinking'));
  const empty = await sendRequest(preparedRequest(), meta(1), context);
  assert.equal(empty.error, null);
  assert.equal(empty.firstTokenMs, null);
  assert.equal(empty.outputTokens, 0);
  assert.ok(empty.endMs !== null);
});

test('client: the send time is when the request is written to a connection; waiting for one is queue time, not TTFT', async (t) => {
  // One connection, two requests handed over at once: the second can only be written once the
  // first response has ended. Each response: the first token 80 ms after the request, the last at 160 ms.
  const server = await startScriptedServer(() => ({ steps: paced(chatStreamEvents({ pieces: ['a', 'b', 'c'] }), 40) }));
  const { context, close } = clientContext(server.baseUrl, { concurrency: 1 });
  t.after(async () => {
    await close();
    await server.close();
  });
  const [first, second] = await Promise.all([sendRequest(preparedRequest(), meta(0), context), sendRequest(preparedRequest(), meta(1), context)]);
  assert.equal(first.error, null, first.error?.message);
  assert.equal(second.error, null, second.error?.message);
  const firstLatency = (first.endMs as number) - first.sentMs;
  assert.ok(firstLatency >= 150, `the first response took ${firstLatency} ms`);
  assert.ok(second.sentMs >= (first.endMs as number), `second sent at ${second.sentMs} ms, before the first response ended at ${first.endMs} ms`);
  assert.equal(second.queueMs, second.sentMs - second.scheduledMs);
  assert.ok(second.queueMs >= 150, `the wait for the connection (${second.queueMs} ms) is queue time`);
  const secondTtft = (second.firstTokenMs as number) - second.sentMs;
  assert.ok(secondTtft >= 70 && secondTtft < firstLatency, `second TTFT ${secondTtft} ms: the server's 80 ms, without the wait`);
});
