/**
 * A multi-turn run against the real llama.cpp `llama-server`: each later turn of a session resends
 * the history, so the server's own prompt count grows by more than the new user message, by the
 * reply it generated before.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema } from '../../src/format/config';
import { runBenchmark } from '../../src/load/runner';
import { LLAMA_MODEL_ID, LLAMA_STARTUP_LIMIT_MS, startLlamaServer, type LlamaServer } from '../helpers/llama-server';

/**
 * Longer than what a turn's own user message adds to the prompt (8 estimated tokens of text, about
 * 17 of this model's, plus the template's markers): a history that dropped the replies would grow
 * by less than the previous turn's completion, and fail the check below.
 */
const OUTPUT_TOKENS = 64;

let llama: LlamaServer | undefined;

describe('llama.cpp llama-server: multi-turn sessions', { timeout: 300_000 }, () => {
  before(async () => {
    llama = await startLlamaServer();
  }, { timeout: LLAMA_STARTUP_LIMIT_MS + 60_000 });
  after(() => llama?.stop());

  test('two sessions of three turns at concurrency 2: turns in order, each prompt holding the previous turns and replies', { timeout: 180_000 }, async () => {
    if (llama === undefined) throw new Error('llama-server did not start (see the before hook)');
    const config = RunConfigSchema.parse({
      endpoint: { baseUrl: llama.baseUrl, model: LLAMA_MODEL_ID, api: 'chat' },
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: OUTPUT_TOKENS },
      request: { extraBody: { ignore_eos: true }, totalTimeoutMs: 60_000 },
      sessions: { turns: 3, thinkTimeMs: 50 },
      profile: { kind: 'concurrency', levels: [2] },
      limits: { requests: 6 },
    });
    const doc = await runBenchmark(config, {});
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    const records = doc.steps[0]?.requests ?? [];
    assert.equal(records.length, 6);
    for (const session of [0, 1]) {
      const turns = records.filter((r) => r.session === session).sort((a, b) => a.sentMs - b.sentMs);
      assert.deepEqual(turns.map((r) => r.turn), [0, 1, 2]);
      for (const r of turns) {
        assert.equal(r.error, null, r.error?.message);
        assert.equal(r.inputTokensSource, 'usage');
        assert.equal(r.outputTokens, OUTPUT_TOKENS);
      }
      // The server counts each later prompt longer than the previous turn's prompt and completion together: the reply is in it.
      turns.slice(1).forEach((r, i) => {
        const before = turns[i];
        const carried = (before?.inputTokens ?? Infinity) + (before?.outputTokens ?? Infinity);
        assert.ok((r.inputTokens ?? 0) > carried, `session ${session} turn ${r.turn}: ${r.inputTokens} prompt tokens, not above the previous turn's ${before?.inputTokens} prompt + ${before?.outputTokens} completion`);
        assert.ok(r.sentMs >= (before?.endMs ?? Infinity), 'a turn waits for the reply before it');
      });
    }
  });
});
