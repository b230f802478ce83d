import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkTemplate } from '../../src/load/chunk-template';
import { sendRequest } from '../../src/load/client';
import { estimateTokens } from '../../src/workload/tokens';
import { clientContext, meta, preparedRequest } from '../helpers/client-context';
import { sseEvent, startScriptedServer, type ScriptStep } from '../helpers/sse-server';

const chatChunk = (content: string, finish: string | null = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

/** Reads a chat chunk's content the strict way, as the client's check does. */
const readContent = (data: string): string | null => {
  try {
    const content: unknown = JSON.parse(data).choices[0].delta.content;
    return typeof content === 'string' ? content : null;
  } catch {
    return null;
  }
};

test('chunk template: a chunk of the same shape gives its text; any other shape or a text needing JSON escapes does not match', () => {
  const template = ChunkTemplate.learn(chatChunk('Hello'), 'content', 'Hello', readContent);
  assert.ok(template);
  assert.equal(template.textOf(chatChunk(' world')), ' world');
  assert.equal(template.textOf(chatChunk('')), '');
  assert.equal(template.textOf(chatChunk('héllo ✓')), 'héllo ✓');
  // The last chunk carries a finish reason: another shape.
  assert.equal(template.textOf(chatChunk('end', 'stop')), null);
  // Escaped text (quote, backslash, newline, \u escapes) is left to JSON.parse.
  for (const text of ['say "hi"', 'a\\b', 'line\nbreak', '\u0001']) assert.equal(template.textOf(chatChunk(text)), null, JSON.stringify(text));
  assert.equal(template.textOf(chatChunk('x').replace('"x"', '"\\u0078"')), null);
  // Same prefix and suffix lengths but other bytes, and data shorter than the template.
  assert.equal(template.textOf(chatChunk('Hello').replace('"c1"', '"c2"')), null);
  assert.equal(template.textOf('{}'), null);
});

test('chunk template: no template when the text cannot be cut out with certainty', () => {
  // The text appears twice as a "content" member: which one is the delta's is not known.
  const twice = JSON.stringify({ choices: [{ index: 0, delta: { content: 'same' } }], extra: { content: 'same' } });
  assert.equal(ChunkTemplate.learn(twice, 'content', 'same', readContent), null);
  // Written with spaces or escapes the server's way: not found, so parsed every time.
  assert.equal(ChunkTemplate.learn('{"choices": [{"delta": {"content": "hi"}}]}', 'content', 'hi', readContent), null);
  // Found once, but outside the delta (the delta's text is escaped differently): the probe read shows it.
  const elsewhere = '{"note":{"content":"hi"},"choices":[{"delta":{"content":"\\u0068i"}}]}';
  assert.equal(readContent(elsewhere), 'hi');
  assert.equal(ChunkTemplate.learn(elsewhere, 'content', 'hi', readContent), null);
});

test('client: chunks read through the template give the same record as parsing each one', async (t) => {
  // Plain text, then text needing escapes, an empty delta, a different shape mid-stream, unicode, and the finish chunk.
  const pieces = ['Once', ' upon', ' a "time"', '', ' tab\there', ' café', ' ✓', ' end'];
  const steps: ScriptStep[] = [sseEvent({ id: 'c1', choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }] })];
  pieces.forEach((piece, i) => {
    steps.push({ delayMs: 5 });
    steps.push(`data: ${chatChunk(piece)}\n\n`);
    if (i === 4) steps.push(sseEvent({ id: 'c1', choices: [{ index: 0, delta: { reasoning_content: ' thinking' }, finish_reason: null }] }));
  });
  steps.push(`data: ${chatChunk('!', 'length')}\n\n`, 'data: [DONE]\n\n');
  const server = await startScriptedServer(() => ({ steps }));
  const { context, close } = clientContext(server.baseUrl);
  t.after(async () => {
    await close();
    await server.close();
  });
  const record = await sendRequest(preparedRequest(), meta(), context);
  assert.equal(record.error, null, record.error?.message);
  // 7 non-empty pieces, the reasoning chunk and the finishing "!".
  assert.equal(record.chunkMs.length, 9);
  assert.equal(record.finishReason, 'length');
  assert.equal(record.firstTokenMs, record.chunkMs[0]);
  assert.equal(record.endMs, record.chunkMs.at(-1));
  assert.equal(record.outputTokens, estimateTokens('Once upon a "time" tab\there thinking café ✓ end!'));
});
