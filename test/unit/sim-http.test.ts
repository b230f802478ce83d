import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateTokens } from '../../src/workload/tokens';
import { sendRequest } from '../../src/load/client';
import { startSimServer, type SimServer } from '../../src/sim';
import { clientContext, meta } from '../helpers/client-context';

let sim: SimServer;
before(async () => {
  sim = await startSimServer({ preset: 'tiny', seed: 7 });
});
after(() => sim.close());

const post = (path: string, body: unknown, server: SimServer = sim) =>
  fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The `data:` payloads of an SSE body, JSON-parsed except `[DONE]`. */
function events(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}

type Chunk = { choices: { delta?: { role?: string; content?: string }; text?: string; finish_reason: string | null }[]; usage?: Record<string, number> };

const messages = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Count the tokens of this sentence, please.' },
];
const promptTokens = estimateTokens(messages.map((m) => m.content).join(''));

test('GET /v1/models names the served model, /health answers 200', async () => {
  const models = (await (await fetch(`${sim.baseUrl}/models`)).json()) as { object: string; data: { id: string }[] };
  assert.equal(models.object, 'list');
  assert.deepEqual(
    models.data.map((m) => m.id),
    [sim.model],
  );
  assert.equal((await fetch(`http://127.0.0.1:${sim.port}/health`)).status, 200);
});

test('streaming chat: role chunk first, content chunks, finish reason, then usage when asked, then [DONE]', async () => {
  const res = await post('/chat/completions', {
    model: sim.model,
    messages,
    max_tokens: 12,
    ignore_eos: true,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const all = events(await res.text());
  assert.equal(all.at(-1), '[DONE]');
  const chunks = all.slice(0, -1) as Chunk[];
  assert.deepEqual(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: '' });
  const usageChunk = chunks.at(-1) as Chunk;
  assert.deepEqual(usageChunk.choices, []);
  const content = chunks.slice(1, -1);
  assert.equal(content.length, 12, 'one chunk per token');
  assert.ok(content.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null));
  assert.equal(content.at(-1)?.choices[0]?.finish_reason, 'length');
  const text = content.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.equal(usageChunk.usage?.completion_tokens, 12);
  assert.equal(estimateTokens(text), 12, "the documented estimate over the text equals the server's count");
  assert.equal(usageChunk.usage?.prompt_tokens, promptTokens);
  assert.equal(usageChunk.usage?.total_tokens, promptTokens + 12);
});

test('streaming chat without include_usage sends no usage chunk', async () => {
  const res = await post('/chat/completions', { model: sim.model, messages, max_tokens: 3, ignore_eos: true, stream: true });
  const chunks = events(await res.text()).slice(0, -1) as Chunk[];
  assert.equal(chunks.length, 4);
  assert.ok(chunks.every((c) => c.usage === undefined && c.choices.length === 1));
});

test('streaming completions put usage on the final chunk, with the finish reason', async () => {
  const res = await post('/completions', { model: sim.model, prompt: 'Once upon a time', max_tokens: 5, ignore_eos: true, stream: true });
  const all = events(await res.text());
  assert.equal(all.at(-1), '[DONE]');
  const chunks = all.slice(0, -1) as Chunk[];
  assert.equal(chunks.length, 5);
  const last = chunks.at(-1) as Chunk;
  assert.equal(last.choices[0]?.finish_reason, 'length');
  assert.deepEqual(
    { prompt: last.usage?.prompt_tokens, completion: last.usage?.completion_tokens },
    { prompt: estimateTokens('Once upon a time'), completion: 5 },
  );
  assert.equal(estimateTokens(chunks.map((c) => c.choices[0]?.text ?? '').join('')), 5);
});

test('non-streaming chat and completions return the whole text with usage', async () => {
  const chat = (await (await post('/chat/completions', { model: sim.model, messages, max_completion_tokens: 9, ignore_eos: true })).json()) as {
    object: string;
    choices: { message: { role: string; content: string }; finish_reason: string }[];
    usage: { completion_tokens: number; prompt_tokens: number };
  };
  assert.equal(chat.object, 'chat.completion');
  assert.equal(chat.choices[0]?.message.role, 'assistant');
  assert.equal(estimateTokens(chat.choices[0]?.message.content ?? ''), 9);
  assert.deepEqual(chat.usage.completion_tokens, 9);
  const completion = (await (await post('/completions', { model: sim.model, prompt: ['A one-prompt list'] })).json()) as {
    object: string;
    choices: { text: string }[];
    usage: { completion_tokens: number };
  };
  assert.equal(completion.object, 'text_completion');
  assert.ok(completion.usage.completion_tokens <= 16, "completions default to vLLM's 16 tokens at most");
  assert.equal(estimateTokens(completion.choices[0]?.text ?? ''), completion.usage.completion_tokens);
});

test('without ignore_eos a reply may end by itself before max_tokens, with finish reason stop', async () => {
  const replies = await Promise.all(
    Array.from({ length: 12 }, async () => {
      const body = (await (await post('/completions', { model: sim.model, prompt: 'Tell me', max_tokens: 150 })).json()) as {
        choices: { finish_reason: string }[];
        usage: { completion_tokens: number };
      };
      return { reason: body.choices[0]?.finish_reason, tokens: body.usage.completion_tokens };
    }),
  );
  assert.ok(replies.every((r) => r.tokens >= 1 && r.tokens <= 150));
  assert.ok(replies.every((r) => (r.reason === 'length') === (r.tokens === 150)));
  assert.ok(
    replies.some((r) => r.reason === 'stop'),
    'with a natural mean of 64 tokens some of 12 replies stop before 150',
  );
  const floor = (await (await post('/completions', { model: sim.model, prompt: 'Tell me', max_tokens: 150, min_tokens: 140 })).json()) as {
    usage: { completion_tokens: number };
  };
  assert.ok(floor.usage.completion_tokens >= 140, 'min_tokens holds the reply to at least that length');
});

test('requests the engine would refuse get vLLM-like 400 and 404 errors', async () => {
  const maxLen = sim.config.engine.maxModelLen;
  const long = await post('/completions', { model: sim.model, prompt: 'x'.repeat(4 * maxLen), max_tokens: 1 });
  assert.equal(long.status, 400);
  assert.match(((await long.json()) as { error: { message: string } }).error.message, new RegExp(`maximum context length is ${maxLen} tokens`));

  const tooMany = await post('/chat/completions', { model: sim.model, messages, max_tokens: maxLen });
  assert.equal(tooMany.status, 400);
  const error = ((await tooMany.json()) as { error: { message: string; type: string; code: number } }).error;
  assert.equal(error.type, 'BadRequestError');
  assert.equal(error.code, 400);
  assert.match(error.message, new RegExp(`you requested ${promptTokens + maxLen} tokens \\(${promptTokens} in the input, ${maxLen} in the completion\\)`));

  assert.equal((await post('/chat/completions', '{"model": ')).status, 400);
  const noMessages = await post('/chat/completions', { model: sim.model });
  assert.equal(noMessages.status, 400);
  assert.match(((await noMessages.json()) as { error: { message: string } }).error.message, /messages/);
  const wrongModel = await post('/chat/completions', { model: 'gpt-9', messages });
  assert.equal(wrongModel.status, 404);
  assert.match(((await wrongModel.json()) as { error: { message: string } }).error.message, /gpt-9/);
  assert.equal((await fetch(`http://127.0.0.1:${sim.port}/v2/nothing`)).status, 404);
});

test("the engine's client measures the simulator: counts from usage, one chunk per token", async () => {
  for (const api of ['chat', 'completions'] as const) {
    const { context, close } = clientContext(sim.baseUrl, {
      endpoint: { model: sim.model, api },
      request: { extraBody: { ignore_eos: true } },
    });
    try {
      const record = await sendRequest({ prompt: 'Measure me, simulator.', maxTokens: 20, inputTokens: { count: 6, source: 'estimate' } }, meta(), context);
      assert.equal(record.error, null, `${api}: ${record.error?.message}`);
      assert.equal(record.outputTokens, 20);
      assert.equal(record.outputTokensSource, 'usage');
      assert.equal(record.inputTokens, estimateTokens('Measure me, simulator.'));
      assert.equal(record.chunkMs.length, 20);
      assert.equal(record.finishReason, 'length');
      assert.ok(record.firstTokenMs !== null && record.endMs !== null && record.firstTokenMs <= record.endMs);
    } finally {
      await close();
    }
  }
});

test('/metrics shows running and waiting requests, KV usage and token counters with vLLM names', async () => {
  const server = await startSimServer({ preset: 'tiny', engine: { maxNumSeqs: 4 } });
  try {
    const inFlight = Array.from({ length: 6 }, () =>
      post('/completions', { model: server.model, prompt: 'p'.repeat(400), max_tokens: 400, ignore_eos: true }, server).then((r) => r.json()),
    );
    // Poll (bounded) until all six have arrived: four running, two waiting, four prompts prefilled.
    let text = '';
    const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
    let mostRunning = 0;
    for (let i = 0; i < 200; i++) {
      text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      mostRunning = Math.max(mostRunning, value('vllm:num_requests_running'));
      if (value('vllm:num_requests_waiting') === 2 && value('vllm:prompt_tokens_total') === 400) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(value('vllm:num_requests_running'), 4, `max-num-seqs 4 caps the batch: ${text}`);
    assert.equal(value('vllm:num_requests_waiting'), 2);
    assert.equal(value('vllm:prompt_tokens_total'), 400, 'the four admitted prompts of 100 tokens');
    assert.ok(mostRunning <= 4, `never more than 4 running (saw ${mostRunning})`);
    assert.ok(value('vllm:gpu_cache_usage_perc') > 0);
    assert.ok(value('vllm:generation_tokens_total') > 0);
    await Promise.all(inFlight);
    text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    assert.equal(value('vllm:num_requests_running'), 0);
    assert.equal(value('vllm:generation_tokens_total'), 2400);
    assert.match(text, /^vllm:request_success_total\{model_name="sim-tiny",finished_reason="length"\} 6$/m);
    assert.match(text, /^vllm:time_to_first_token_seconds_count\{model_name="sim-tiny"\} 6$/m);
    assert.match(text, /^# TYPE vllm:e2e_request_latency_seconds histogram$/m);
  } finally {
    await server.close();
  }
});

test('the generated-token counter moves per token as a stream goes, as vLLM\'s does per iteration, not when the request finishes', async () => {
  // One request of 300 tokens at 2 ms a step: the counter, read while the reply streams, matches the
  // tokens the client has received so far within a few steps, and is neither 0 nor 300 mid-way.
  const server = await startSimServer({ preset: 'tiny', hardware: { stepBaseMs: 2, decodePerSeqMs: 0, prefillTokensPerSec: 1_000_000, requestOverheadMs: 0, outputPerSeqMs: 0 } });
  try {
    const response = await post('/completions', { model: server.model, prompt: 'p'.repeat(40), max_tokens: 300, ignore_eos: true, stream: true }, server);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = 0;
    let text = '';
    const readings: [number, number][] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      received = (text.match(/"text":"[^"]/g) ?? []).length;
      if (received > 50 && received < 250 && readings.length < 5) {
        const metrics = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
        const counter = Number(/^vllm:generation_tokens_total\{[^}]*\} (\S+)$/m.exec(metrics)?.[1]);
        const after = (text.match(/"text":"[^"]/g) ?? []).length;
        readings.push([received, counter]);
        assert.ok(counter >= received && counter <= after + 40, `mid-stream: the client had ${received} tokens, the server counted ${counter}`);
      }
    }
    assert.ok(readings.length >= 2, `read the counter mid-stream ${readings.length} times`);
    assert.ok(readings.every(([, counter]) => counter > 0 && counter < 300), `never 0 or the whole reply mid-way: ${JSON.stringify(readings)}`);
  } finally {
    await server.close();
  }
});

test('the same seed gives the same replies; another seed gives others', async () => {
  const replies = async (seed: number): Promise<string[]> => {
    const server = await startSimServer({ preset: 'tiny', seed });
    try {
      const texts: string[] = [];
      for (let i = 0; i < 4; i++) {
        const body = (await (await post('/completions', { model: server.model, prompt: 'Same prompt', max_tokens: 40 }, server)).json()) as {
          choices: { text: string }[];
        };
        texts.push(body.choices[0]?.text ?? '');
      }
      return texts;
    } finally {
      await server.close();
    }
  };
  const first = await replies(3);
  assert.deepEqual(await replies(3), first);
  assert.notDeepEqual(await replies(4), first);
});
