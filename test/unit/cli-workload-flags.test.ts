// The workload and load-shape flags borrowed from vLLM, AIPerf and GuideLLM, through the real
// command line (`llmbench run ... --dry-run` as a child process): what configuration each flag
// makes, and the message for each misuse (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repoRoot = process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..');
const cliPath = join(repoRoot, 'dist', 'cli.js');
const ENDPOINT = ['--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--requests', '3'];

function dryRun(...args: string[]): { code: number | null; config: Record<string, unknown>; error: string } {
  const child = spawnSync(process.execPath, [cliPath, 'run', ...ENDPOINT, ...args, '--dry-run'], { encoding: 'utf8', timeout: 30_000, cwd: mkdtempSync(join(tmpdir(), 'llmbench-flags-')) });
  const out = JSON.parse(child.stdout || '{}') as { config?: Record<string, unknown>; error?: { message: string } };
  return { code: child.status, config: out.config ?? {}, error: out.error?.message ?? child.stderr };
}

test('--input-tokens-range / --output-tokens-range draw around --input-tokens / --output-tokens (or the defaults)', () => {
  const both = dryRun('--input-tokens', '1024', '--input-tokens-range', '0.8', '--output-tokens', '64', '--output-tokens-range', '0.5');
  assert.equal(both.code, 0, both.error);
  assert.deepEqual(both.config.workload, { kind: 'synthetic', inputTokens: { mean: 1024, rangeRatio: 0.8 }, outputTokens: { mean: 64, rangeRatio: 0.5 }, sharedPrefixTokens: 0, prefixCount: 1 });
  const defaults = dryRun('--input-tokens-range', '0.1');
  assert.deepEqual((defaults.config.workload as { inputTokens: unknown }).inputTokens, { mean: 512, rangeRatio: 0.1 });
  const tooWide = dryRun('--input-tokens-range', '1');
  assert.equal(tooWide.code, 2);
  assert.match(tooWide.error, /--input-tokens-range: '1' must be below 1/);
});

test('--input-tokens-range takes its mean from a config file\'s fixed length; --output-tokens-range with a dataset needs --output-tokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-flags-'));
  const configPath = join(dir, 'run.json');
  writeFileSync(configPath, JSON.stringify({ workload: { kind: 'synthetic', inputTokens: 300 } }));
  const fromFile = dryRun('--config', configPath, '--input-tokens-range', '0.2');
  assert.equal(fromFile.code, 0, fromFile.error);
  assert.deepEqual((fromFile.config.workload as { inputTokens: unknown }).inputTokens, { mean: 300, rangeRatio: 0.2 });
  const lines = join(dir, 'prompts.txt');
  writeFileSync(lines, 'Say hello.\n');
  const dataset = dryRun('--dataset', lines, '--output-tokens-range', '0.2');
  assert.equal(dataset.code, 2);
  assert.match(dataset.error, /--output-tokens-range needs --output-tokens N/);
  const prefixed = dryRun('--dataset', lines, '--prefix-tokens', '8');
  assert.equal(prefixed.code, 2);
  assert.match(prefixed.error, /--prefix-tokens does not apply with --dataset/);
});

test('--prefix-tokens N --prefix-count K set the config file\'s shared prefix fields; a count alone is refused', () => {
  const shared = dryRun('--prefix-tokens', '256', '--prefix-count', '4');
  assert.equal(shared.code, 0, shared.error);
  const workload = shared.config.workload as { sharedPrefixTokens: number; prefixCount: number };
  assert.equal(workload.sharedPrefixTokens, 256);
  assert.equal(workload.prefixCount, 4);
  const countOnly = dryRun('--prefix-count', '4');
  assert.equal(countOnly.code, 2);
  assert.match(countOnly.error, /--prefix-count needs --prefix-tokens N/);
  const zero = dryRun('--prefix-tokens', '8', '--prefix-count', '0');
  assert.equal(zero.code, 2);
  assert.match(zero.error, /--prefix-count: '0' must be at least 1/);
});

test('--output-tokens reply takes each length from a ShareGPT file\'s recorded replies; it needs --dataset and no range', () => {
  const sharegpt = join(repoRoot, 'test', 'fixtures', 'sharegpt-vllm.json');
  const reply = dryRun('--dataset', sharegpt, '--dataset-format', 'sharegpt', '--output-tokens', 'reply');
  assert.equal(reply.code, 0, reply.error);
  assert.deepEqual(reply.config.workload, { kind: 'dataset', path: sharegpt, format: 'sharegpt', outputTokens: 'reply' });
  const synthetic = dryRun('--output-tokens', 'reply');
  assert.equal(synthetic.code, 2);
  assert.match(synthetic.error, /--output-tokens reply takes each request's length from the reply recorded in a --dataset file/);
  const ranged = dryRun('--dataset', sharegpt, '--dataset-format', 'sharegpt', '--output-tokens', 'reply', '--output-tokens-range', '0.5');
  assert.equal(ranged.code, 2);
  assert.match(ranged.error, /--output-tokens-range does not apply to --output-tokens reply/);
});

test('--ramp-up with --ramp-start-rate and --ramp-end-rate make one ramp step of a rate profile; half a ramp or a ramp with --rate is refused', () => {
  const ramp = dryRun('--ramp-up', 'exponential', '--ramp-start-rate', '1', '--ramp-end-rate', '16', '--arrival', 'constant');
  assert.equal(ramp.code, 0, ramp.error);
  assert.deepEqual(ramp.config.profile, { kind: 'rate', ramp: { strategy: 'exponential', startRate: 1, endRate: 16 }, arrival: 'constant', burstiness: 1 });
  const missingEnd = dryRun('--profile', 'rate', '--ramp-up', 'linear', '--ramp-start-rate', '1');
  assert.equal(missingEnd.code, 2);
  assert.match(missingEnd.error, /--ramp-up needs --ramp-start-rate X and --ramp-end-rate Y/);
  const both = dryRun('--rate', '2', '--ramp-up', 'linear', '--ramp-start-rate', '1', '--ramp-end-rate', '4');
  assert.equal(both.code, 2);
  assert.match(both.error, /--rate and --ramp-up both set the rate/);
  const badStrategy = dryRun('--ramp-up', 'cubic', '--ramp-start-rate', '1', '--ramp-end-rate', '4');
  assert.match(badStrategy.error, /--ramp-up: 'cubic' is not one of the choices; choose linear or exponential/);
  const concurrency = dryRun('--profile', 'concurrency', '--concurrency', '2', '--ramp-up', 'linear', '--ramp-start-rate', '1', '--ramp-end-rate', '4');
  assert.match(concurrency.error, /--ramp-up does not apply to --profile concurrency/);
  const byDuration = spawnSync(process.execPath, [cliPath, 'run', '--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--duration', '10', '--ramp-up', 'linear', '--ramp-start-rate', '1', '--ramp-end-rate', '4', '--dry-run'], { encoding: 'utf8' });
  assert.equal(byDuration.status, 2);
  assert.match(byDuration.stdout, /--requests: a ramp spreads its rates over the step's requests: set limits.requests/);
});

test('--repeat N and --repeat-pause-sec S set the config\'s repeat; a pause without repeats is refused', () => {
  const repeated = dryRun('--concurrency', '1,4', '--repeat', '5', '--repeat-pause-sec', '2.5');
  assert.equal(repeated.code, 0, repeated.error);
  assert.deepEqual(repeated.config.repeat, { count: 5, pauseSec: 2.5 });
  const noPause = dryRun('--repeat', '2');
  assert.deepEqual(noPause.config.repeat, { count: 2, pauseSec: 0 });
  const pauseOnly = dryRun('--repeat-pause-sec', '3');
  assert.equal(pauseOnly.code, 2);
  assert.match(pauseOnly.error, /--repeat-pause-sec needs --repeat N/);
  const zero = dryRun('--repeat', '0');
  assert.match(zero.error, /--repeat: '0' must be at least 1/);
});

test('--turns, --think-time, --concurrency-unit and --multi-turn make the config\'s sessions; session flags alone are refused', () => {
  const synthetic = dryRun('--turns', '4', '--think-time', '500', '--concurrency-unit', 'requests', '--concurrency', '8');
  assert.equal(synthetic.code, 0, synthetic.error);
  assert.deepEqual(synthetic.config.sessions, { turns: 4, thinkTimeMs: 500, concurrencyUnit: 'requests' });
  const sharegpt = join(repoRoot, 'test', 'fixtures', 'sharegpt-vllm.json');
  const dataset = dryRun('--dataset', sharegpt, '--dataset-format', 'sharegpt', '--multi-turn');
  assert.equal(dataset.code, 0, dataset.error);
  assert.deepEqual(dataset.config.sessions, { thinkTimeMs: 0, concurrencyUnit: 'sessions' });
  const thinkOnly = dryRun('--think-time', '100');
  assert.equal(thinkOnly.code, 2);
  assert.match(thinkOnly.error, /--think-time applies to sessions: add --turns N/);
  const syntheticWithoutTurns = dryRun('--multi-turn');
  assert.equal(syntheticWithoutTurns.code, 2);
  assert.match(syntheticWithoutTurns.error, /synthetic sessions need a number of turns/);
  const lines = join(mkdtempSync(join(tmpdir(), 'llmbench-flags-')), 'p.txt');
  writeFileSync(lines, 'hello\n');
  const plainLines = dryRun('--dataset', lines, '--multi-turn');
  assert.match(plainLines.error, /sessions from a dataset need conversations/);
  const badUnit = dryRun('--turns', '2', '--concurrency-unit', 'users');
  assert.match(badUnit.error, /--concurrency-unit: 'users' is not one of the choices; choose sessions or requests/);
});

test('--workers N|auto becomes the run\'s workers; a config file\'s workers stand unless the flag is given; a bad value exits 2 naming the flag', () => {
  assert.equal(dryRun('--workers', '3').config.workers, 3);
  assert.equal(dryRun('--workers', 'auto').config.workers, 'auto');
  assert.equal(dryRun().config.workers, undefined, 'unset: auto, left out of the config');
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-flags-'));
  const configPath = join(dir, 'run.json');
  writeFileSync(configPath, JSON.stringify({ workers: 2 }));
  assert.equal(dryRun('--config', configPath).config.workers, 2);
  assert.equal(dryRun('--config', configPath, '--workers', 'auto').config.workers, 'auto');
  for (const bad of ['0', 'two', '1.5']) {
    const refused = dryRun('--workers', bad);
    assert.equal(refused.code, 2, `--workers ${bad}`);
    assert.match(refused.error, /--workers: .*(whole number|at least 1|a number of worker threads)/);
  }
  const tooMany = dryRun('--workers', '1000');
  assert.equal(tooMany.code, 2);
  assert.match(tooMany.error, /--workers: must be at most 256 workers/);
});

test('--api responses|embeddings, --reasoning-tags, --embedding-batch, --slo ttfo and --cancel-rate/--cancel-after make their config fields', () => {
  const responses = dryRun('--api', 'responses', '--reasoning-tags', '<think>', '--slo', 'ttfo=800,ttft=200');
  assert.equal(responses.code, 0, responses.error);
  assert.deepEqual(responses.config.endpoint, { baseUrl: 'http://127.0.0.1:9/v1', api: 'responses', model: 'm', headers: {}, reasoningTags: 'think' });
  assert.deepEqual(responses.config.slo, { ttfoMs: 800, ttftMs: 200 });
  const embeddings = dryRun('--api', 'embeddings', '--embedding-batch', '16', '--input-tokens', '128');
  assert.equal(embeddings.code, 0, embeddings.error);
  assert.deepEqual(embeddings.config.workload, { kind: 'synthetic', inputTokens: 128, outputTokens: 128, sharedPrefixTokens: 0, prefixCount: 1, embeddingBatch: 16 });
  const range = dryRun('--cancel-rate', '0.2', '--cancel-after', '200-2000');
  assert.equal(range.code, 0, range.error);
  assert.deepEqual(range.config.cancel, { rate: 0.2, afterMs: { min: 200, max: 2000 } });
  assert.deepEqual(dryRun('--cancel-rate', '1', '--cancel-after', '500').config.cancel, { rate: 1, afterMs: 500 });
});

test('the new flags refuse what they cannot mean, with the fix in the message', () => {
  const cases: [string[], RegExp][] = [
    [['--cancel-rate', '0.2'], /--cancel-rate needs --cancel-after MS/],
    [['--cancel-after', '300'], /--cancel-after needs --cancel-rate P/],
    [['--cancel-rate', '1.5', '--cancel-after', '300'], /--cancel-rate: '1.5' must be at most 1/],
    [['--cancel-rate', '0.1', '--cancel-after', 'soon'], /--cancel-after: 'soon' is not a delay; give milliseconds after the send like --cancel-after 500/],
    [['--cancel-rate', '0.1', '--cancel-after', '900-100'], /--cancel-after \(at cancel\.afterMs\.max\): min must not exceed max/],
    [['--embedding-batch', '4'], /--embedding-batch: an embedding batch applies to api embeddings only/],
    [['--api', 'embeddings', '--turns', '2'], /embeddings have no conversation/],
    [['--reasoning-tags', 'think tags'], /--reasoning-tags: 'think tags' must be a tag name like think/],
    [['--api', 'speech'], /--api/],
    [['--slo', 'ttfx=3'], /use ttft, ttfo, tpot and\/or e2e/],
  ];
  for (const [args, message] of cases) {
    const result = dryRun(...args);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.error, message, args.join(' '));
  }
});
