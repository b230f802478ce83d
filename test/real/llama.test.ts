/**
 * The engine and the command line against a real llama.cpp `llama-server` (installed with its
 * model by scripts/setup.d/llama.sh: Debian's build in a chroot, serving stories260K or, without
 * ../shared, a generated random-weights llama). Small runs with ignore_eos + max_tokens so every
 * request has a known output length; streaming and not, chat and completions, synchronous and at
 * concurrency 4 (the server has 4 slots).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { parseResultDocument, type ResultDocument, type Step } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { commonSeries, runSeries, stepServerFigures, stepWindow } from '../../src/views/server-quantities';
import { LLAMA_MODEL_ID, LLAMA_STARTUP_LIMIT_MS, startLlamaServer, type LlamaServer } from '../helpers/llama-server';

const repoRoot = process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..');
const OUTPUT_TOKENS = 24;

let llama: LlamaServer | undefined;

function baseUrl(): string {
  if (llama === undefined) throw new Error('llama-server did not start (see the before hook)');
  return llama.baseUrl;
}

async function bench(overrides: Omit<RunConfigInput, 'endpoint'> & { api: 'chat' | 'completions' }): Promise<ResultDocument> {
  const { api, ...rest } = overrides;
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: baseUrl(), model: LLAMA_MODEL_ID, api },
    workload: { kind: 'synthetic', inputTokens: 32, outputTokens: OUTPUT_TOKENS },
    request: { extraBody: { ignore_eos: true }, totalTimeoutMs: 60_000 },
    ...rest,
  });
  return runBenchmark(config, {});
}

function onlyStep(doc: ResultDocument): Step {
  assert.equal(doc.status, 'complete', doc.statusReason ?? '');
  assert.equal(doc.steps.length, 1);
  return doc.steps[0] as Step;
}

/** What every streamed request against llama-server must look like. */
function checkStreamed(step: Step, requests: number): void {
  const measured = step.requests.filter((r) => !r.warmup);
  assert.equal(measured.length, requests);
  for (const r of measured) {
    assert.equal(r.error, null, r.error?.message);
    assert.equal(r.httpStatus, 200);
    assert.ok(r.firstTokenMs !== null && r.endMs !== null, 'TTFT and end present');
    assert.ok(r.firstTokenMs > r.sentMs, 'first token after the send');
    assert.ok(r.firstTokenMs < r.endMs, 'TTFT below latency');
    // llama's first event is a role chunk without content: the first token is the first content chunk.
    assert.equal(r.chunkMs[0], r.firstTokenMs);
    assert.ok(r.chunkMs.length >= 2 && r.chunkMs.length <= OUTPUT_TOKENS, `${r.chunkMs.length} content chunks`);
    assert.equal(r.chunkMs.at(-1), r.endMs);
    assert.equal(r.outputTokens, OUTPUT_TOKENS);
    assert.equal(r.outputTokensSource, 'usage');
    assert.equal(r.inputTokensSource, 'usage');
    assert.ok((r.inputTokens ?? 0) > 0);
    assert.equal(r.finishReason, 'length');
  }
  const summary = step.summary;
  assert.ok(summary);
  assert.equal(summary.requests.completed, requests);
  assert.equal(summary.ttftMs?.count, requests);
  assert.ok(summary.itlMs !== null && summary.tpotMs !== null);
  assert.ok((summary.ttftMs?.mean ?? Infinity) < (summary.latencyMs?.mean ?? 0));
  assert.ok((summary.outputTokensPerSecond ?? 0) > 0);
}

function checkNonStreamed(step: Step, requests: number): void {
  assert.equal(step.requests.length, requests);
  for (const r of step.requests) {
    assert.equal(r.error, null, r.error?.message);
    assert.equal(r.firstTokenMs, null, 'no TTFT without streaming');
    assert.deepEqual(r.chunkMs, []);
    assert.ok(r.endMs !== null && r.endMs > r.sentMs);
    assert.equal(r.outputTokens, OUTPUT_TOKENS);
    assert.equal(r.outputTokensSource, 'usage');
  }
  assert.equal(step.summary?.ttftMs, null);
  assert.equal(step.summary?.itlMs, null);
  assert.ok(step.summary?.latencyMs);
}

describe('llama.cpp llama-server (real engine)', { timeout: 600_000 }, () => {
  before(async () => {
    llama = await startLlamaServer();
    console.log(`llama-server ready at ${llama.baseUrl} serving ${llama.model}`);
  }, { timeout: LLAMA_STARTUP_LIMIT_MS + 60_000 });
  after(() => llama?.stop());

  test('chat, streaming, synchronous', { timeout: 120_000 }, async () => {
    checkStreamed(onlyStep(await bench({ api: 'chat', profile: { kind: 'synchronous' }, limits: { requests: 4 } })), 4);
  });

  test('completions, streaming, concurrency 4 with a warm-up request', { timeout: 120_000 }, async () => {
    const step = onlyStep(await bench({ api: 'completions', profile: { kind: 'concurrency', levels: [4] }, limits: { requests: 8, warmup: 1 } }));
    checkStreamed(step, 8);
    assert.equal(step.requests.filter((r) => r.warmup).length, 1);
    assert.ok((step.summary?.achievedConcurrency ?? 0) > 1, `achieved concurrency ${step.summary?.achievedConcurrency}`);
  });

  test('chat, streaming, concurrency 4', { timeout: 120_000 }, async () => {
    const step = onlyStep(await bench({ api: 'chat', profile: { kind: 'concurrency', levels: [4] }, limits: { requests: 4 } }));
    checkStreamed(step, 4);
  });

  test('its --metrics are scraped during the run: llama.cpp names, at most 4 processing, the rest deferred, token counts agree', { timeout: 120_000 }, async () => {
    const doc = await bench({
      api: 'completions',
      // Long enough (seconds, even on an idle machine) for several scrapes to land while 8 requests share 4 slots.
      workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 256 },
      profile: { kind: 'concurrency', levels: [8] },
      limits: { requests: 32 },
      // llama-server answers /metrics from its task queue: under load on 2 cores it took over 80 ms (a 100 ms interval's deadline).
      serverMetrics: { intervalMs: 400 },
    });
    const step = onlyStep(doc);
    assert.deepEqual(doc.warnings ?? [], [], 'no scrape problem, and the server counted the tokens the client received');
    assert.equal(doc.serverMetrics?.engine, 'llama.cpp');
    const series = runSeries(doc);
    const common = commonSeries(series, 'llama.cpp');
    assert.ok((common.runningRequests?.length ?? 0) >= 3, `${common.runningRequests?.length} samples of llamacpp:requests_processing`);
    const figures = stepServerFigures(series, stepWindow(step)!, 'llama.cpp');
    assert.ok((figures.runningMax ?? 0) >= 1 && (figures.runningMax ?? 0) <= 4, `processing at most the 4 slots: ${figures.runningMax}`);
    assert.ok((figures.waitingMax ?? 0) > 0, 'the requests beyond 4 slots were deferred');
    assert.ok((figures.generatedTokensPerSecond ?? 0) > 0);
    const predicted = series.find((s) => s.name === 'llamacpp:tokens_predicted_total')?.samples ?? [];
    const clientTokens = step.requests.reduce((n, r) => n + (r.outputTokens ?? 0), 0);
    assert.equal((predicted.at(-1)?.[1] ?? 0) - (predicted[0]?.[1] ?? 0), clientTokens);
  });

  test('its prefix cache: hits and misses kept apart, the hit rate as for vLLM, prompt tokens/s counting both; no cache reset to call, and the run says so', { timeout: 120_000 }, async () => {
    // What llama-server's own counters say over the run, read around it.
    const counters = async (): Promise<{ computed: number; cached: number }> => {
      const text = await (await fetch(new URL('/metrics', baseUrl()))).text();
      const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
      return { computed: value('llamacpp:prompt_tokens_total'), cached: value('llamacpp:prompt_tokens_cached_total') };
    };
    const before = await counters();
    // A session's later turns resend its history, which the slot still holds: most of their prompt is served from the cache.
    const doc = await bench({
      api: 'chat',
      workload: { kind: 'synthetic', inputTokens: 32, outputTokens: 32 },
      sessions: { turns: 3 },
      profile: { kind: 'synchronous' },
      limits: { requests: 6 },
      serverMetrics: { intervalMs: 500 },
      cache: { resetBeforeStep: true },
    });
    const after = await counters();
    const step = onlyStep(doc);
    const cached = after.cached - before.cached;
    const computed = after.computed - before.computed;
    assert.ok(cached > 0 && computed > 0, `cached ${cached}, computed ${computed}`);
    const series = runSeries(doc);
    assert.ok(series.some((s) => s.name === 'llamacpp:prompt_tokens_cached_total'), 'both counters are kept');
    const whole = stepServerFigures(series, { startMs: 0, endMs: Infinity }, 'llama.cpp');
    assert.equal(whole.prefixCacheHitRate, cached / (cached + computed));
    console.log(`llama.cpp prefix cache over the run: ${cached} prompt tokens from the cache, ${computed} computed: hit rate ${((whole.prefixCacheHitRate ?? 0) * 100).toFixed(1)}%`);
    const rate = commonSeries(series, 'llama.cpp').promptTokens ?? [];
    assert.ok(rate.length > 0);
    // Prompt tokens/s counts every prompt token: over the run, its integral (each rate over the time since the scrape before) is what both counters gained.
    const scrapedAt = [series.find((s) => s.name === 'llamacpp:prompt_tokens_total')?.samples[0]?.[0] ?? NaN, ...rate.map((p) => p.tMs)];
    const promptTokens = rate.reduce((n, p, i) => n + (p.value * (p.tMs - (scrapedAt[i] ?? NaN))) / 1000, 0);
    assert.ok(Math.abs(promptTokens - (cached + computed)) < 1, `${promptTokens} against ${cached + computed}`);
    // llama.cpp has no prefix-cache reset: the step records that, and the run warns once.
    assert.deepEqual(step.cacheReset?.done, false);
    assert.match(step.cacheReset?.how ?? '', /offers no prefix-cache reset \(\/reset_prefix_cache answered 404; \/flush_cache answered 404\)/);
    assert.equal((doc.warnings ?? []).filter((w) => w.includes('could not be reset')).length, 1, (doc.warnings ?? []).join('\n'));
  });

  test('chat and completions, not streaming: latency only, no TTFT or ITL', { timeout: 120_000 }, async () => {
    for (const api of ['chat', 'completions'] as const) {
      const step = onlyStep(
        await bench({ api, profile: { kind: 'concurrency', levels: [4] }, limits: { requests: 4 }, request: { stream: false, extraBody: { ignore_eos: true } } }),
      );
      checkNonStreamed(step, 4);
    }
  });

  test('the command line runs against it: exit 0 and a valid complete result file', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmbench-real-'));
    const out = join(dir, 'llama.llmbench.json');
    const result = spawnSync(
      process.execPath,
      [
        join(repoRoot, 'dist', 'cli.js'), 'run', '--url', baseUrl(), '--model', LLAMA_MODEL_ID, '--concurrency', '1,4', '--requests', '4',
        '--input-tokens', '32', '--output-tokens', '16', '--extra-body', '{"ignore_eos": true}', '--label', 'engine=llama.cpp', '--out', out,
      ],
      { cwd: dir, encoding: 'utf8', timeout: 170_000 },
    );
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /concurrency/);
    const parsed = parseResultDocument(readFileSync(out, 'utf8'));
    if (!parsed.ok) assert.fail(parsed.error);
    const doc = parsed.value;
    assert.equal(doc.status, 'complete');
    assert.equal(doc.labels.engine, 'llama.cpp');
    assert.deepEqual(doc.steps.map((s) => s.summary?.requests.completed), [4, 4]);
    assert.ok(doc.steps.every((s) => s.requests.every((r) => r.outputTokens === 16 && r.firstTokenMs !== null)));
  });
});
