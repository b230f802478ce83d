// Workload shapes the peer tools have: vLLM's range-ratio lengths and shared prefixes, asserted on
// the requests a loopback server received and through the simulator's prefix-cache counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { runBenchmark } from '../../src/load/runner';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { createWorkload, rangeBounds } from '../../src/workload/sources';
import { startSimServer } from '../../src/sim/index';
import { startRunnerServer } from '../helpers/runner-server';

type Message = { role: string; content: string };
const promptText = (body: Record<string, unknown>): string => (body.messages as Message[]).map((m) => m.content).join('\n');

function config(baseUrl: string, overrides: Partial<RunConfigInput>) {
  return RunConfigSchema.parse({ endpoint: { baseUrl, model: 'm' }, limits: { requests: 1 }, ...overrides });
}

test('range ratio: the bounds are vLLM\'s floor(mean*(1-r)) and ceil(mean*(1+r)), the lower at least 1', () => {
  assert.deepEqual(rangeBounds(1024, 0.8), { low: 204, high: 1844 });
  assert.deepEqual(rangeBounds(100, 0.25), { low: 75, high: 125 });
  assert.deepEqual(rangeBounds(10, 0.33), { low: 6, high: 14 }); // 6.7 down, 13.3 up
  assert.deepEqual(rangeBounds(1, 0.9), { low: 1, high: 2 }); // floor(0.1) = 0 is raised to 1
  assert.deepEqual(rangeBounds(128, 0), { low: 128, high: 128 });
  assert.equal(RunConfigSchema.safeParse({ endpoint: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' }, limits: { requests: 1 }, workload: { kind: 'synthetic', inputTokens: { mean: 10, rangeRatio: 1 } } }).success, false);
});

test('range ratio: a loopback server receives prompt and max_tokens lengths uniform over the whole range, exactly as counted', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 1 }));
  t.after(() => server.close());
  const requests = 400;
  const doc = await runBenchmark(
    config(server.baseUrl, {
      workload: { kind: 'synthetic', inputTokens: { mean: 40, rangeRatio: 0.5 }, outputTokens: { mean: 10, rangeRatio: 0.3 } },
      profile: { kind: 'concurrency', levels: [16] },
      limits: { requests },
    }),
    {},
  );
  assert.equal(doc.status, 'complete');
  assert.equal(server.bodies.length, requests);
  const counter = await createTokenCounter();
  const inputs = server.bodies.map((b) => counter.count(promptText(b)));
  const outputs = server.bodies.map((b) => b.max_tokens as number);
  // [20, 60] and [7, 13]: every value inside, both ends reached, the mean near the middle.
  assert.ok(inputs.every((n) => n >= 20 && n <= 60), `inputs ${Math.min(...inputs)}..${Math.max(...inputs)}`);
  assert.ok(inputs.includes(20) && inputs.includes(60));
  assert.deepEqual([...new Set(outputs)].sort((a, b) => a - b), [7, 8, 9, 10, 11, 12, 13]);
  const mean = inputs.reduce((a, b) => a + b, 0) / inputs.length;
  assert.ok(Math.abs(mean - 40) < 2, `mean input ${mean}`);
  // Uniform, not normal: each seventh of the output range holds about a seventh of the draws.
  for (const value of [7, 13]) assert.ok(outputs.filter((o) => o === value).length > requests / 7 / 2, `${value} is drawn as often as the middle`);
});

test('shared prefixes: request i opens with prefix i mod K, each K tokens long and distinct', async () => {
  const counter = await createTokenCounter();
  const workload = await createWorkload(
    config('http://127.0.0.1:1/v1', { workload: { kind: 'synthetic', inputTokens: 200, outputTokens: 4, sharedPrefixTokens: 64, prefixCount: 3 } }),
    counter,
  );
  const texts = Array.from({ length: 9 }, (_, i) => (workload.request(i).prompt as Message[])[0]?.content ?? '');
  const heads = texts.map((text) => text.slice(0, 200));
  for (let i = 3; i < 9; i++) assert.equal(heads[i], heads[i % 3], `request ${i} shares prefix ${i % 3}`);
  assert.equal(new Set(heads.slice(0, 3)).size, 3);
  for (const text of texts) assert.equal(counter.count(text), 200);
});

test('shared prefixes: the simulator finds them in its prefix cache (vllm:prefix_cache_hits_total), and finds none without them', async (t) => {
  const hitsAfter = async (workload: RunConfigInput['workload']): Promise<{ hits: number; queries: number }> => {
    const sim = await startSimServer({ preset: 'tiny', engine: { enablePrefixCaching: true } });
    t.after(() => sim.close());
    const doc = await runBenchmark(config(sim.baseUrl, { endpoint: { baseUrl: sim.baseUrl, model: sim.model }, workload, limits: { requests: 12 } }), {});
    assert.equal(doc.status, 'complete');
    const metrics = await (await fetch(`http://127.0.0.1:${sim.port}/metrics`)).text();
    const value = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    return { hits: value('vllm:prefix_cache_hits_total'), queries: value('vllm:prefix_cache_queries_total') };
  };
  const prefixTokens = 256;
  const shared = await hitsAfter({ kind: 'synthetic', inputTokens: 400, outputTokens: 4, sharedPrefixTokens: prefixTokens, prefixCount: 3 });
  const none = await hitsAfter({ kind: 'synthetic', inputTokens: 400, outputTokens: 4 });
  assert.equal(shared.queries, 12 * 400);
  assert.equal(none.hits, 0);
  // 12 synchronous requests over 3 prefixes: the 9 that come after their prefix's first use each find
  // its full blocks (the simulator caches whole blocks, so up to a block short of the prefix).
  const blockSize = 16;
  assert.ok(shared.hits >= 9 * (prefixTokens - blockSize) && shared.hits <= 9 * (prefixTokens + blockSize), `hits ${shared.hits}`);
});

const fixture = (name: string): string => join(process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..'), 'test', 'fixtures', name);

test('ShareGPT as vLLM uses it: max_tokens is the recorded reply\'s length, and vLLM\'s filters drop the pairs they drop', async (t) => {
  const path = fixture('sharegpt-vllm.json');
  const counter = await createTokenCounter();
  const conversations = (JSON.parse(readFileSync(path, 'utf8')) as { id: string; conversations: { value: string }[] }[]).map((c) => ({ id: c.id, turns: c.conversations.map((turn) => turn.value) }));
  const kept = conversations.filter((c) => c.id.startsWith('kept-'));
  const server = await startRunnerServer(() => ({ tokens: 1 }));
  t.after(() => server.close());
  // Prompts as the file has them (no run salt), to compare with vLLM's selection.
  const doc = await runBenchmark(config(server.baseUrl, { workload: { kind: 'dataset', path, format: 'sharegpt', outputTokens: 'reply' }, limits: { requests: 8 }, cache: { reusePrompts: true } }), {});
  assert.equal(doc.status, 'complete');
  // The kept pairs, in file order, twice round: each prompt with its own reply's token count.
  const expected = [...kept, ...kept].map((c) => ({ prompt: c.turns[0], maxTokens: counter.count(c.turns[1] ?? '') }));
  assert.deepEqual(
    server.bodies.map((b) => ({ prompt: promptText(b), maxTokens: b.max_tokens })),
    expected,
  );
  // The limits themselves are kept: 4 and 4 tokens, 1024 and 1024 (2048 in all).
  assert.deepEqual(expected.slice(0, 4).map((e) => e.maxTokens), [35, 1024, 4, 29]);
  assert.deepEqual(kept.map((c) => c.id), ['kept-short-pair', 'kept-at-both-limits', 'kept-at-4-tokens', 'kept-multi-turn']);
});

test('ShareGPT reply lengths: a file whose every pair is filtered out says how many fell to each filter; other formats are refused', async () => {
  const counter = await createTokenCounter();
  const all = JSON.parse(readFileSync(fixture('sharegpt-vllm.json'), 'utf8')) as { id: string }[];
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-sharegpt-'));
  const droppedOnly = join(dir, 'dropped.json');
  writeFileSync(droppedOnly, JSON.stringify(all.filter((c) => !c.id.startsWith('kept-'))));
  const workload = (path: string, format: 'sharegpt' | 'jsonl') => createWorkload(config('http://127.0.0.1:1/v1', { workload: { kind: 'dataset', path, format, outputTokens: 'reply' } }), counter);
  await assert.rejects(
    workload(droppedOnly, 'sharegpt'),
    new RegExp(
      'has no usable prompts \\(6 rows read, 1 without a usable prompt, 1 without a recorded reply, 2 with a prompt or reply under 4 tokens, ' +
        '1 with a prompt over 1024 tokens, 1 over 2048 tokens of prompt and reply\\)',
    ),
  );
  const jsonl = join(dir, 'rows.jsonl');
  writeFileSync(jsonl, '{"prompt": "hello there"}\n');
  await assert.rejects(workload(jsonl, 'jsonl'), /outputTokens "reply" needs a format that records replies \(sharegpt\), not jsonl/);
});
