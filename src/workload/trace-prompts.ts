/**
 * Prompts for trace entries (issue 22): `inputTokens` long as the run's tokenizer counts, built with
 * the synthetic workload's text (sources.ts), so that a trace's shared prefixes reach the server.
 *
 * Block i of a prompt with hash ids is the text of hash id `hashIds[i]`: `blockTokens` tokens that
 * depend on the run's seed and the id only, so every request carrying the id at that place sends
 * the same text there. Like a synthetic prompt, a block is a head of random words of its own, then
 * the workload's filler text: blocks differ from their first words on (which is what a prefix
 * cache compares, chained over the blocks before), and the filler after each head is the same text.
 * Where the prompt ends inside a block (Mooncake's last id covers the rest of the prompt, under a
 * block), it sends the start of that id's text: two requests with the same ids and length send the
 * same prompt, as the trace records (AIPerf's Mooncake prompts share the last block too). Tokens
 * past the blocks the ids cover are the request's own text. A prompt without hash ids is the
 * synthetic workload's prompt for the request: its own text after the workload's shared prefix
 * (none unless the settings ask), so it shares no opening with another request.
 *
 * Block texts are kept in a bounded LRU cache: memory stays flat over a trace of millions of rows,
 * and an evicted block is rebuilt to the same text.
 *
 * How exact: the prompt counts `inputTokens` wherever the counter can reach it, checked with the
 * counter on the whole text. Each block's text starts with a space (but the one that opens the
 * prompt), so that with the tokenizers served today (a pre-tokenizer, or SentencePiece's `▁`,
 * splits before a space) no token spans two blocks; and each is cut to `blockTokens` as it is
 * counted where it stands: the first at the prompt's start (where a tokenizer may split a word it
 * keeps whole after a space, and SentencePiece adds its `▁`), the others after text. Then block i of
 * two prompts is the same tokens at the same place. (Mooncake's ids belong to one place: the first
 * block's text differs from the same id's text elsewhere only where its cut does.) Where the
 * counter is not additive over the blocks (the estimate rounds each), the last block or the
 * request's own text is cut to fit the whole, and where the blocks before it already count more,
 * up to 64 characters come off their end. `tokens` always gives the count as the counter makes it. A chat request adds its template's tokens, as with
 * synthetic prompts.
 */
import { MOONCAKE_BLOCK_TOKENS } from '../format/trace';
import { createRandom, type Random } from './random';
import type { TraceEntry } from './trace';
import type { TokenCounter } from './types';
import { createTextSource, mixSeed } from './sources';

export interface TracePromptOptions {
  /** The run's seed: the same seed gives the same prompts. */
  seed: number;
  counter: TokenCounter;
  /** Tokens each hash id stands for (Mooncake: 512). */
  blockTokens?: number;
  /** The workload's shared prefix, for entries without hash ids (as the synthetic workload's). */
  sharedPrefixTokens?: number;
  prefixCount?: number;
  /** Block texts kept for reuse. */
  cacheBlocks?: number;
}

export interface TracePrompt {
  text: string;
  /** Its tokens, as the counter counts them. */
  tokens: number;
  /** How many of its leading tokens are hash-id blocks (the shareable part). */
  blockTokens: number;
}

export interface TracePromptBuilder {
  prompt(entry: Pick<TraceEntry, 'line' | 'inputTokens' | 'hashIds'>): TracePrompt;
  /** Block texts held now (at most `cacheBlocks`). */
  readonly cachedBlocks: number;
}

/** About 2.5 KB of text per block of 512 tokens: a few MB. */
export const DEFAULT_CACHED_BLOCKS = 2048;

/** Seed streams apart from the text source's own (-1 and below for its filler and prefixes). */
const BLOCK_STREAM = -1_000_001;
const REQUEST_STREAM = -1_000_002;

/** The text that a block or a request's own text follows: a space, so that it begins a word. */
const WORD_START = { text: ' ', tokens: 0 };
/** The text that opens a prompt comes after nothing. */
const PROMPT_START = { text: '', tokens: 0 };
/** The most characters taken off the blocks' end when they count more than the prompt's length. */
const MAX_TRIMMED_CHARS = 64;
/** Text that blocks are counted after, as they stand inside a prompt. */
const CONTEXT = 'Text.';

export function createTracePromptBuilder(options: TracePromptOptions): TracePromptBuilder {
  const { seed, counter } = options;
  const blockTokens = options.blockTokens ?? MOONCAKE_BLOCK_TOKENS;
  const capacity = Math.max(1, options.cacheBlocks ?? DEFAULT_CACHED_BLOCKS);
  const texts = createTextSource(seed, options.sharedPrefixTokens ?? 0, options.prefixCount ?? 1, counter);
  const contextTokens = counter.count(CONTEXT);
  const inPrompt: TokenCounter = { ...counter, count: (text) => (text.length === 0 ? 0 : counter.count(CONTEXT + text) - contextTokens) };
  /** The same text as `texts` (the same seed), cut to counts inside a prompt. */
  const blockTexts = createTextSource(seed, 0, 1, inPrompt);
  const blockSeed = mixSeed(seed, BLOCK_STREAM);
  const requestSeed = mixSeed(seed, REQUEST_STREAM);
  // Ids beyond 32 bits are mixed in two halves.
  const blockRandom = (id: number): Random => createRandom(mixSeed(mixSeed(blockSeed, Math.floor(id / 2 ** 32)), id >>> 0));
  const requestRandom = (line: number): Random => createRandom(mixSeed(requestSeed, line));
  /**
   * A block's text, `tokens` long where it stands: the first block opens the prompt (no space, and
   * counted as a prompt's start: a tokenizer may split a word there that it keeps whole after a
   * space), the others follow text. Its `tokens` first tokens of the id's text, when `tokens` is
   * under a block.
   */
  const blockText = (id: number, first: boolean, tokens: number): { text: string; tokens: number } =>
    first ? texts.extend(PROMPT_START, tokens, blockRandom(id)) : blockTexts.extend(WORD_START, tokens, blockRandom(id));
  /** Whole blocks by id (and the first blocks of prompts by -1 - id), least recently used first. */
  const blocks = new Map<number, { text: string; tokens: number }>();
  const block = (id: number, first: boolean): { text: string; tokens: number } => {
    const key = first ? -1 - id : id;
    const cached = blocks.get(key);
    if (cached !== undefined) {
      blocks.delete(key);
      blocks.set(key, cached);
      return cached;
    }
    const built = blockText(id, first, blockTokens);
    // One flat string, not a slice of the longer text it was cut from.
    const made = { text: flat(built.text), tokens: built.tokens };
    blocks.set(key, made);
    if (blocks.size > capacity) blocks.delete(blocks.keys().next().value as number);
    return made;
  };

  return {
    get cachedBlocks() {
      return blocks.size;
    },
    prompt(entry) {
      const target = entry.inputTokens;
      const ids = entry.hashIds ?? [];
      if (ids.length === 0) {
        const own = texts.prompt(target, entry.line, requestRandom(entry.line));
        return { text: own.text, tokens: own.tokens, blockTokens: 0 };
      }
      // Whole blocks, then the rest: the start of the next id's block, or the request's own text.
      const whole = Math.min(ids.length, Math.floor(target / blockTokens));
      const parts: string[] = [];
      let counted = 0;
      for (let i = 0; i < whole; i++) {
        const b = block(ids[i] as number, i === 0);
        parts.push(b.text);
        counted += b.tokens;
      }
      const partialId = whole < ids.length ? ids[whole] : undefined;
      const restRandom = (): Random => (partialId !== undefined ? blockRandom(partialId) : requestRandom(entry.line));
      const base = parts.join('');
      const sharedTokens = (tokens: number): number => Math.min(tokens, partialId !== undefined ? target : whole * blockTokens);
      if (counted < target) {
        // Additive with the tokenizers served (no token spans a word start); checked on the whole.
        const rest =
          partialId !== undefined ? blockText(partialId, whole === 0, target - counted) : blockTexts.extend(WORD_START, target - counted, requestRandom(entry.line));
        const text = base + rest.text;
        const tokens = counter.count(text);
        if (tokens === target) return { text, tokens, blockTokens: sharedTokens(tokens) };
      } else {
        const tokens = counter.count(base);
        if (tokens === target) return { text: base, tokens, blockTokens: sharedTokens(tokens) };
      }
      // Not additive (the estimate rounds each part): the rest is cut to fit the whole text. Where
      // the whole blocks alone already count more, their last characters go first.
      const startAfter = (text: string) => (text === '' ? PROMPT_START : { text: `${text} `, tokens: counter.count(`${text} `) });
      let start = startAfter(base);
      for (let cut = 1; start.tokens > target && cut <= MAX_TRIMMED_CHARS && cut < base.length; cut++) start = startAfter(base.slice(0, base.length - cut));
      const fitted = texts.extend(start, target, restRandom());
      return { text: fitted.text, tokens: fitted.tokens, blockTokens: sharedTokens(fitted.tokens) };
    },
  };
}

/** A string's own copy, so that a cached block does not keep the longer text it was cut from alive. */
function flat(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
