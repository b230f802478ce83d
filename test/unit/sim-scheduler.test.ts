import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler, Sequence, type StepOutcome, type StepPlan } from '../../src/sim/scheduler';
import { promptBlockHashes } from '../../src/sim/kv-cache';
import { PRESETS, type EngineSettings, type HardwareProfile } from '../../src/sim/presets';

/** The tests' small engine (the `tiny` preset's), prefix caching off unless a test turns it on. */
const engine = (overrides: Partial<EngineSettings> = {}): EngineSettings => ({ ...PRESETS.tiny.engine, enablePrefixCaching: false, ...overrides });
const hardware: HardwareProfile = { stepBaseMs: 10, decodePerSeqMs: 0.5, prefillTokensPerSec: 10_000, requestOverheadMs: 0, outputPerSeqMs: 0 };

let nextId = 0;
const sequence = (promptTokens: number, outputTokens: number, blockHashes: string[] = []): Sequence =>
  new Sequence({ id: nextId++, promptTokens, outputTokens, blockHashes });

/** Runs steps until idle (bounded), calling `inspect` after each step is applied. */
function drain(scheduler: Scheduler, inspect: (plan: StepPlan, outcome: StepOutcome, step: number) => void = () => {}): void {
  for (let step = 0; !scheduler.idle; step++) {
    assert.ok(step < 10_000, 'the scheduler should finish within 10,000 steps');
    const plan = scheduler.plan();
    assert.ok(plan.scheduled.length > 0, `step ${step} scheduled nothing while requests remain`);
    inspect(plan, scheduler.finish(plan), step);
  }
}

test('never more than max-num-seqs sequences run in a step; the rest wait and all finish', () => {
  const scheduler = new Scheduler(engine({ maxNumSeqs: 4 }), hardware);
  const all = Array.from({ length: 10 }, () => sequence(32, 8));
  all.forEach((s) => scheduler.add(s));
  let largest = 0;
  drain(scheduler, (plan) => {
    assert.ok(plan.scheduled.length <= 4, `a step ran ${plan.scheduled.length} sequences`);
    assert.ok(scheduler.numRunning <= 4);
    largest = Math.max(largest, plan.scheduled.length);
  });
  assert.equal(largest, 4);
  for (const s of all) assert.equal(s.generated, 8);
});

test('the step token budget caps tokens per step', () => {
  const scheduler = new Scheduler(engine({ maxNumBatchedTokens: 100, maxNumSeqs: 8 }), hardware);
  for (let i = 0; i < 6; i++) scheduler.add(sequence(60, 4));
  drain(scheduler, (plan) => {
    const tokens = plan.scheduled.reduce((sum, s) => sum + s.tokens, 0);
    assert.ok(tokens <= 100, `a step computed ${tokens} tokens`);
  });
});

test('a full KV cache makes requests wait, and running out mid-decode preempts the newest', () => {
  // 16 blocks of 16 tokens. A 96-token prompt takes 6 blocks, so two fit and the third waits;
  // growing to 136 tokens needs 9 blocks each, more than the 16 two sequences can share.
  const scheduler = new Scheduler(engine({ kvCacheTokens: 256, maxModelLen: 256 }), hardware);
  const all = [sequence(96, 40), sequence(96, 40), sequence(96, 40)];
  all.forEach((s) => scheduler.add(s));
  const first = scheduler.plan();
  assert.deepEqual(
    first.scheduled.map((s) => s.sequence),
    all.slice(0, 2),
    'only the two that fit in the KV cache are admitted',
  );
  assert.equal(scheduler.numWaiting, 1);
  assert.equal(scheduler.kv.freeBlocks, 4);
  scheduler.finish(first);
  let preemptions = 0;
  drain(scheduler, (plan) => {
    preemptions += plan.preempted.length;
    assert.ok(scheduler.kv.freeBlocks >= 0);
  });
  assert.ok(preemptions >= 1, 'the KV cache ran out during decode, so a sequence was preempted');
  for (const s of all) assert.equal(s.generated, 40, 'preempted sequences are recomputed and still finish');
  assert.equal(scheduler.kv.freeBlocks, 16, 'every block is free again at the end');
});

test('chunked prefill splits a long prompt across steps within the budget', () => {
  const scheduler = new Scheduler(engine({ maxNumBatchedTokens: 256 }), hardware);
  const long = sequence(1000, 2);
  scheduler.add(long);
  const chunks: number[] = [];
  const sampledAt: number[] = [];
  drain(scheduler, (plan, outcome, step) => {
    chunks.push(plan.scheduled[0]?.tokens ?? 0);
    if (outcome.sampled.includes(long)) sampledAt.push(step);
  });
  assert.deepEqual(chunks, [256, 256, 256, 232, 1]);
  assert.deepEqual(sampledAt, [3, 4], 'the first token comes at the end of the last prompt chunk');
});

test('without chunked prefill a prompt runs whole, and waits when it does not fit the rest of the budget', () => {
  const settings = { maxNumBatchedTokens: 1024, maxModelLen: 1024 };
  const off = new Scheduler(engine({ ...settings, enableChunkedPrefill: false }), hardware);
  off.add(sequence(600, 2));
  off.add(sequence(600, 2));
  assert.deepEqual(
    off.plan().scheduled.map((s) => s.tokens),
    [600],
    'the second prompt waits for the next step',
  );
  const on = new Scheduler(engine({ ...settings, enableChunkedPrefill: true }), hardware);
  on.add(sequence(600, 2));
  on.add(sequence(600, 2));
  assert.deepEqual(
    on.plan().scheduled.map((s) => s.tokens),
    [600, 424],
    'with chunked prefill the second prompt fills the rest of the budget',
  );
});

test('prefix caching reuses the blocks of a shared prefix and shortens prefill', () => {
  const shared = 'x'.repeat(4 * 512);
  const hashesA = promptBlockHashes(shared + 'a'.repeat(4 * 64), 576, 16, 4);
  const hashesB = promptBlockHashes(shared + 'b'.repeat(4 * 64), 576, 16, 4);
  assert.deepEqual(hashesA.slice(0, 32), hashesB.slice(0, 32), 'blocks of the shared prefix hash alike');
  assert.notEqual(hashesA[32], hashesB[32], 'blocks after it differ');

  const run = (prefixCaching: boolean) => {
    const scheduler = new Scheduler(engine({ enablePrefixCaching: prefixCaching }), hardware);
    const a = sequence(576, 4, hashesA);
    scheduler.add(a);
    drain(scheduler);
    const b = sequence(576, 4, hashesB);
    scheduler.add(b);
    const plan = scheduler.plan();
    return { cached: b.cachedTokens, prefill: plan.prefillTokens, durationMs: scheduler.stepDurationMs(plan) };
  };
  const withCache = run(true);
  const without = run(false);
  assert.equal(withCache.cached, 512);
  assert.equal(withCache.prefill, 64);
  assert.equal(without.cached, 0);
  assert.equal(without.prefill, 576);
  assert.ok(withCache.durationMs < without.durationMs);
});

test('a fully cached prompt still computes its last token', () => {
  const text = 'y'.repeat(4 * 64);
  const hashes = promptBlockHashes(text, 64, 16, 4);
  const scheduler = new Scheduler(engine({ enablePrefixCaching: true }), hardware);
  scheduler.add(sequence(64, 1, hashes));
  drain(scheduler);
  const again = sequence(64, 1, hashes);
  scheduler.add(again);
  const plan = scheduler.plan();
  assert.equal(again.cachedTokens, 48, 'three of four blocks: the last block holds the token to sample from');
  assert.equal(plan.scheduled[0]?.tokens, 16);
});

test('step time follows the hardware profile: base + per sequence + prefill tokens', () => {
  const scheduler = new Scheduler(engine(), hardware);
  scheduler.add(sequence(1000, 3));
  const prefill = scheduler.plan();
  assert.equal(scheduler.stepDurationMs(prefill), 10 + 0.5 + 100);
  scheduler.finish(prefill);
  scheduler.add(sequence(10, 3));
  const mixed = scheduler.plan();
  assert.equal(mixed.prefillTokens, 10);
  assert.equal(scheduler.stepDurationMs(mixed), 10 + 0.5 * 2 + 1);
});

test('an aborted sequence leaves the batch and frees its blocks', () => {
  const scheduler = new Scheduler(engine(), hardware);
  const gone = sequence(100, 50);
  const stays = sequence(100, 5);
  scheduler.add(gone);
  scheduler.add(stays);
  scheduler.finish(scheduler.plan());
  scheduler.abort(gone);
  assert.equal(scheduler.numRunning, 1);
  drain(scheduler);
  assert.equal(stays.generated, 5);
  assert.equal(scheduler.kv.freeBlocks, scheduler.kv.totalBlocks);
});
