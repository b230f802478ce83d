// Prompts built from trace entries (src/workload/trace-prompts.ts): their length as the run's
// tokenizer counts it, the blocks shared through hash ids (token by token with real tokenizers, and
// in the simulator's prefix cache), and nothing shared without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceSourceSchema } from '../../src/format/trace';
import { openTrace, type TraceEntry } from '../../src/workload/trace';
import { createTracePromptBuilder } from '../../src/workload/trace-prompts';
import { createRandom } from '../../src/workload/random';
import { createTokenCounter, loadTokenizer } from '../../src/workload/tokenizer';
import type { TokenCounter } from '../../src/workload/types';
import { startSimServer } from '../../src/sim/index';
import { REAL_TOKENIZERS } from '../helpers/real-tokenizers';
import { repoRoot } from '../helpers/limited-child';

const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'traces', name);

async function entriesOf(path: string): Promise<TraceEntry[]> {
  const reader = await openTrace(TraceSourceSchema.parse({ path }));
  const entries: TraceEntry[] = [];
  for await (const entry of reader.entries()) entries.push(entry);
  return entries;
}

interface Counting {
  name: string;
  counter: TokenCounter;
  /** The tokenizer's ids; the estimate has none. */
  encode?: (text: string) => number[];
}

/** The estimate, and byte-level (Qwen2.5, Llama 3) and SentencePiece-style (Llama 2) tokenizers, each loaded once. */
const loaded = new Map<string, Promise<Counting>>();
const COUNTINGS: Array<() => Promise<Counting>> = [
  async () => ({ name: 'estimate', counter: await createTokenCounter() }),
  ...REAL_TOKENIZERS.filter((t) => ['Qwen2.5', 'Llama 3', 'Llama 2'].includes(t.name)).map((t) => async () => ({
    name: t.name,
    counter: await createTokenCounter(t.tokenizerPath),
    encode: (await loadTokenizer(t.tokenizerPath)).encode,
  })),
];
const countings = (): Promise<Counting[]> =>
  Promise.all(
    COUNTINGS.map((load, i) => {
      const key = String(i);
      if (!loaded.has(key)) loaded.set(key, load());
      return loaded.get(key) as Promise<Counting>;
    }),
  );

test('trace prompts: each Mooncake row of the published traces gets a prompt of exactly its input_length tokens', async () => {
  const entries = [...(await entriesOf(fixture('mooncake-conversation-head.jsonl'))), ...(await entriesOf(fixture('mooncake-readme.jsonl')))];
  for (const { name, counter } of await countings()) {
    const builder = createTracePromptBuilder({ seed: 7, counter });
    for (const entry of entries) {
      const prompt = builder.prompt(entry);
      assert.equal(counter.count(prompt.text), entry.inputTokens, `${name}: line ${entry.line}`);
      assert.equal(prompt.tokens, entry.inputTokens, `${name}: line ${entry.line}`);
      assert.equal(prompt.blockTokens, entry.inputTokens, `${name}: line ${entry.line} is blocks throughout (its last id covers its last, partial block)`);
    }
  }
});

test('trace prompts: two requests sharing their first 12 hash ids share exactly their first 12 x 512 tokens, token by token', async () => {
  // The Mooncake README's rows: ids 46-57 shared, then 2353, 2354 against 2366.
  const [a, b] = (await entriesOf(fixture('mooncake-readme.jsonl'))) as [TraceEntry, TraceEntry];
  const shared = 12 * 512;
  for (const { name, counter, encode } of await countings()) {
    const builder = createTracePromptBuilder({ seed: 7, counter });
    const [pa, pb] = [builder.prompt(a), builder.prompt(b)];
    if (encode === undefined) {
      // The estimate counts characters: the shared blocks are the same text, then the texts part
      // (after a few characters more where the next blocks' first random words begin alike).
      const inCommon = counter.count(pa.text.slice(0, commonPrefixLength(pa.text, pb.text)));
      assert.ok(inCommon >= shared - 1 && inCommon <= shared + 8, `${name}: ${inCommon} tokens in common`);
      continue;
    }
    const [ta, tb] = [encode(pa.text), encode(pb.text)];
    assert.equal(ta.length, a.inputTokens, name);
    assert.equal(tb.length, b.inputTokens, name);
    assert.deepEqual(ta.slice(0, shared), tb.slice(0, shared), `${name}: the first ${shared} tokens are the same`);
    // Block 13 is another id's: the prompts part at its first token.
    assert.notEqual(ta[shared], tb[shared], `${name}: token ${shared} differs`);
  }
});

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

const entry = (line: number, inputTokens: number, hashIds?: number[]): Pick<TraceEntry, 'line' | 'inputTokens' | 'hashIds'> => ({ line, inputTokens, ...(hashIds ? { hashIds } : {}) });

test('trace prompts: over many pairs sharing 1 to 6 blocks, the shared tokens end exactly at the last shared block, with every tokenizer', async () => {
  const random = createRandom(4);
  const pairs = Array.from({ length: 30 }, (_, i) => {
    const k = random.int(1, 6);
    const common = Array.from({ length: k }, (_, j) => 1000 * i + j);
    const own = (n: number): number[] => [50_000 + n, 60_000 + n, 70_000 + n, 80_000 + n];
    return {
      k,
      a: entry(2 * i, k * 512 + random.int(1, 1500), [...common, ...own(2 * i)]),
      b: entry(2 * i + 1, k * 512 + random.int(1, 1500), [...common, ...own(2 * i + 1)]),
    };
  });
  for (const { name, counter, encode } of await countings()) {
    if (encode === undefined) continue;
    const builder = createTracePromptBuilder({ seed: 9, counter });
    const wrong: string[] = [];
    for (const { k, a, b } of pairs) {
      const [ta, tb] = [encode(builder.prompt(a).text), encode(builder.prompt(b).text)];
      let same = 0;
      while (same < ta.length && ta[same] === tb[same]) same++;
      if (ta.length !== a.inputTokens || tb.length !== b.inputTokens || same !== k * 512) wrong.push(`lines ${a.line}/${b.line}: ${ta.length}/${tb.length} tokens, ${same} in common, ${k * 512} shared`);
    }
    // A first word split at the prompt's start but whole after a space once put the end a token late.
    assert.deepEqual(wrong, [], name);
  }
});

test('trace prompts: with the estimate, lengths that end on a block or just past one are exact too (its rounding does not add up over blocks)', async () => {
  const counter = await createTokenCounter();
  const builder = createTracePromptBuilder({ seed: 1, counter });
  const missed: string[] = [];
  let line = 0;
  for (let k = 1; k <= 40; k++) {
    for (const extra of [0, 1, 2, 3]) {
      for (let variant = 0; variant < 5; variant++) {
        const ids = Array.from({ length: k + (extra > 0 ? 1 : 0) }, (_, j) => 1000 * (variant * 100 + k) + j);
        const target = k * 512 + extra;
        const prompt = builder.prompt(entry(line++, target, ids));
        if (prompt.tokens !== target || counter.count(prompt.text) !== target) missed.push(`${k} blocks + ${extra}: ${prompt.tokens}`);
      }
    }
  }
  assert.deepEqual(missed, []);
});

test('trace prompts: the same ids and length give the same prompt; a shorter last block is the start of the longer one; tokens past the ids are the request\'s own', async () => {
  const { counter } = (await countings())[1] as Counting;
  const builder = createTracePromptBuilder({ seed: 3, counter });
  // Identical rows on other lines: the same prompt, as the trace says.
  assert.equal(builder.prompt(entry(1, 700, [5, 6])).text, builder.prompt(entry(9, 700, [5, 6])).text);
  // 700 and 900 tokens on ids [5, 6]: block 5, then 188 or 388 tokens of block 6's text.
  const short = builder.prompt(entry(2, 700, [5, 6]));
  const long = builder.prompt(entry(3, 900, [5, 6]));
  assert.ok(long.text.startsWith(short.text), 'the shorter prompt opens the longer one');
  assert.deepEqual([short.tokens, long.tokens, counter.count(short.text), counter.count(long.text)], [700, 900, 700, 900]);
  // More tokens than the ids cover (the floor(input / 512) reading of the format): two whole
  // blocks shared, then each request's own text.
  const [x, y] = [builder.prompt(entry(4, 1500, [1, 2])), builder.prompt(entry(5, 1500, [1, 2]))];
  assert.deepEqual([x.tokens, y.tokens, x.blockTokens, y.blockTokens], [1500, 1500, 1024, 1024]);
  const common = commonPrefixLength(x.text, y.text);
  assert.ok(Math.abs(counter.count(x.text.slice(0, common)) - 1024) <= 1, `${counter.count(x.text.slice(0, common))} tokens in common`);
  assert.ok(x.text.length - common > 1000, 'the rest differs from its start');
  // A prompt shorter than one block: the start of its first id's block.
  assert.ok(builder.prompt(entry(6, 1024, [1, 2])).text.startsWith(builder.prompt(entry(7, 100, [1])).text));
});

test('trace prompts: without hash ids no two prompts share an opening (unless the workload asks for a shared prefix)', async () => {
  const counter = await createTokenCounter();
  const builder = createTracePromptBuilder({ seed: 3, counter });
  const prompts = Array.from({ length: 50 }, (_, i) => builder.prompt(entry(i + 2, 300 + (i % 5))));
  assert.equal(new Set(prompts.map((p) => p.text.slice(0, 40))).size, 50);
  prompts.forEach((p, i) => assert.deepEqual([p.tokens, counter.count(p.text), p.blockTokens], [300 + (i % 5), 300 + (i % 5), 0]));
  const withPrefix = createTracePromptBuilder({ seed: 3, counter, sharedPrefixTokens: 100 });
  const [a, b] = [withPrefix.prompt(entry(2, 300)), withPrefix.prompt(entry(3, 300))];
  assert.equal(a.text.slice(0, 400), b.text.slice(0, 400));
  assert.notEqual(a.text.slice(400, 460), b.text.slice(400, 460));
});

test('trace prompts: the seed decides; an evicted block comes back as the same text, and the cache stays within its bound', async () => {
  const counter = await createTokenCounter();
  const first = createTracePromptBuilder({ seed: 11, counter, cacheBlocks: 4 });
  const a = first.prompt(entry(1, 1200, [1, 2, 3]));
  for (let id = 100; id < 200; id++) first.prompt(entry(id, 600, [id, id + 1000]));
  assert.equal(first.cachedBlocks, 4);
  assert.equal(first.prompt(entry(1, 1200, [1, 2, 3])).text, a.text);
  assert.equal(createTracePromptBuilder({ seed: 11, counter }).prompt(entry(1, 1200, [1, 2, 3])).text, a.text);
  assert.notEqual(createTracePromptBuilder({ seed: 12, counter }).prompt(entry(1, 1200, [1, 2, 3])).text, a.text);
  // Ids beyond 32 bits are told apart.
  assert.notEqual(first.prompt(entry(1, 512, [2 ** 40 + 1])).text, first.prompt(entry(1, 512, [1])).text);
});

test('trace prompts: the simulator\'s prefix cache (vllm:prefix_cache_hits_total) finds the blocks a Mooncake trace shares, and none without hash ids', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-trace-prompts-'));
  const rows = [
    { timestamp: 0, input_length: 1400, output_length: 2, hash_ids: [0, 1, 2] },
    { timestamp: 10, input_length: 1300, output_length: 2, hash_ids: [0, 1, 3] },
    { timestamp: 20, input_length: 1400, output_length: 2, hash_ids: [0, 1, 2] },
    { timestamp: 30, input_length: 900, output_length: 2, hash_ids: [4, 5] },
  ];
  const hitsFor = async (withIds: boolean): Promise<{ hits: number; queries: number }> => {
    const path = join(dir, `trace-${withIds}.jsonl`);
    writeFileSync(path, rows.map((r) => JSON.stringify(withIds ? r : { ...r, hash_ids: undefined })).join('\n'));
    const sim = await startSimServer({ preset: 'tiny', engine: { enablePrefixCaching: true } });
    t.after(() => sim.close());
    const builder = createTracePromptBuilder({ seed: 5, counter: await createTokenCounter() });
    // One at a time: each request's blocks are cached by the time the next arrives.
    for (const e of await entriesOf(path)) {
      const response = await fetch(`${sim.baseUrl}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: sim.model, prompt: builder.prompt(e).text, max_tokens: e.outputTokens }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      const usage = ((await response.json()) as { usage: { prompt_tokens: number } }).usage;
      assert.equal(usage.prompt_tokens, e.inputTokens, `line ${e.line}: the simulator counts the prompt as the trace's length`);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${sim.port}/metrics`)).text();
    const value = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    return { hits: value('vllm:prefix_cache_hits_total'), queries: value('vllm:prefix_cache_queries_total') };
  };
  const shared = await hitsFor(true);
  const none = await hitsFor(false);
  assert.equal(shared.queries, 1400 + 1300 + 1400 + 900);
  assert.equal(none.queries, shared.queries);
  assert.equal(none.hits, 0);
  // Row 2 finds blocks 0 and 1 (1024 tokens) of row 1; row 3 is row 1 again, all of it but its last
  // token (the engine computes at least one); row 4 shares nothing. The simulator caches whole
  // blocks of 16 tokens, so each hit may fall short by up to a block.
  const expected = 1024 + 1399;
  assert.ok(shared.hits <= expected && shared.hits >= expected - 2 * 16, `hits ${shared.hits}, expected about ${expected}`);
});
