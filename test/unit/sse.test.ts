import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from '../../src/load/sse';
import { createRandom, type Random } from '../../src/workload/random';
import { chatStreamEvents, completionStreamEvents } from '../helpers/sse-server';

type Event = { data: string; type: string };

function parseAll(parts: Uint8Array[]): { events: Event[]; cut: boolean } {
  const events: Event[] = [];
  const parser = new SseParser((data, type) => events.push({ data, type }));
  for (const part of parts) parser.push(part);
  const cut = parser.end();
  return { events, cut };
}

/** Cuts bytes at random places: sometimes one byte at a time, sometimes big pieces. */
function randomSplit(bytes: Uint8Array, random: Random): Uint8Array[] {
  const parts: Uint8Array[] = [];
  const maxPiece = random.next() < 0.3 ? 2 : random.next() < 0.5 ? 16 : 200;
  for (let i = 0; i < bytes.length; ) {
    const size = random.int(1, maxPiece);
    parts.push(bytes.subarray(i, i + size));
    i += size;
  }
  return parts;
}

/** Rewrites a LF-ended stream with another line end. */
function withLineEnd(stream: string, lineEnd: '\n' | '\r\n' | '\r'): string {
  return stream.replace(/\n/g, lineEnd);
}

const chatVllm = chatStreamEvents({
  pieces: ['Hello', ', wörld', ' 你好', ' 🙂🙂', '\n', ' "quoted" \\ end'],
  reasoning: ['Think ', 'é…'],
  usage: { prompt_tokens: 12, completion_tokens: 8 },
});
const completionsLlama = completionStreamEvents({ pieces: ['Once', ' upon', ' a ⏰ time'], usage: { prompt_tokens: 3, completion_tokens: 3 }, style: 'llama.cpp' });

/** What a stream holds, event by event: each data payload of the builders above. */
const dataOf = (events: string[]): Event[] => events.map((e) => ({ data: e.slice('data: '.length, -2), type: 'message' }));

const streams: Array<{ name: string; text: string; expected: Event[] }> = [
  { name: 'vLLM chat with reasoning and usage', text: chatVllm.join(''), expected: dataOf(chatVllm) },
  { name: 'llama.cpp completions', text: completionsLlama.join(''), expected: dataOf(completionsLlama) },
  {
    name: 'comments, keep-alives, id/retry fields and multi-line data',
    text: ': connected\n\nretry: 100\nid: 7\ndata: {"a":\ndata:  1}\n\n: ping\n\n:\ndata:x\ndata\ndata: y\n\nevent: ping\nid: 8\n\n' + chatVllm.join(''),
    expected: [{ data: '{"a":\n 1}', type: 'message' }, { data: 'x\n\ny', type: 'message' }, ...dataOf(chatVllm)],
  },
  {
    name: 'an error event mid-stream',
    text: chatVllm.slice(0, 3).join('') + 'event: error\ndata: {"error":{"message":"KV cache exhausted","code":500}}\n\n',
    expected: [...dataOf(chatVllm.slice(0, 3)), { data: '{"error":{"message":"KV cache exhausted","code":500}}', type: 'error' }],
  },
];

for (const { name, text, expected } of streams) {
  for (const lineEnd of ['\n', '\r\n', '\r'] as const) {
    test(`SSE: ${name}, ${JSON.stringify(lineEnd)} line ends, whole and under 300 random splits`, () => {
      const bytes = new TextEncoder().encode(withLineEnd(text, lineEnd));
      assert.deepEqual(parseAll([bytes]).events, expected);
      const random = createRandom(bytes.length + lineEnd.length);
      for (let round = 0; round < 300; round++) {
        const { events, cut } = parseAll(randomSplit(bytes, random));
        assert.deepEqual(events, expected, `round ${round}`);
        assert.equal(cut, false);
      }
    });
  }
}

test('SSE: every two-way split of a CRLF stream, including inside CRLF and inside multi-byte characters', () => {
  const bytes = new TextEncoder().encode(withLineEnd(chatVllm.join(''), '\r\n'));
  const expected = dataOf(chatVllm);
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)]).events, expected, `cut at ${cut}`);
  }
});

test('SSE: a stream that mixes LF, CRLF and CR line ends', () => {
  const text = 'data: a\r\ndata: b\r\r\ndata: c\n\rdata: d\r\n\n';
  const bytes = new TextEncoder().encode(text);
  const expected = [{ data: 'a\nb', type: 'message' }, { data: 'c', type: 'message' }, { data: 'd', type: 'message' }];
  assert.deepEqual(parseAll([bytes]).events, expected);
  for (let i = 0; i < bytes.length; i++) {
    assert.deepEqual(parseAll([bytes.subarray(0, i), bytes.subarray(i)]).events, expected, `cut at ${i}`);
  }
});

test('SSE: a byte order mark opening the stream is dropped, one split across reads too', () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('data: x\n\n')]);
  assert.deepEqual(parseAll([bytes]).events, [{ data: 'x', type: 'message' }]);
  assert.deepEqual(parseAll([bytes.subarray(0, 2), bytes.subarray(2)]).events, [{ data: 'x', type: 'message' }]);
});

test('SSE: the last event without its blank line is still delivered at the end, and a cut line is reported', () => {
  const complete = parseAll([new TextEncoder().encode('data: 1\n\ndata: 2\n')]);
  assert.deepEqual(complete.events.map((e) => e.data), ['1', '2']);
  assert.equal(complete.cut, false);
  const cut = parseAll([new TextEncoder().encode('data: 1\n\ndata: {"trunc')]);
  assert.deepEqual(cut.events.map((e) => e.data), ['1', '{"trunc']);
  assert.equal(cut.cut, true);
});

test('SSE: a caller may reuse its read buffer after push returns', () => {
  const events: string[] = [];
  const parser = new SseParser((data) => events.push(data));
  const buffer = Buffer.from('data: abc');
  parser.push(buffer);
  buffer.fill(0x21); // the next socket read overwrites it
  parser.push(Buffer.from('def\n\n'));
  assert.deepEqual(events, ['abcdef']);
});

test('SSE: lines that are neither data nor event are not mistaken for them', () => {
  const { events } = parseAll([new TextEncoder().encode('dataset: no\neventually: no\ndat: no\n\ndata: yes\nevent:custom\n\n')]);
  assert.deepEqual(events, [{ data: 'yes', type: 'custom' }]);
  assert.equal(parseAll([new TextEncoder().encode('\n\n: only comments\n\n\r\n')]).events.length, 0);
});
