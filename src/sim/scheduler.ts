/**
 * A continuous-batching scheduler after vLLM's (V1) design, with no clock of its own: `plan()`
 * picks what the next step computes within the step's token budget, `stepDurationMs()` says how
 * long the hardware takes for it, and `finish()` applies it (tokens sampled, sequences done).
 * The real-time loop (clock.ts) drives it; tests drive it directly.
 *
 * Each step: running sequences first (one token each when decoding, a chunk of their prompt when
 * prefilling), preempting the most recently admitted sequence (recompute) when the KV cache has no
 * block left; then, if nothing was preempted, waiting sequences in arrival order while the batch
 * has room (max-num-seqs), the budget has tokens (max-num-batched-tokens) and the KV cache has
 * blocks. A prompt's leading blocks found in the prefix cache are not computed again.
 */
import type { EngineSettings, HardwareProfile } from './presets';
import { KvCache } from './kv-cache';

export interface SequenceInput {
  id: number;
  promptTokens: number;
  /** Tokens this request will produce before it finishes (max_tokens, or its natural length). */
  outputTokens: number;
  /** Chained hashes of the prompt's full blocks (prefix caching); may be empty. */
  blockHashes: readonly string[];
  /** An input to embed (a pooling request): its one "token" is the vector, not a generated token. */
  pooling?: boolean;
}

export class Sequence {
  generated = 0;
  /** Tokens whose KV is computed. */
  computed = 0;
  /** Prompt tokens that came from the prefix cache when it was (last) admitted. */
  cachedTokens = 0;
  preemptions = 0;
  readonly blocks: number[] = [];
  status: 'waiting' | 'running' | 'finished' = 'waiting';

  constructor(readonly input: SequenceInput) {}

  get id(): number {
    return this.input.id;
  }

  /** Prompt plus the tokens generated so far: what must be in the KV cache before the next sample. */
  get length(): number {
    return this.input.promptTokens + this.generated;
  }

  get isPrefilling(): boolean {
    return this.length - this.computed > 1;
  }
}

export interface ScheduledSequence {
  sequence: Sequence;
  tokens: number;
}

export interface StepPlan {
  scheduled: ScheduledSequence[];
  /** Sequences that lost their KV blocks in this step and went back to the front of the queue. */
  preempted: Sequence[];
  /** Tokens computed for prompts (or for recomputation) in this step. */
  prefillTokens: number;
}

export interface StepOutcome {
  /** Sequences that sampled a token at the end of the step, in batch order. */
  sampled: Sequence[];
  finished: Sequence[];
}

export class Scheduler {
  readonly kv: KvCache;
  private waiting: Sequence[] = [];
  private running: Sequence[] = [];
  /** Totals for the Prometheus counters. */
  readonly counters = { promptTokens: 0, generationTokens: 0, preemptions: 0, prefixQueryTokens: 0, prefixHitTokens: 0 };

  constructor(
    readonly engine: EngineSettings,
    readonly hardware: HardwareProfile,
  ) {
    this.kv = new KvCache(Math.floor(engine.kvCacheTokens / engine.blockSize), engine.blockSize, engine.enablePrefixCaching);
  }

  get numRunning(): number {
    return this.running.length;
  }

  get numWaiting(): number {
    return this.waiting.length;
  }

  get idle(): boolean {
    return this.running.length === 0 && this.waiting.length === 0;
  }

  add(sequence: Sequence): void {
    this.waiting.push(sequence);
  }

  /** Drops a sequence wherever it is (client gone); its blocks return to the free queue. */
  abort(sequence: Sequence): void {
    if (sequence.status === 'finished') return;
    this.waiting = this.waiting.filter((s) => s !== sequence);
    this.running = this.running.filter((s) => s !== sequence);
    this.kv.free(sequence.blocks);
    sequence.status = 'finished';
  }

  plan(): StepPlan {
    const { maxNumSeqs, maxNumBatchedTokens, enableChunkedPrefill } = this.engine;
    let budget = maxNumBatchedTokens;
    const scheduled: ScheduledSequence[] = [];
    const preempted: Sequence[] = [];

    for (let i = 0; i < this.running.length && budget > 0; ) {
      const sequence = this.running[i] as Sequence;
      const tokens = Math.min(sequence.length - sequence.computed, budget);
      let fits = this.kv.allocate(sequence.blocks, sequence.computed + tokens);
      while (!fits) {
        const victim = this.running.pop() as Sequence;
        this.preempt(victim);
        preempted.push(victim);
        if (victim === sequence) break;
        fits = this.kv.allocate(sequence.blocks, sequence.computed + tokens);
      }
      if (!fits) break;
      scheduled.push({ sequence, tokens });
      budget -= tokens;
      i++;
    }

    while (preempted.length === 0 && this.waiting.length > 0 && this.running.length < maxNumSeqs && budget > 0) {
      const sequence = this.waiting[0] as Sequence;
      const hits = this.kv.lookup(sequence.input.blockHashes, sequence.length - 1);
      const cached = hits.length * this.engine.blockSize;
      const remaining = sequence.length - cached;
      if (!enableChunkedPrefill && remaining > budget) break;
      const tokens = Math.min(remaining, budget);
      if (!this.kv.allocate(sequence.blocks, cached + tokens, hits)) break;
      this.waiting.shift();
      sequence.status = 'running';
      sequence.computed = cached;
      sequence.cachedTokens = Math.min(cached, sequence.input.promptTokens);
      this.counters.prefixQueryTokens += sequence.length;
      this.counters.prefixHitTokens += cached;
      this.running.push(sequence);
      scheduled.push({ sequence, tokens });
      budget -= tokens;
    }

    const prefillTokens = scheduled.reduce((sum, s) => sum + (s.sequence.isPrefilling ? s.tokens : 0), 0);
    return { scheduled, preempted, prefillTokens };
  }

  /** Hardware time of a planned step, in model milliseconds. */
  stepDurationMs(plan: StepPlan): number {
    if (plan.scheduled.length === 0) return 0;
    const { stepBaseMs, decodePerSeqMs, prefillTokensPerSec } = this.hardware;
    return stepBaseMs + decodePerSeqMs * plan.scheduled.length + (plan.prefillTokens * 1000) / prefillTokensPerSec;
  }

  finish(plan: StepPlan): StepOutcome {
    const sampled: Sequence[] = [];
    const finished: Sequence[] = [];
    for (const { sequence, tokens } of plan.scheduled) {
      if (sequence.status !== 'running') continue; // aborted during the step
      sequence.computed += tokens;
      this.kv.registerFull(sequence.blocks, sequence.input.blockHashes, Math.min(sequence.computed, sequence.input.promptTokens));
      if (sequence.computed < sequence.length) continue; // a prompt chunk: nothing sampled yet
      if (sequence.generated === 0) this.counters.promptTokens += sequence.input.promptTokens;
      sequence.generated++;
      if (!sequence.input.pooling) this.counters.generationTokens++;
      sampled.push(sequence);
      if (sequence.generated >= sequence.input.outputTokens) finished.push(sequence);
    }
    for (const sequence of finished) {
      sequence.status = 'finished';
      this.kv.free(sequence.blocks);
    }
    if (finished.length > 0) this.running = this.running.filter((s) => s.status === 'running');
    return { sampled, finished };
  }

  private preempt(sequence: Sequence): void {
    this.kv.free(sequence.blocks);
    sequence.computed = 0;
    sequence.preemptions++;
    sequence.status = 'waiting';
    this.counters.preemptions++;
    this.waiting.unshift(sequence);
  }
}
