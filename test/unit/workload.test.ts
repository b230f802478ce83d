import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { BadInputError } from '../../src/format/errors';
import { createWorkload, guessDatasetFormat } from '../../src/workload/sources';
import type { ChatMessage, PreparedRequest, TokenCounter } from '../../src/workload/types';

const dir = mkdtempSync(join(tmpdir(), 'llmbench-workload-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function config(workload: RunConfigInput['workload'], api: 'chat' | 'completions' = 'chat', seed = 42) {
  return RunConfigSchema.parse({ endpoint: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', api }, workload, limits: { requests: 1 }, seed });
}

const textOf = (r: PreparedRequest): string => (typeof r.prompt === 'string' ? r.prompt : r.prompt.map((m) => m.content).join('\n'));

test('workload: synthetic prompts hit the target token count exactly, as chat messages, deterministic per index', async () => {
  const counter = await createTokenCounter();
  const workload = await createWorkload(config({ kind: 'synthetic', inputTokens: 512, outputTokens: 128 }), counter);
  assert.equal(workload.size, Infinity);
  const requests = Array.from({ length: 20 }, (_, i) => workload.request(i));
  for (const r of requests) {
    assert.ok(Array.isArray(r.prompt));
    assert.equal((r.prompt as ChatMessage[])[0]?.role, 'user');
    assert.equal(counter.count(textOf(r)), 512);
    assert.deepEqual(r.inputTokens, { count: 512, source: 'estimate' });
    assert.equal(r.maxTokens, 128);
  }
  // No two prompts share an opening: no accidental prefix caching.
  assert.equal(new Set(requests.map((r) => textOf(r).slice(0, 40))).size, requests.length);
  // request(i) does not depend on what was asked before, and the seed decides.
  const again = await createWorkload(config({ kind: 'synthetic', inputTokens: 512, outputTokens: 128 }), counter);
  assert.deepEqual(again.request(7), requests[7]);
  const otherSeed = await createWorkload(config({ kind: 'synthetic', inputTokens: 512, outputTokens: 128 }, 'chat', 43), counter);
  assert.notDeepEqual(otherSeed.request(7), requests[7]);
});

test('workload: a synthetic prompt is the same whatever longer prompts were built before it', async () => {
  const counter = await createTokenCounter();
  // Lengths vary by index: earlier, longer requests grow the shared filler text in other steps.
  const spec = { kind: 'synthetic' as const, inputTokens: { mean: 12_000, rangeRatio: 0.9 }, outputTokens: 8 };
  const alone = await createWorkload(config(spec, 'completions'), counter);
  const afterOthers = await createWorkload(config(spec, 'completions'), counter);
  for (let i = 0; i < 40; i++) afterOthers.request(i);
  for (const index of [3, 17, 29]) {
    const [before, after] = [alone.request(index), afterOthers.request(index)];
    assert.ok(before.prompt === after.prompt && before.inputTokens.count === after.inputTokens.count, `request ${index} (${before.inputTokens.count} tokens) differs once others were built first`);
  }
});

test('workload: token counts drawn from mean/stdev stay within min/max and are met exactly; completions get text', async () => {
  const counter = await createTokenCounter();
  const spec = { mean: 200, stdev: 60, min: 120, max: 300 };
  const workload = await createWorkload(config({ kind: 'synthetic', inputTokens: spec, outputTokens: { mean: 50, stdev: 10 } }, 'completions'), counter);
  const requests = Array.from({ length: 300 }, (_, i) => workload.request(i));
  const inputs = requests.map((r) => r.inputTokens.count);
  for (const r of requests) {
    assert.equal(typeof r.prompt, 'string');
    assert.equal(counter.count(r.prompt as string), r.inputTokens.count);
  }
  assert.ok(Math.min(...inputs) >= 120 && Math.max(...inputs) <= 300);
  assert.ok(inputs.includes(120) && inputs.includes(300), 'the clipping shows at both ends');
  const mean = inputs.reduce((a, b) => a + b, 0) / inputs.length;
  assert.ok(Math.abs(mean - 200) < 10, `mean ${mean}`);
  const outputs = requests.map((r) => r.maxTokens as number);
  assert.ok(new Set(outputs).size > 10 && outputs.every((o) => o >= 1));
});

test('workload: a shared prefix opens every prompt, inside the total input count', async () => {
  const counter = await createTokenCounter();
  const workload = await createWorkload(config({ kind: 'synthetic', inputTokens: 300, outputTokens: 8, sharedPrefixTokens: 100 }, 'completions'), counter);
  const [a, b] = [workload.request(0), workload.request(1)];
  const prefixA = (a.prompt as string).slice(0, 400);
  assert.equal(prefixA, (b.prompt as string).slice(0, 400));
  assert.equal(counter.count(prefixA), 100);
  assert.notEqual((a.prompt as string).slice(400, 460), (b.prompt as string).slice(400, 460));
  assert.equal(a.inputTokens.count, 300);
  assert.equal(counter.count(a.prompt as string), 300);
});

/** A byte-level tokenizer with merges for frequent English letter pairs: not one character per token. */
async function smallTokenizer(): Promise<TokenCounter> {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const vocab: Record<string, number> = {};
  let n = 0;
  for (let b = 0; b < 256; b++) vocab[String.fromCodePoint(keep.includes(b) ? b : 256 + n++)] = b;
  const merges = ['Ġ t', 'h e', 'Ġt he', 'i n', 'e r', 'o n', 'Ġ a', 'r e', 'a n', 'Ġ s', 'e n', 'o r', 'Ġ w', 'Ġ p', 'in g'];
  for (const m of merges) vocab[m.replace(' ', '')] ??= Object.keys(vocab).length;
  const path = file('tokenizer.json', JSON.stringify({ pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, use_regex: true }, model: { type: 'BPE', vocab, merges } }));
  return createTokenCounter(path);
}

test('workload: long inputs (128k tokens by the estimate, 20k by a real BPE) are exact and built quickly', async () => {
  const estimate = await createTokenCounter();
  let started = performance.now();
  const long = await createWorkload(config({ kind: 'synthetic', inputTokens: 131_072, outputTokens: 1 }, 'completions'), estimate);
  const r = long.request(0);
  const estimateMs = performance.now() - started;
  assert.equal(estimate.count(r.prompt as string), 131_072);
  assert.equal(r.inputTokens.count, 131_072);

  const bpe = await smallTokenizer();
  started = performance.now();
  const tokenized = await createWorkload(config({ kind: 'synthetic', inputTokens: 20_000, outputTokens: 1 }, 'completions'), bpe);
  const t = tokenized.request(3);
  const bpeMs = performance.now() - started;
  assert.deepEqual(t.inputTokens, { count: 20_000, source: 'tokenizer' });
  assert.equal(bpe.count(t.prompt as string), 20_000);
  console.log(`# 128k-token prompt by the estimate: ${estimateMs.toFixed(1)} ms; 20k-token prompt by the BPE tokenizer: ${bpeMs.toFixed(1)} ms`);
});

test('workload: EvalScope openqa JSONL, ShareGPT, plain lines and JSONL with prompt or messages', async () => {
  const counter = await createTokenCounter();
  const openqa = file('openqa.jsonl', '{"question": "What is 2+2?", "answer": "4"}\n\n{"question": "Name a colour."}\n');
  const q = await createWorkload(config({ kind: 'dataset', path: openqa, format: 'openqa' }), counter);
  assert.equal(q.size, 2);
  assert.deepEqual(q.request(0).prompt, [{ role: 'user', content: 'What is 2+2?' }]);
  assert.deepEqual(q.request(3).prompt, [{ role: 'user', content: 'Name a colour.' }], 'cycles through the rows');
  assert.equal(q.request(0).maxTokens, undefined);

  const sharegpt = file(
    'sharegpt.json',
    JSON.stringify([
      { id: 'a', conversations: [{ from: 'human', value: 'Explain tides.' }, { from: 'gpt', value: 'The moon.' }] },
      { id: 'b', conversations: [{ from: 'gpt', value: 'no human turn' }] },
      { id: 'c', conversations: [] },
      { id: 'd', conversations: [{ from: 'system', value: 'sys' }, { from: 'human', value: 'Write a haiku.' }] },
    ]),
  );
  const s = await createWorkload(config({ kind: 'dataset', path: sharegpt, format: 'sharegpt', outputTokens: 64 }, 'completions'), counter);
  assert.equal(s.size, 2);
  assert.equal(s.request(0).prompt, 'Explain tides.');
  assert.equal(s.request(1).prompt, 'Write a haiku.');
  assert.equal(s.request(1).maxTokens, 64);
  assert.deepEqual(s.request(1).inputTokens, { count: counter.count('Write a haiku.'), source: 'estimate' });

  const lines = file('lines.txt', 'first prompt\r\n\r\nsecond prompt\n');
  const l = await createWorkload(config({ kind: 'dataset', path: lines, format: 'lines' }, 'completions'), counter);
  assert.deepEqual([l.size, l.request(0).prompt, l.request(1).prompt], [2, 'first prompt', 'second prompt']);

  const jsonl = file('rows.jsonl', '{"prompt": "plain"}\n{"messages": [{"role": "system", "content": "Be short."}, {"role": "user", "content": "Hi"}]}\n');
  const chat = await createWorkload(config({ kind: 'dataset', path: jsonl, format: 'jsonl' }), counter);
  assert.deepEqual(chat.request(1).prompt, [{ role: 'system', content: 'Be short.' }, { role: 'user', content: 'Hi' }]);
  assert.deepEqual(chat.request(0).prompt, [{ role: 'user', content: 'plain' }]);
  const text = await createWorkload(config({ kind: 'dataset', path: jsonl, format: 'jsonl' }, 'completions'), counter);
  assert.equal(text.request(1).prompt, 'Be short.\nHi');
});

test('workload: prompt length filters keep only rows within them', async () => {
  const counter = await createTokenCounter();
  const rows = ['x'.repeat(4), 'x'.repeat(40), 'x'.repeat(400), 'x'.repeat(4000)].map((p) => JSON.stringify({ prompt: p })).join('\n');
  const path = file('lengths.jsonl', rows);
  const w = await createWorkload(config({ kind: 'dataset', path, format: 'jsonl', minPromptTokens: 5, maxPromptTokens: 200 }), counter);
  assert.equal(w.size, 2);
  assert.deepEqual([w.request(0).inputTokens.count, w.request(1).inputTokens.count], [10, 100]);
});

test('workload: bad datasets get errors naming the file, the line and what to do', async () => {
  const counter = await createTokenCounter();
  const missing = join(dir, 'missing.jsonl');
  await assert.rejects(createWorkload(config({ kind: 'dataset', path: missing, format: 'openqa' }), counter), { message: `Dataset file ${missing} was not found.` });
  const broken = file('broken.jsonl', '{"question": "ok"}\n{"question": \n');
  await assert.rejects(createWorkload(config({ kind: 'dataset', path: broken, format: 'openqa' }), counter), new RegExp(`Dataset file ${broken} line 2 is not JSON`));
  const wrongFormat = file('wrong.jsonl', '{"prompt": "hello"}\n');
  await assert.rejects(createWorkload(config({ kind: 'dataset', path: wrongFormat, format: 'openqa' }), counter), /line 1 has no "question" text \(its fields: prompt\)/);
  const jsonlBad = file('bad.jsonl', '{"text": "hello"}\n');
  await assert.rejects(createWorkload(config({ kind: 'dataset', path: jsonlBad, format: 'jsonl' }), counter), /line 1 has neither a "prompt" text nor a "messages" list/);
  const notArray = file('obj.json', '{"conversations": []}');
  await assert.rejects(createWorkload(config({ kind: 'dataset', path: notArray, format: 'sharegpt' }), counter), /is not a JSON array \(its fields: conversations\)/);
  const short = file('short.jsonl', '{"prompt": "tiny"}\n{"prompt": "small"}\n');
  await assert.rejects(
    createWorkload(config({ kind: 'dataset', path: short, format: 'jsonl', minPromptTokens: 50 }), counter),
    new RegExp(`Dataset file ${short} has no usable prompts \\(2 rows read, 2 shorter than minPromptTokens 50\\)`),
  );
  const empty = file('empty.json', JSON.stringify([{ conversations: [{ from: 'gpt', value: 'x' }] }]));
  await assert.rejects(createWorkload(config({ kind: 'dataset', path: empty, format: 'sharegpt' }), counter), /no usable prompts \(1 rows read, 1 without a usable prompt\)/);
});

test('workload: every dataset error is bad input; binary bytes are escaped, never printed raw', async () => {
  const counter = await createTokenCounter();
  const cases: Array<[string, Parameters<typeof config>[0], RegExp]> = [
    ['empty', { kind: 'dataset', path: file('empty.txt', ''), format: 'lines' }, /has no usable prompts \(0 rows read\)/],
    ['a folder', { kind: 'dataset', path: dir, format: 'jsonl' }, /is a folder, not a file/],
    ['a bad line', { kind: 'dataset', path: file('bad-line.jsonl', '{"prompt": "ok"}\nnot json\n'), format: 'jsonl' }, /line 2 is not JSON/],
    ['the wrong format', { kind: 'dataset', path: file('chat.jsonl', '{"messages": []}\n'), format: 'openqa' }, /has no "question" text/],
    ['binary', { kind: 'dataset', path: file('binary.jsonl', Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x00, 0x07, 0x0a]).toString('latin1')), format: 'jsonl' }, /is not JSON/],
  ];
  for (const [what, workload, message] of cases) {
    await assert.rejects(createWorkload(config(workload), counter), (error: unknown) => {
      assert.ok(error instanceof BadInputError, `${what}: ${String(error)}`);
      assert.match(error.message, message, what);
      assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f]/.test(error.message), `${what}: a control character in ${JSON.stringify(error.message)}`);
      return true;
    });
  }
});

test('workload: the dataset format is taken from .jsonl and .txt; for other files the error says it is needed', async () => {
  const counter = await createTokenCounter();
  assert.equal(guessDatasetFormat('data/prompts.JSONL'), 'jsonl');
  assert.equal(guessDatasetFormat('prompts.txt'), 'lines');
  assert.equal(guessDatasetFormat('prompts.json'), undefined);
  assert.equal(guessDatasetFormat('.jsonl/prompts'), undefined);
  const lines = await createWorkload(config({ kind: 'dataset', path: file('guess.txt', 'first\nsecond\n') }), counter);
  assert.equal(lines.size, 2);
  const jsonl = await createWorkload(config({ kind: 'dataset', path: file('guess.jsonl', '{"prompt": "p"}\n') }), counter);
  assert.equal(jsonl.size, 1);
  const unknown = file('share.json', '[]');
  await assert.rejects(
    createWorkload(config({ kind: 'dataset', path: unknown }), counter),
    (error: unknown) => error instanceof BadInputError && /its format is needed.*openqa, sharegpt, lines, jsonl \(--dataset-format/.test(error.message),
  );
});
