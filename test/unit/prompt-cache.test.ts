// Warm caches must not flatter a re-run (issue 21, item 3): against one long-lived simulator, two
// runs of the same seed. By default each run's prompts open with a salt of its own, so the second
// run finds nothing of the first in the prefix cache; --reuse-prompts sends the same prompts and the
// cache serves them; --reset-cache empties it before each step. Prefixes a workload shares on
// purpose stay shared within a run. Read from the simulator's own prefix-cache counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CacheConfigSchema, RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema, type ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer, type SimServer } from '../../src/sim/index';
import { createWorkload } from '../../src/workload/sources';
import { ESTIMATE_COUNTER } from '../../src/workload/tokenizer';

/** The simulator's prefix-cache counters, in tokens. */
async function cacheCounters(sim: SimServer): Promise<{ hits: number; queries: number }> {
  const text = await (await fetch(new URL('/metrics', sim.baseUrl))).text();
  const value = (name: string): number => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { hits: value('vllm:prefix_cache_hits_total'), queries: value('vllm:prefix_cache_queries_total') };
}

/** One run, and the share of its prompt tokens the simulator's prefix cache served. */
async function hitRate(sim: SimServer, input: Partial<RunConfigInput>): Promise<{ rate: number; doc: ResultDocument }> {
  const before = await cacheCounters(sim);
  const doc = ResultDocumentSchema.parse(
    await runBenchmark(
      RunConfigSchema.parse({
        endpoint: { baseUrl: sim.baseUrl, model: sim.model },
        workload: { kind: 'synthetic', inputTokens: 256, outputTokens: 4 },
        request: { extraBody: { ignore_eos: true } },
        profile: { kind: 'concurrency', levels: [4] },
        limits: { requests: 16 },
        serverMetrics: { url: 'off' },
        seed: 11,
        ...input,
      }),
      {},
    ),
  );
  assert.equal(doc.status, 'complete', doc.statusReason ?? '');
  const after = await cacheCounters(sim);
  return { rate: (after.hits - before.hits) / (after.queries - before.queries), doc };
}

const saltOf = (doc: ResultDocument): unknown => (doc.config as { cache?: { salt?: unknown } }).cache?.salt;

test('two runs of one seed against one simulator: the second finds nothing of the first by default, everything with --reuse-prompts, nothing after --reset-cache', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', seed: 1 });
  t.after(() => sim.close());
  const rates: Record<string, [number, number]> = {};
  const docs: ResultDocument[] = [];
  for (const [name, cache] of [
    ['default', {}],
    ['--reuse-prompts', { reusePrompts: true }],
    ['--reuse-prompts --reset-cache', { reusePrompts: true, resetBeforeStep: true }],
  ] as const) {
    const first = await hitRate(sim, { cache });
    const second = await hitRate(sim, { cache });
    rates[name] = [first.rate, second.rate];
    docs.push(first.doc, second.doc);
  }
  console.log(Object.entries(rates).map(([name, [a, b]]) => `${name}: hit rate ${(a * 100).toFixed(1)}% then ${(b * 100).toFixed(1)}%`).join('\n'));
  assert.ok((rates.default?.[1] ?? 1) < 0.02, `default: ${rates.default?.[1]}`);
  assert.ok((rates['--reuse-prompts']?.[1] ?? 0) > 0.9, `reuse: ${rates['--reuse-prompts']?.[1]}`);
  assert.ok((rates['--reuse-prompts --reset-cache']?.[1] ?? 1) < 0.02, `reuse and reset: ${rates['--reuse-prompts --reset-cache']?.[1]}`);

  // The result says which: each run's salt (six hex digits, one per run), none when prompts are reused; each step whether the cache was emptied.
  const [a, b, reusedA, reusedB, resetA] = docs;
  assert.match(String(saltOf(a as ResultDocument)), /^[0-9a-f]{6}$/);
  assert.notEqual(saltOf(a as ResultDocument), saltOf(b as ResultDocument));
  assert.equal(saltOf(reusedA as ResultDocument), undefined);
  assert.equal(saltOf(reusedB as ResultDocument), undefined);
  assert.equal(a?.steps[0]?.cacheReset, undefined, 'no reset asked, none recorded');
  assert.deepEqual(resetA?.steps[0]?.cacheReset, { done: true, how: 'POST /reset_prefix_cache answered 200' });
});

test('the salt opens every prompt of a run, shorter than a cache block, and prefixes shared on purpose stay shared within the run', async (t) => {
  const sim = await startSimServer({ preset: 'tiny', seed: 2 });
  t.after(() => sim.close());
  const shared = { workload: { kind: 'synthetic' as const, inputTokens: 256, outputTokens: 4, sharedPrefixTokens: 128 } };
  const salted = await hitRate(sim, shared);
  const unsalted = await hitRate(sim, { ...shared, cache: { reusePrompts: true } });
  console.log(`a shared prefix of 128 tokens within one run: hit rate ${(salted.rate * 100).toFixed(1)}% salted, ${(unsalted.rate * 100).toFixed(1)}% with --reuse-prompts (first run of its prompts)`);
  assert.ok(salted.rate > 0.3 && Math.abs(salted.rate - unsalted.rate) < 0.05, `salted ${salted.rate}, unsalted ${unsalted.rate}`);

  // The prompts themselves: the salt and a space first, the input length kept (the salt counts in it).
  const config = RunConfigSchema.parse({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, workload: { kind: 'synthetic', inputTokens: 64 }, limits: { requests: 1 }, cache: { salt: 'a1b2c3' } });
  const workload = await createWorkload(config, ESTIMATE_COUNTER);
  const plain = await createWorkload({ ...config, cache: CacheConfigSchema.parse({ reusePrompts: true }) }, ESTIMATE_COUNTER);
  for (const i of [0, 1, 7]) {
    const prompt = workload.request(i);
    const content = Array.isArray(prompt.prompt) ? prompt.prompt[0]?.content : prompt.prompt;
    assert.ok(content?.startsWith('a1b2c3 '), content);
    assert.equal(prompt.inputTokens.count, 64);
    assert.equal(plain.request(i).inputTokens.count, 64);
  }
  assert.ok(ESTIMATE_COUNTER.count('a1b2c3 ') < 16, 'the salt is shorter than a 16-token block');
});
