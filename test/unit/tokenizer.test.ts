import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTokenizer, createTokenCounter, loadTokenizer } from '../../src/workload/tokenizer';
import { estimateTokens } from '../../src/workload/tokens';

const dir = mkdtempSync(join(tmpdir(), 'llmbench-tokenizer-'));
function writeJson(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** GPT-2's byte-to-character table, written out independently of the tokenizer's own. */
function gpt2ByteChars(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const chars: string[] = [];
  let n = 0;
  for (let b = 0; b < 256; b++) chars.push(String.fromCodePoint(keep.includes(b) ? b : 256 + n++));
  return chars;
}

/** A byte-level BPE in the GPT-2 layout: ids 0-255 are the byte characters, merges add tokens after them. */
function byteLevelTokenizer(merges: string[], preTokenizer: unknown, extra: Record<string, unknown> = {}) {
  const vocab: Record<string, number> = {};
  gpt2ByteChars().forEach((ch, i) => (vocab[ch] = i));
  for (const merge of merges) {
    const token = merge.replace(' ', '');
    vocab[token] ??= Object.keys(vocab).length;
  }
  return {
    version: '1.0',
    added_tokens: [{ id: 1000, content: '<|endoftext|>', special: true }],
    normalizer: null,
    pre_tokenizer: preTokenizer,
    model: { type: 'BPE', vocab, merges, ...extra },
  };
}

const MERGES = ['h e', 'l l', 'Ġ t', 'Ġt he', 'he ll', 'o r', 'hell o'];

test('tokenizer: byte-level BPE (GPT-2 layout) encodes by merge rank, as worked out by hand', () => {
  const spec = byteLevelTokenizer(MERGES, { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true });
  const t = buildTokenizer(spec, 'gpt2-like');
  const id = (token: string) => spec.model.vocab[token] as number;
  // "hello" -> h e l l o -> (h e)=0 -> he l l o -> (l l)=1 -> he ll o -> (he ll)=4 -> hell o -> (hell o)=6 -> hello
  assert.deepEqual(t.encode('hello'), [id('hello')]);
  // " the" -> Ġ t h e: (h e) ranks 0 before (Ġ t) 2, then (Ġt he) 3
  assert.deepEqual(t.encode(' the'), [id('Ġthe')]);
  // " world" -> Ġ w o r l d: only (o r) applies
  assert.deepEqual(t.encode(' world'), [id('Ġ'), id('w'), id('or'), id('l'), id('d')]);
  // "lll": two equal-rank pairs, the leftmost merges first
  assert.deepEqual(t.encode('lll'), [id('ll'), id('l')]);
  // The regex splits "hello the world!!" into hello / Ġthe / Ġworld / !!
  assert.deepEqual(t.encode('hello the world!!'), [id('hello'), id('Ġthe'), id('Ġ'), id('w'), id('or'), id('l'), id('d'), id('!'), id('!')]);
  // Non-ASCII goes through bytes: é is C3 A9, each a byte character
  assert.deepEqual(t.encode('é'), [0xc3, 0xa9]);
  // Added tokens are matched first and count as one token
  assert.deepEqual(t.encode('hello<|endoftext|>hello'), [id('hello'), 1000, id('hello')]);
  assert.equal(t.count(' the the the'), 3);
});

test('tokenizer: Llama 3 style Split regex with (?i:...) contractions, then byte-level without regex', () => {
  const llama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  const spec = byteLevelTokenizer([...MERGES, 'S u'], {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: llama3Pattern }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  }, { ignore_merges: true });
  const t = buildTokenizer(spec, 'llama3-like');
  // "Sun" merges S+u; in "'Sun" the case-insensitive contraction takes 'S first, leaving u n unmerged
  assert.equal(t.count('Sun'), 2);
  assert.equal(t.count("'Sun"), 4);
  // 12345 splits as 123 + 45, one byte token each
  assert.equal(t.count('12345'), 5);
  assert.equal(t.encode('12345').length, 5);
  const id = (token: string) => spec.model.vocab[token] as number;
  assert.deepEqual(t.encode('hello the'), [id('hello'), id('Ġthe')]);
});

/** A SentencePiece-style BPE as Llama 2's tokenizer.json has it: ▁ for spaces, <0xXX> byte fallback. */
function metaspaceTokenizer(style: 'normalizer' | 'pre_tokenizer') {
  const vocab: Record<string, number> = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = 3 + b;
  for (const piece of ['▁', 'h', 'e', 'l', 'o', 'w', 'r', 'd', '▁h', 'll', '▁he', '▁hell', '▁hello', '▁w', 'or']) vocab[piece] = Object.keys(vocab).length;
  const merges = ['▁ h', 'l l', '▁h e', '▁he ll', '▁hell o', '▁ w', 'o r'];
  const model = { type: 'BPE', vocab, merges, unk_token: '<unk>', byte_fallback: true, fuse_unk: true };
  return style === 'normalizer'
    ? { normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] }, pre_tokenizer: null, model }
    : { normalizer: null, pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false }, model };
}

for (const style of ['normalizer', 'pre_tokenizer'] as const) {
  test(`tokenizer: Llama 2 style ▁ BPE with byte fallback (via the ${style}), as worked out by hand`, () => {
    const spec = metaspaceTokenizer(style);
    const t = buildTokenizer(spec, `llama2-${style}`);
    const id = (token: string) => spec.model.vocab[token] as number;
    // "▁hello▁world": ▁h, ll, ▁he, ▁hell, ▁hello, ▁w, or -> ▁hello ▁w or l d
    assert.deepEqual(t.encode('hello world'), [id('▁hello'), id('▁w'), id('or'), id('l'), id('d')]);
    // é is not in the vocabulary: its UTF-8 bytes C3 A9 become <0xC3> <0xA9>
    assert.deepEqual(t.encode('hé'), [id('▁h'), id('<0xC3>'), id('<0xA9>')]);
    // A long text is one word here: the heap-based merge handles it, and counts add up
    assert.equal(t.count(Array(20_000).fill('hello').join(' ')), 20_000);
  });
}

test('tokenizer: byte fallback per character when the vocabulary lacks a byte token, as Gemma\'s lacks <0x09>', () => {
  const spec = metaspaceTokenizer('normalizer');
  delete spec.model.vocab['<0x09>'];
  const t = buildTokenizer(spec, 'gemma-like');
  const id = (token: string) => spec.model.vocab[token] as number;
  // é still falls back to its bytes; the tab, whose byte has no token, is unk (fused with the next unk)
  assert.deepEqual(t.encode('hé'), [id('▁h'), id('<0xC3>'), id('<0xA9>')]);
  assert.deepEqual(t.encode('h\t\t'), [id('▁h'), id('<unk>')]);
});

test('tokenizer: \\s in a pattern is Unicode whitespace as in the Rust library (U+0085 is, U+FEFF is not)', () => {
  const preTokenizer = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: '\\s+|\\S+' }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, use_regex: false },
    ],
  };
  // Merges that join a space with the next bytes, which they can only do within one piece.
  // U+0085 is C2 85 (Â ħ), U+FEFF is EF BB BF (ï » ¿).
  const t = buildTokenizer(byteLevelTokenizer(['Ġ Â', 'ĠÂ ħ', 'Ġ ï'], preTokenizer), 'whitespace');
  // " \u0085" is one whitespace piece: Ġ Â ħ merge into one token (JavaScript's \s would cut after the space: 3)
  assert.equal(t.count(' \u0085'), 1);
  // " \ufeffx" is a space, then a non-space piece: Ġ, ï, », ¿, x (JavaScript's \s would take the space and ï together: 4)
  assert.equal(t.count(' \ufeffx'), 5);
});

test('tokenizer: the counter without a file is the documented estimate; with one it says tokenizer', async () => {
  const estimate = await createTokenCounter();
  assert.equal(estimate.source, 'estimate');
  assert.equal(estimate.count('twelve chars'), estimateTokens('twelve chars'));
  const path = writeJson('gpt2.json', byteLevelTokenizer(MERGES, { type: 'ByteLevel', add_prefix_space: false, use_regex: true }));
  const counter = await createTokenCounter(path);
  assert.equal(counter.source, 'tokenizer');
  assert.equal(counter.count('hello the world'), 7);
  assert.equal((await loadTokenizer(path)).count('hello'), 1);
});

test('tokenizer: bad files get an error naming the file and what is wrong', async () => {
  const missing = join(dir, 'nope.json');
  await assert.rejects(createTokenCounter(missing), (e: Error) => e.message.includes(missing) && /was not found/.test(e.message));
  const notJson = writeJson('broken.json', '{"model": ');
  await assert.rejects(createTokenCounter(notJson), (e: Error) => e.message.includes(notJson) && /is not JSON/.test(e.message));
  const unigram = writeJson('unigram.json', { model: { type: 'Unigram', vocab: {} } });
  await assert.rejects(createTokenCounter(unigram), /model type "Unigram" is not supported; only BPE/);
  const badMerge = writeJson('merge.json', { model: { type: 'BPE', vocab: { a: 0, b: 1 }, merges: ['a b'] } });
  await assert.rejects(createTokenCounter(badMerge), (e: Error) => e.message.includes(badMerge) && /merges\[0\] "a b" uses "ab", which is not in model.vocab/.test(e.message));
  const badRegex = writeJson('regex.json', { pre_tokenizer: { type: 'Split', pattern: { Regex: '(unclosed' }, behavior: 'Isolated' }, model: { vocab: { a: 0 }, merges: [] } });
  await assert.rejects(createTokenCounter(badRegex), /pre_tokenizer: the pattern "\(unclosed" is not a regular expression/);
  const odd = writeJson('odd.json', { pre_tokenizer: { type: 'BertPreTokenizer' }, model: { vocab: { a: 0 }, merges: [] } });
  await assert.rejects(createTokenCounter(odd), /pre_tokenizer type "BertPreTokenizer" is not supported \(supported: Sequence, ByteLevel/);
  const noVocab = writeJson('novocab.json', { model: { type: 'BPE' } });
  await assert.rejects(createTokenCounter(noVocab), (e: Error) => e.message.includes(noVocab) && /model\.vocab/.test(e.message));
});
