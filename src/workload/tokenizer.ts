/**
 * Token counting with a Hugging Face `tokenizer.json`: a BPE tokenizer written for this project.
 *
 * Covers the BPE models served in practice: byte-level ones (GPT-2, Llama 3, Qwen, Mistral
 * Nemo: a pre-tokenizer regex, then bytes mapped to printable characters) and SentencePiece-style
 * ones (Llama 2, Mistral 7B: spaces become `▁`, unknown characters fall back to `<0xXX>` bytes).
 * Text is counted as it is: special tokens written in it count as one token each, and the
 * post-processor's BOS is not added. Chat prompts are counted through the model's chat template
 * when the tokenizer_config.json beside the file has a known one (chat-template.ts).
 * Without a file, counting falls back to the documented estimate (tokens.ts).
 */
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { describeZodError } from '../format/result';
import { messagesText, recogniseChatTemplate } from './chat-template';
import { BadInputError } from '../format/errors';
import { readTextFile } from './files';
import { estimateTokens } from './tokens';
import type { TokenCounter } from './types';

export interface Tokenizer {
  encode(text: string): number[];
  count(text: string): number;
}

/** A tokenizer file that cannot be used; the message names the file and what is wrong. */
export class TokenizerFileError extends BadInputError {}

/** Counting without a tokenizer file: the documented estimate, chat prompts by their text. */
export const ESTIMATE_COUNTER: TokenCounter = {
  source: 'estimate',
  count: estimateTokens,
  countChat: (messages) => estimateTokens(messagesText(messages)),
  chatTemplate: null,
  chatNote: null,
};

export async function createTokenCounter(tokenizerPath?: string): Promise<TokenCounter> {
  if (tokenizerPath === undefined) return ESTIMATE_COUNTER;
  const tokenizer = await loadTokenizer(tokenizerPath);
  const configPath = join(dirname(tokenizerPath), 'tokenizer_config.json');
  const config = await readTokenizerConfig(configPath);
  const found = config === undefined ? { template: null, reason: 'no readable tokenizer_config.json is beside the tokenizer' } : recogniseChatTemplate(config);
  if (found.template === null) {
    return {
      source: 'tokenizer',
      count: tokenizer.count,
      countChat: (messages) => tokenizer.count(messagesText(messages)),
      chatTemplate: null,
      chatNote: `Chat prompts are counted as their messages' text, without a chat template: ${found.reason} (${configPath}).`,
    };
  }
  const { template } = found;
  return {
    source: 'tokenizer',
    count: tokenizer.count,
    countChat: (messages) => tokenizer.count(template.render(messages)),
    chatTemplate: template.name,
    chatNote: `Chat prompts are counted with the ${template.name} chat template of ${configPath}, generation prompt included.`,
  };
}

/** A tokenizer_config.json beside the tokenizer, parsed; undefined when it is missing or unreadable. */
async function readTokenizerConfig(path: string): Promise<unknown> {
  const text = await readTextFile(path);
  if (!text.ok) return undefined;
  try {
    return JSON.parse(text.value);
  } catch {
    return undefined;
  }
}

export async function loadTokenizer(path: string): Promise<Tokenizer> {
  const text = await readTextFile(path);
  if (!text.ok) {
    throw new TokenizerFileError(`Tokenizer file ${path} ${text.error}. Point "tokenizer" at a Hugging Face tokenizer.json, or leave it unset to count with the estimate.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.value);
  } catch (error) {
    throw new TokenizerFileError(`Tokenizer file ${path} is not JSON (${(error as Error).message}). It should be a Hugging Face tokenizer.json.`);
  }
  return buildTokenizer(json, path);
}

// ---------------------------------------------------------------------------------------------
// The file's shape. Components are checked one by one so that an unsupported one is named.

const TypedSchema = z.object({ type: z.string() }).loose();
const PatternSchema = z.union([z.object({ Regex: z.string() }).loose(), z.object({ String: z.string() }).loose()]);

const TokenizerFileSchema = z
  .object({
    added_tokens: z.array(z.object({ id: z.number().int().nonnegative(), content: z.string().min(1) }).loose()).default([]),
    normalizer: TypedSchema.nullable().default(null),
    pre_tokenizer: TypedSchema.nullable().default(null),
    model: z
      .object({
        type: z.string().optional(),
        vocab: z.record(z.string(), z.number().int().nonnegative()),
        merges: z.array(z.union([z.string(), z.tuple([z.string(), z.string()])])).default([]),
        unk_token: z.string().nullable().optional(),
        byte_fallback: z.boolean().optional(),
        fuse_unk: z.boolean().optional(),
        continuing_subword_prefix: z.string().nullable().optional(),
        end_of_word_suffix: z.string().nullable().optional(),
        ignore_merges: z.boolean().optional(),
      })
      .loose(),
  })
  .loose();

type Normalize = (text: string) => string;
/** Splits text into pieces; `atInputStart` is true for text that opens the whole input. */
type PreTokenize = (pieces: string[], atInputStart: boolean) => string[];

/** Checks one component against its schema; the error names the file and the component. */
function parsePart<T>(schema: z.ZodType<T>, value: unknown, file: string, where: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new TokenizerFileError(`Tokenizer file ${file}: ${where}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

function unsupported(file: string, where: string, type: string, supported: string): TokenizerFileError {
  return new TokenizerFileError(`Tokenizer file ${file}: ${where} type "${type}" is not supported (supported: ${supported}).`);
}

/** Turns a tokenizer.json's `{Regex}` (Rust/Oniguruma syntax) or `{String}` pattern into a JS RegExp. */
function compilePattern(pattern: z.infer<typeof PatternSchema>, file: string, where: string): RegExp {
  const source = 'Regex' in pattern ? translateRegex(String(pattern.Regex)) : escapeRegex(String(pattern.String));
  try {
    return new RegExp(source, 'gu');
  } catch (error) {
    throw new TokenizerFileError(`Tokenizer file ${file}: ${where}: the pattern ${JSON.stringify(source)} is not a regular expression this tokenizer can run (${(error as Error).message}).`);
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Oniguruma's word characters (letters, marks, decimal digits, connectors), as a class body. */
const WORD_CLASS_BODY = String.raw`\p{Alphabetic}\p{M}\p{Nd}\p{Pc}`;

/**
 * Escapes whose meaning differs between the tokenizers library's Oniguruma and JavaScript: there
 * `\s` is Unicode White_Space (with U+0085, without U+FEFF, unlike JS), and `\d`/`\w` are Unicode
 * (ASCII only in JS). `\W` has no form inside a JS class and is left as JS reads it there.
 */
const ONIGURUMA_ESCAPES: Readonly<Record<string, { inClass: string; outside: string }>> = {
  s: { inClass: String.raw`\p{White_Space}`, outside: String.raw`\p{White_Space}` },
  S: { inClass: String.raw`\P{White_Space}`, outside: String.raw`\P{White_Space}` },
  d: { inClass: String.raw`\p{Nd}`, outside: String.raw`\p{Nd}` },
  D: { inClass: String.raw`\P{Nd}`, outside: String.raw`\P{Nd}` },
  w: { inClass: WORD_CLASS_BODY, outside: `[${WORD_CLASS_BODY}]` },
  W: { inClass: String.raw`\W`, outside: `[^${WORD_CLASS_BODY}]` },
};

/**
 * Rewrites a tokenizer.json pattern (Rust/Oniguruma syntax) for JavaScript: the escapes above,
 * and inline case-insensitive groups `(?i:...)`, which JavaScript before ES2025 lacks and the
 * Llama 3 and Qwen patterns use for English contractions: their letters become `[sS]` classes.
 */
function translateRegex(source: string): string {
  let out = '';
  let inClass = false;
  /** Group depths at which a `(?i:` group opened; letters inside any of them match both cases. */
  const caseInsensitiveAt: number[] = [];
  let depth = 0;
  for (let i = 0; i < source.length; ) {
    const ch = source[i] as string;
    if (ch === '\\') {
      const escaped = ONIGURUMA_ESCAPES[source[i + 1] ?? ''];
      // A braced escape (\p{L}, \x{41}) is copied whole: its letters are not to be case-folded.
      const end = source[i + 2] === '{' && 'pPxu'.includes(source[i + 1] ?? '') ? source.indexOf('}', i) + 1 || i + 2 : i + 2;
      out += escaped === undefined ? source.slice(i, end) : inClass ? escaped.inClass : escaped.outside;
      i = end;
      continue;
    }
    if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (source.startsWith('(?i:', i)) {
      caseInsensitiveAt.push(++depth);
      out += '(?:';
      i += 4;
      continue;
    } else if (ch === '(') depth++;
    else if (ch === ')') {
      if (caseInsensitiveAt.at(-1) === depth) caseInsensitiveAt.pop();
      depth--;
    }
    const upper = ch.toUpperCase();
    out += caseInsensitiveAt.length > 0 && !inClass && upper !== ch.toLowerCase() ? `[${ch.toLowerCase()}${upper}]` : ch;
    i++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Normalizers

const NORMALIZERS = 'Sequence, Prepend, Replace, NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents';

function buildNormalizer(spec: z.infer<typeof TypedSchema>, file: string): Normalize {
  const where = 'normalizer';
  switch (spec.type) {
    case 'Sequence': {
      const { normalizers } = parsePart(z.object({ normalizers: z.array(TypedSchema) }).loose(), spec, file, where);
      const steps = normalizers.map((n) => buildNormalizer(n, file));
      return (text) => steps.reduce((t, step) => step(t), text);
    }
    case 'Prepend': {
      const { prepend } = parsePart(z.object({ prepend: z.string() }).loose(), spec, file, where);
      return (text) => (text.length > 0 ? prepend + text : text);
    }
    case 'Replace': {
      const { pattern, content } = parsePart(z.object({ pattern: PatternSchema, content: z.string() }).loose(), spec, file, where);
      const regex = compilePattern(pattern, file, where);
      return (text) => text.replace(regex, () => content);
    }
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = spec.type;
      return (text) => text.normalize(form);
    }
    case 'Lowercase':
      return (text) => text.toLowerCase();
    case 'Strip': {
      const { strip_left: left, strip_right: right } = parsePart(z.object({ strip_left: z.boolean().default(true), strip_right: z.boolean().default(true) }).loose(), spec, file, where);
      return (text) => {
        const t = left ? text.trimStart() : text;
        return right ? t.trimEnd() : t;
      };
    }
    case 'StripAccents':
      return (text) => text.normalize('NFD').replace(/\p{Mn}/gu, '');
    default:
      throw unsupported(file, where, spec.type, NORMALIZERS);
  }
}

// ---------------------------------------------------------------------------------------------
// Pre-tokenizers

const PRE_TOKENIZERS = 'Sequence, ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit, Digits, Punctuation';
const GPT2_PATTERN = new RegExp(translateRegex(String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`), 'gu');

type SplitBehavior = 'Removed' | 'Isolated' | 'MergedWithPrevious' | 'MergedWithNext' | 'Contiguous';

/** Splits each piece around the matches of `regex`, as the tokenizers library's Split does. */
function splitBy(regex: RegExp, behavior: SplitBehavior, invert: boolean): PreTokenize {
  return (pieces) => {
    const out: string[] = [];
    for (const piece of pieces) {
      const parts: Array<{ text: string; match: boolean }> = [];
      let last = 0;
      for (const m of piece.matchAll(regex)) {
        if (m[0].length === 0) continue;
        if (m.index > last) parts.push({ text: piece.slice(last, m.index), match: invert });
        parts.push({ text: m[0], match: !invert });
        last = m.index + m[0].length;
      }
      if (last < piece.length) parts.push({ text: piece.slice(last), match: invert });
      let carry = '';
      parts.forEach((part, i) => {
        if (!part.match) {
          out.push(carry + part.text);
          carry = '';
          return;
        }
        const previousIsMatch = parts[i - 1]?.match ?? false;
        const nextIsGap = parts[i + 1]?.match === false;
        if (behavior === 'Removed') return;
        if (behavior === 'MergedWithPrevious' && i > 0 && !previousIsMatch) out[out.length - 1] += part.text;
        else if (behavior === 'MergedWithNext' && nextIsGap) carry = part.text;
        else if (behavior === 'Contiguous' && previousIsMatch) out[out.length - 1] += part.text;
        else out.push(part.text);
      });
    }
    return out;
  };
}

/** GPT-2's reversible map from bytes to printable characters (so that no byte is whitespace or a control). */
const BYTE_CHARS: string[] = (() => {
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    chars.push(String.fromCharCode(printable ? b : 256 + extra++));
  }
  return chars;
})();

function toByteChars(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  for (const b of bytes) out += BYTE_CHARS[b];
  return out;
}

function buildPreTokenizer(spec: z.infer<typeof TypedSchema>, file: string): PreTokenize {
  const where = 'pre_tokenizer';
  switch (spec.type) {
    case 'Sequence': {
      const { pretokenizers } = parsePart(z.object({ pretokenizers: z.array(TypedSchema) }).loose(), spec, file, where);
      const steps = pretokenizers.map((p) => buildPreTokenizer(p, file));
      return (pieces, atInputStart) => steps.reduce((p, step) => step(p, atInputStart), pieces);
    }
    case 'ByteLevel': {
      const options = parsePart(z.object({ add_prefix_space: z.boolean().default(true), use_regex: z.boolean().default(true) }).loose(), spec, file, where);
      const split = options.use_regex ? splitBy(GPT2_PATTERN, 'Isolated', false) : (pieces: string[]) => pieces;
      return (pieces) => {
        const spaced = options.add_prefix_space ? pieces.map((p) => (p.startsWith(' ') ? p : ' ' + p)) : pieces;
        return split(spaced, false).map(toByteChars);
      };
    }
    case 'Split': {
      const options = parsePart(
        z.object({ pattern: PatternSchema, behavior: z.enum(['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous']), invert: z.boolean().default(false) }).loose(),
        spec,
        file,
        where,
      );
      return splitBy(compilePattern(options.pattern, file, where), options.behavior, options.invert);
    }
    case 'Metaspace': {
      const options = parsePart(
        z
          .object({
            replacement: z.string().default('▁'),
            prepend_scheme: z.enum(['always', 'first', 'never']).optional(),
            add_prefix_space: z.boolean().optional(),
            split: z.boolean().default(true),
          })
          .loose(),
        spec,
        file,
        where,
      );
      const { replacement } = options;
      const scheme = options.prepend_scheme ?? (options.add_prefix_space === false ? 'never' : 'always');
      const split = options.split ? splitBy(new RegExp(escapeRegex(replacement), 'gu'), 'MergedWithNext', false) : (pieces: string[]) => pieces;
      return (pieces, atInputStart) => {
        const replaced = pieces.map((p, i) => {
          const t = p.replaceAll(' ', replacement);
          const prepend = scheme === 'always' || (scheme === 'first' && atInputStart && i === 0);
          return prepend && !t.startsWith(replacement) ? replacement + t : t;
        });
        return split(replaced, atInputStart);
      };
    }
    case 'Whitespace':
      // Keeps runs of word characters and runs of other non-space characters; drops spaces.
      return splitBy(/[\p{L}\p{N}\p{M}\p{Pc}]+|[^\p{L}\p{N}\p{M}\p{Pc}\s]+/gu, 'Removed', true);
    case 'WhitespaceSplit':
      return splitBy(/\s+/gu, 'Removed', false);
    case 'Digits': {
      const { individual_digits } = parsePart(z.object({ individual_digits: z.boolean().default(false) }).loose(), spec, file, where);
      return splitBy(individual_digits ? /\p{Nd}/gu : /\p{Nd}+/gu, 'Isolated', false);
    }
    case 'Punctuation':
      return splitBy(/\p{P}|[!-\/:-@\[-`{-~]/gu, 'Isolated', false);
    default:
      throw unsupported(file, where, spec.type, PRE_TOKENIZERS);
  }
}

// ---------------------------------------------------------------------------------------------
// The BPE model

/** Pairs are keyed as one number: ids stay below 2^21 in any real vocabulary. */
const ID_LIMIT = 2 ** 21;
const pairKey = (left: number, right: number): number => left * ID_LIMIT + right;
/** Heap entries too: rank first, then the left symbol's position (leftmost wins a tie). */
const POSITION_LIMIT = 2 ** 31;
const WORD_CACHE_LIMIT = 50_000;
/** SentencePiece's space, and the places a `▁`-spaced text can be cut into its words. */
const METASPACE = '\u2581';
const BEFORE_SPACED_WORD = /(?<=[^\u2581])(?=\u2581)/u;
const CACHED_WORD_LENGTH = 256;

type BpeSpec = z.infer<typeof TokenizerFileSchema>['model'];

class BpeModel {
  private readonly vocab: Map<string, number>;
  /** Pair key -> merge rank; the merged token of rank r is mergedId[r]. */
  private readonly ranks = new Map<number, number>();
  private readonly mergedId: Int32Array;
  private readonly unkId: number | undefined;
  /** `<0xXX>` token ids by byte, where the vocabulary has them (byte_fallback only). */
  private readonly byteIds: Array<number | undefined> = [];
  private readonly byteFallback: boolean;
  private readonly cache = new Map<string, number[]>();
  /**
   * SentencePiece-style files (Llama 2, Gemma) have no pre-tokenizer: a whole text is one word,
   * whose merges would cost O(n log n) per count and miss the cache. Where no token of the
   * vocabulary holds a `▁` after another character, no merge can cross the start of a `▁`-spaced
   * word, so cutting the text there gives the same tokens, word by word.
   */
  private readonly splitsBeforeSpaces: boolean;

  constructor(
    private readonly spec: BpeSpec,
    file: string,
  ) {
    this.vocab = new Map(Object.entries(spec.vocab));
    for (const id of this.vocab.values()) {
      if (id >= ID_LIMIT) throw new TokenizerFileError(`Tokenizer file ${file}: model.vocab has id ${id}; ids above ${ID_LIMIT - 1} are not supported.`);
    }
    this.mergedId = new Int32Array(spec.merges.length);
    spec.merges.forEach((merge, rank) => {
      const parts = typeof merge === 'string' ? merge.split(' ') : merge;
      const [left, right] = parts;
      if (parts.length !== 2 || left === undefined || right === undefined) {
        throw new TokenizerFileError(`Tokenizer file ${file}: model.merges[${rank}] ${JSON.stringify(merge)} is not a pair of tokens.`);
      }
      const ids = [left, right, left + right].map((token) => {
        const id = this.vocab.get(token);
        if (id === undefined) throw new TokenizerFileError(`Tokenizer file ${file}: model.merges[${rank}] ${JSON.stringify(merge)} uses ${JSON.stringify(token)}, which is not in model.vocab.`);
        return id;
      }) as [number, number, number];
      const key = pairKey(ids[0], ids[1]);
      if (!this.ranks.has(key)) this.ranks.set(key, rank);
      this.mergedId[rank] = ids[2];
    });
    this.unkId = spec.unk_token ? this.vocab.get(spec.unk_token) : undefined;
    this.byteFallback = spec.byte_fallback === true;
    this.splitsBeforeSpaces = this.vocab.has(METASPACE) && ![...this.vocab.keys()].some((token) => /[^\u2581]\u2581/u.test(token));
    for (let b = 0; b < 256; b++) this.byteIds.push(this.vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`));
  }

  encodeWord(word: string, out: number[]): void {
    if (!this.splitsBeforeSpaces) this.encodePiece(word, out);
    else for (const piece of word.split(BEFORE_SPACED_WORD)) this.encodePiece(piece, out);
  }

  private encodePiece(word: string, out: number[]): void {
    const cached = this.cache.get(word);
    if (cached !== undefined) {
      for (const id of cached) out.push(id);
      return;
    }
    const ids = this.merge(word);
    if (word.length <= CACHED_WORD_LENGTH) {
      if (this.cache.size >= WORD_CACHE_LIMIT) this.cache.clear();
      this.cache.set(word, ids);
    }
    for (const id of ids) out.push(id);
  }

  /**
   * The word's initial symbols (characters, or fallback bytes, or unk), then merges by rank. A
   * character falls back to bytes only when every one of its bytes has a `<0xXX>` token (Gemma's
   * vocabulary lacks `<0x09>`, its tab being a token of its own); otherwise it is unk. As in the
   * tokenizers library, an unk waits until the next known character or the word's end, so that
   * fuse_unk can join it with the next one even across fallback bytes.
   */
  private merge(word: string): number[] {
    const { vocab, spec } = this;
    if (spec.ignore_merges) {
      const whole = vocab.get(word);
      if (whole !== undefined) return [whole];
    }
    const prefix = spec.continuing_subword_prefix ?? '';
    const suffix = spec.end_of_word_suffix ?? '';
    const chars = Array.from(word);
    const symbols: number[] = [];
    let pendingUnk = false;
    chars.forEach((ch, i) => {
      const token = (i > 0 ? prefix : '') + ch + (i === chars.length - 1 ? suffix : '');
      const id = vocab.get(token);
      if (id !== undefined) {
        if (pendingUnk) symbols.push(this.unkId as number);
        pendingUnk = false;
        symbols.push(id);
        return;
      }
      const bytes = this.byteFallback ? this.byteTokens(token) : undefined;
      if (bytes !== undefined) {
        for (const b of bytes) symbols.push(b);
        return;
      }
      if (this.unkId === undefined) return;
      if (pendingUnk && !spec.fuse_unk) symbols.push(this.unkId);
      pendingUnk = true;
    });
    if (pendingUnk) symbols.push(this.unkId as number);
    return symbols.length < 2 ? symbols : this.applyMerges(symbols);
  }

  /** The token's bytes as `<0xXX>` ids, or undefined when one of them has none. */
  private byteTokens(token: string): number[] | undefined {
    const ids: number[] = [];
    for (const b of Buffer.from(token, 'utf8')) {
      const id = this.byteIds[b];
      if (id === undefined) return undefined;
      ids.push(id);
    }
    return ids;
  }

  /** Merges the lowest-ranked adjacent pair until none is left: a heap over a linked list, O(n log n). */
  private applyMerges(ids: number[]): number[] {
    const n = ids.length;
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    const alive = new Uint8Array(n).fill(1);
    const heap: number[] = [];
    const consider = (left: number): void => {
      const right = next[left] as number;
      if (right === -1) return;
      const rank = this.ranks.get(pairKey(ids[left] as number, ids[right] as number));
      if (rank !== undefined) heapPush(heap, rank * POSITION_LIMIT + left);
    };
    for (let i = 0; i < n - 1; i++) consider(i);
    while (heap.length > 0) {
      const entry = heapPop(heap);
      const rank = Math.floor(entry / POSITION_LIMIT);
      const left = entry - rank * POSITION_LIMIT;
      const right = next[left] as number;
      // Stale entries (a side already merged into something else) no longer hold this pair.
      if (!alive[left] || right === -1 || this.ranks.get(pairKey(ids[left] as number, ids[right] as number)) !== rank) continue;
      ids[left] = this.mergedId[rank] as number;
      alive[right] = 0;
      const after = next[right] as number;
      next[left] = after;
      if (after !== -1) prev[after] = left;
      const before = prev[left] as number;
      if (before !== -1) consider(before);
      consider(left);
    }
    const out: number[] = [];
    for (let i = 0; i !== -1; i = next[i] as number) out.push(ids[i] as number);
    return out;
  }
}

function heapPush(heap: number[], value: number): void {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent] as number;
    if (p <= value) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0] as number;
  const last = heap.pop() as number;
  const n = heap.length;
  if (n > 0) {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && (heap[r] as number) < (heap[l] as number) ? r : l;
      if ((heap[child] as number) >= last) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = last;
  }
  return top;
}

// ---------------------------------------------------------------------------------------------

/** Builds a tokenizer from a parsed tokenizer.json; `file` names it in error messages. */
export function buildTokenizer(json: unknown, file: string): Tokenizer {
  const spec = parsePart(TokenizerFileSchema, json, file, 'top level');
  const modelType = spec.model.type ?? 'BPE';
  if (modelType !== 'BPE') {
    throw new TokenizerFileError(`Tokenizer file ${file}: model type "${modelType}" is not supported; only BPE tokenizers are (GPT-2, Llama, Qwen, Mistral and most chat models).`);
  }
  const normalize = spec.normalizer ? buildNormalizer(spec.normalizer, file) : (text: string) => text;
  const preTokenize: PreTokenize = spec.pre_tokenizer ? buildPreTokenizer(spec.pre_tokenizer, file) : (pieces) => pieces;
  const model = new BpeModel(spec.model, file);
  const added = new Map(spec.added_tokens.map((t) => [t.content, t.id]));
  // Longest first, so that a token that is a prefix of another does not win.
  const addedPattern =
    added.size > 0
      ? new RegExp(
          [...added.keys()]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegex)
            .join('|'),
          'gu',
        )
      : null;

  const encodeSegment = (segment: string, atInputStart: boolean, out: number[]): void => {
    const normalized = normalize(segment);
    if (normalized.length === 0) return;
    for (const piece of preTokenize([normalized], atInputStart)) model.encodeWord(piece, out);
  };

  const encode = (text: string): number[] => {
    const out: number[] = [];
    if (addedPattern === null) {
      encodeSegment(text, true, out);
      return out;
    }
    let last = 0;
    for (const m of text.matchAll(addedPattern)) {
      if (m.index > last) encodeSegment(text.slice(last, m.index), last === 0, out);
      out.push(added.get(m[0]) as number);
      last = m.index + m[0].length;
    }
    if (last < text.length) encodeSegment(text.slice(last), last === 0, out);
    return out;
  };

  return { encode, count: (text) => encode(text).length };
}
