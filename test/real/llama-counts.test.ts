/**
 * Token counts against the real llama.cpp `llama-server` when the client gets no usage (issue 21,
 * items 1 and 2): a gateway in front of it (test/helpers/usage-proxy.ts) strips the server's
 * usage from every answer and keeps it, so that what the client counted can be held against what
 * the server counted, request by request.
 *
 * - With the model's own tokenizer (converted from its GGUF vocabulary) and the chat template the
 *   server applies, every session turn is counted through the template: the server's prompt count
 *   is the client's plus one, the BOS llama.cpp adds to a rendered chat prompt (vLLM adds none).
 * - Without a tokenizer, the output count is the estimate, far from the server's, and marked so.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { ResultDocument } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { messagesText } from '../../src/workload/chat-template';
import { loadTokenizer, type Tokenizer } from '../../src/workload/tokenizer';
import type { ChatMessage } from '../../src/workload/types';
import { createWorkload } from '../../src/workload/sources';
import { createTokenCounter } from '../../src/workload/tokenizer';
import { localCountsText } from '../../src/views/token-counts';
import { LLAMA_MODEL_FILE, LLAMA_MODEL_ID, LLAMA_STARTUP_LIMIT_MS, startLlamaServer, type LlamaServer } from '../helpers/llama-server';
import { writeGgufTokenizer } from '../helpers/gguf-tokenizer';
import { startUsageProxy, type UsageProxy } from '../helpers/usage-proxy';

let llama: LlamaServer | undefined;
let proxy: UsageProxy | undefined;
let tokenizerDir = '';
let tokenizerPath = '';

const origin = (server: LlamaServer): string => `http://127.0.0.1:${server.port}`;

async function serverTokens(server: LlamaServer, text: string): Promise<number[]> {
  const answer = await fetch(`${origin(server)}/tokenize`, { method: 'POST', body: JSON.stringify({ content: text, add_special: false }) });
  return ((await answer.json()) as { tokens: number[] }).tokens;
}

function runThroughProxy(input: Omit<RunConfigInput, 'endpoint'>): Promise<ResultDocument> {
  if (proxy === undefined) throw new Error('the proxy did not start (see the before hook)');
  return runBenchmark(RunConfigSchema.parse({ endpoint: { baseUrl: proxy.baseUrl, model: LLAMA_MODEL_ID, api: 'chat' }, serverMetrics: { url: 'off' }, ...input }), {});
}

describe('llama.cpp llama-server: what the client counts when the server sends no usage', { timeout: 300_000 }, () => {
  before(async () => {
    llama = await startLlamaServer();
    proxy = await startUsageProxy(origin(llama));
    const props = (await (await fetch(`${origin(llama)}/props`)).json()) as { chat_template: string };
    tokenizerDir = mkdtempSync(join(tmpdir(), 'llmbench-gguf-tokenizer-'));
    tokenizerPath = writeGgufTokenizer(LLAMA_MODEL_FILE, tokenizerDir, props.chat_template);
  }, { timeout: LLAMA_STARTUP_LIMIT_MS + 60_000 });
  after(async () => {
    await proxy?.close();
    llama?.stop();
    if (tokenizerDir) rmSync(tokenizerDir, { recursive: true, force: true });
  });

  test('the tokenizer converted from the GGUF splits texts exactly as llama-server does', async () => {
    if (llama === undefined) throw new Error('llama-server did not start (see the before hook)');
    const tokenizer: Tokenizer = await loadTokenizer(tokenizerPath);
    const counter = await createTokenCounter(tokenizerPath);
    const workload = await createWorkload(RunConfigSchema.parse({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, workload: { kind: 'synthetic', inputTokens: 40 }, limits: { requests: 1 } }), counter);
    const texts = [
      'Once upon a time, there was a little girl named Lily.',
      '<|im_start|>user\nHello there friend<|im_end|>\n<|im_start|>assistant\n',
      '  two spaces, a tab\tand "quotes" -- 3.14 ünïcödé 日本',
      ...Array.from({ length: 8 }, (_, i) => {
        const prompt = workload.request(i).prompt;
        return typeof prompt === 'string' ? prompt : messagesText(prompt);
      }),
    ];
    for (const text of texts) assert.deepEqual(tokenizer.encode(text), await serverTokens(llama, text), JSON.stringify(text));
  });

  test('session turns without usage are counted through the chat template: the server counts one more, its BOS', { timeout: 180_000 }, async () => {
    if (proxy === undefined) throw new Error('the proxy did not start (see the before hook)');
    const from = proxy.exchanges.length;
    const doc = await runThroughProxy({
      tokenizer: tokenizerPath,
      workload: { kind: 'synthetic', inputTokens: 48, outputTokens: 24 },
      request: { usage: false, extraBody: { ignore_eos: true }, totalTimeoutMs: 60_000 },
      sessions: { turns: 3 },
      profile: { kind: 'synchronous' },
      limits: { requests: 6 },
    });
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    const records = [...(doc.steps[0]?.requests ?? [])].sort((a, b) => a.index - b.index);
    const exchanges = proxy.exchanges.slice(from);
    assert.equal(exchanges.length, records.length);
    const tokenizer = await loadTokenizer(tokenizerPath);
    const rows = records.map((r, i) => {
      const exchange = exchanges[i];
      assert.equal(exchange?.body.stream_options, undefined, 'usage off: the client did not ask for it');
      assert.equal(r.inputTokensSource, 'tokenizer');
      const messages = exchange?.body.messages as ChatMessage[];
      return { turn: r.turn, server: exchange?.usage?.prompt_tokens ?? NaN, counted: r.inputTokens ?? NaN, textOnly: tokenizer.count(messagesText(messages)) };
    });
    // The figures, for the record: the server's count, ours through the template, and the joined text alone (how turns were counted before).
    console.log(rows.map((row) => `session turn ${row.turn}: server ${row.server}, counted ${row.counted}, text alone ${row.textOnly}`).join('\n'));
    for (const row of rows) assert.equal(row.server, row.counted + 1, `turn ${row.turn}: server ${row.server}, counted ${row.counted}`);
    assert.deepEqual(rows.map((row) => row.turn), [0, 1, 2, 0, 1, 2]);
  });

  test('without usage or a tokenizer the output count is the estimate, off from the server\'s, and the step says so', { timeout: 180_000 }, async () => {
    if (proxy === undefined) throw new Error('the proxy did not start (see the before hook)');
    const from = proxy.exchanges.length;
    const outputTokens = 32;
    const doc = await runThroughProxy({
      workload: { kind: 'synthetic', inputTokens: 32, outputTokens },
      request: { extraBody: { ignore_eos: true, stream_options: { include_usage: false } }, totalTimeoutMs: 60_000 },
      profile: { kind: 'synchronous' },
      limits: { requests: 6 },
    });
    assert.equal(doc.status, 'complete', doc.statusReason ?? '');
    const step = doc.steps[0];
    const records = [...(step?.requests ?? [])].sort((a, b) => a.index - b.index);
    const real = proxy.exchanges.slice(from).map((e) => e.usage?.completion_tokens);
    assert.deepEqual(real, records.map(() => outputTokens), 'the server generated what was asked');
    const estimated = records.map((r) => r.outputTokens ?? 0);
    assert.ok(records.every((r) => r.outputTokensSource === 'estimate'));
    const summary = step?.summary;
    const duration = summary?.durationSec ?? NaN;
    const realTokensPerSecond = (outputTokens * records.length) / duration;
    const realTpot = records.reduce((sum, r) => sum + ((r.endMs ?? 0) - (r.firstTokenMs ?? 0)) / (outputTokens - 1), 0) / records.length;
    console.log(
      `output tokens estimated ${Math.min(...estimated)}-${Math.max(...estimated)} against the server's ${outputTokens}; ` +
        `output tok/s ${summary?.outputTokensPerSecond?.toFixed(1)} counted, ${realTokensPerSecond.toFixed(1)} by the server's counts; ` +
        `TPOT mean ${summary?.tpotMs?.mean.toFixed(2)} ms counted, ${realTpot.toFixed(2)} ms by the server's counts`,
    );
    assert.ok(estimated.some((n) => n !== outputTokens), 'the estimate is not the server\'s count here');
    assert.equal(localCountsText(summary ?? { tokenSources: undefined }), 'output tokens 100% estimated, input tokens 100% estimated');
  });
});
