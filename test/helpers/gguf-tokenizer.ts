/**
 * The tokenizer of a llama.cpp GGUF model as the files LLM Bench counts with: a Hugging Face
 * `tokenizer.json` and, beside it, a `tokenizer_config.json` with the chat template the server
 * applies. For the real llama-server tests, whose model (stories260K, a SentencePiece "llama"
 * vocabulary of 512 pieces) ships no tokenizer.json.
 *
 * llama.cpp's SentencePiece tokenizer repeatedly merges the adjacent pair whose joined piece is in
 * the vocabulary with the highest score, then spells what is left as byte pieces. The same
 * tokenizer as BPE (what transformers' converter writes for Llama 2): every split of a piece into
 * two pieces of the vocabulary is a merge, ranked by the joined piece's score; the text is
 * prefixed with "▁" and its spaces become "▁"; byte fallback on.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The GGUF value types (gguf.h): what each metadata value is. */
const GGUF_ARRAY = 9;
const GGUF_STRING = 8;

/** Reads a GGUF file's metadata (key -> value); tensors are not read. */
export function readGgufMetadata(path: string): Map<string, unknown> {
  const bytes = readFileSync(path);
  let at = 0;
  const u32 = (): number => {
    const v = bytes.readUInt32LE(at);
    at += 4;
    return v;
  };
  const u64 = (): number => {
    const v = Number(bytes.readBigUInt64LE(at));
    at += 8;
    return v;
  };
  const text = (): string => {
    const length = u64();
    const s = bytes.toString('utf8', at, at + length);
    at += length;
    return s;
  };
  const value = (type: number): unknown => {
    const fixed: Record<number, [number, (offset: number) => number | boolean]> = {
      0: [1, (o) => bytes.readUInt8(o)],
      1: [1, (o) => bytes.readInt8(o)],
      2: [2, (o) => bytes.readUInt16LE(o)],
      3: [2, (o) => bytes.readInt16LE(o)],
      4: [4, (o) => bytes.readUInt32LE(o)],
      5: [4, (o) => bytes.readInt32LE(o)],
      6: [4, (o) => bytes.readFloatLE(o)],
      7: [1, (o) => bytes.readUInt8(o) !== 0],
      10: [8, (o) => Number(bytes.readBigUInt64LE(o))],
      11: [8, (o) => Number(bytes.readBigInt64LE(o))],
      12: [8, (o) => bytes.readDoubleLE(o)],
    };
    if (type === GGUF_STRING) return text();
    if (type === GGUF_ARRAY) {
      const itemType = u32();
      return Array.from({ length: u64() }, () => value(itemType));
    }
    const reader = fixed[type];
    if (reader === undefined) throw new Error(`${path}: GGUF value type ${type} is not known`);
    const v = reader[1](at);
    at += reader[0];
    return v;
  };
  if (bytes.toString('ascii', 0, 4) !== 'GGUF') throw new Error(`${path} is not a GGUF file`);
  at = 4;
  const version = u32();
  if (version < 2) throw new Error(`${path}: GGUF version ${version} is older than this reader (2 and later)`);
  u64(); // tensors
  const count = u64();
  const metadata = new Map<string, unknown>();
  for (let i = 0; i < count; i++) {
    const key = text();
    metadata.set(key, value(u32()));
  }
  return metadata;
}

/** llama.cpp's token types: 1 normal, 2 unknown, 3 control, 6 byte. */
const NORMAL = 1;
const CONTROL = 3;

/**
 * Writes `tokenizer.json` and `tokenizer_config.json` (with `chatTemplate`) for the GGUF's
 * SentencePiece vocabulary into `dir`; returns the tokenizer.json's path.
 */
export function writeGgufTokenizer(ggufPath: string, dir: string, chatTemplate: string): string {
  const metadata = readGgufMetadata(ggufPath);
  const model = metadata.get('tokenizer.ggml.model');
  if (model !== 'llama') throw new Error(`${ggufPath}: tokenizer model ${String(model)}, only SentencePiece ("llama") vocabularies are converted here`);
  const pieces = metadata.get('tokenizer.ggml.tokens') as string[];
  const scores = metadata.get('tokenizer.ggml.scores') as number[];
  const types = metadata.get('tokenizer.ggml.token_type') as number[];
  const id = (key: string): string => pieces[metadata.get(key) as number] as string;
  const vocab = Object.fromEntries(pieces.map((piece, i) => [piece, i]));
  // Every way a normal piece splits into two pieces of the vocabulary, ranked by its score (highest first).
  const merges: { left: string; right: string; score: number; ids: [number, number] }[] = [];
  pieces.forEach((piece, i) => {
    if (types[i] !== NORMAL) return;
    const chars = [...piece];
    for (let cut = 1; cut < chars.length; cut++) {
      const left = chars.slice(0, cut).join('');
      const right = chars.slice(cut).join('');
      if (left in vocab && right in vocab) merges.push({ left, right, score: scores[i] as number, ids: [vocab[left] as number, vocab[right] as number] });
    }
  });
  merges.sort((a, b) => b.score - a.score || a.ids[0] - b.ids[0] || a.ids[1] - b.ids[1]);
  const tokenizer = {
    version: '1.0',
    added_tokens: pieces.flatMap((content, i) => (types[i] === CONTROL || i === metadata.get('tokenizer.ggml.unknown_token_id') ? [{ id: i, content, special: true }] : [])),
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
    pre_tokenizer: null,
    model: { type: 'BPE', vocab, merges: merges.map((m) => [m.left, m.right]), unk_token: id('tokenizer.ggml.unknown_token_id'), byte_fallback: true, fuse_unk: true },
  };
  const path = join(dir, 'tokenizer.json');
  writeFileSync(path, JSON.stringify(tokenizer));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: chatTemplate, bos_token: id('tokenizer.ggml.bos_token_id'), eos_token: id('tokenizer.ggml.eos_token_id') }));
  return path;
}
