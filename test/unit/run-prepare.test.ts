// src/run/prepare.ts on its own: what the two front ends' table test (run-preparation-*) cannot
// reach from a config file: paths and names of the front end's own input, stored keys, merging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flagOf } from '../../src/cli/commands/run';
import { presetFieldSetting, runDefaultsFromSettings } from '../../src/run/presets';
import { parseConfigFileText, prepareRun, RunInputError, type RunRequest } from '../../src/run/prepare';

const endpoint = { baseUrl: 'http://127.0.0.1:8000/v1', model: 'm' };
const FLAGS: Record<string, string> = { 'limits.requests': '--requests', 'profile.levels': '--concurrency', 'profile.kind': '--profile', 'endpoint.baseUrl': '--url' };

function request(overrides: Record<string, unknown>, extra: Partial<RunRequest> = {}): RunRequest {
  return { overrides, workingDir: '/work/here', env: {}, nameOf: (field) => FLAGS[field], ownInput: 'the flags', ...extra };
}

function problemOf(run: () => unknown): RunInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof RunInputError) return error;
    throw error;
  }
  assert.fail('expected a RunInputError');
}

test('paths of the front end\'s own input resolve from its working folder; those of a file from the file\'s folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-prepare-unit-'));
  try {
    writeFileSync(join(dir, 'q.txt'), 'a question\n');
    writeFileSync(join(dir, 'tokenizer.json'), '{}');
    const prepared = prepareRun(
      request(
        { workload: { kind: 'dataset', path: 'q.txt', format: 'lines' } },
        { workingDir: dir, file: { path: '/elsewhere/c.json', shownAs: 'c.json', settings: { endpoint, limits: { requests: 1 }, tokenizer: join(dir, 'tokenizer.json') } } },
      ),
    );
    assert.equal(prepared.config.workload.kind === 'dataset' && prepared.config.workload.path, join(dir, 'q.txt'));
    assert.equal(prepared.config.tokenizer, join(dir, 'tokenizer.json'), 'an absolute path stays as it is');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a field set by the front end is named its way; a field from the file by the file', () => {
  const file = { path: '/b/c.json', shownAs: 'c.json', settings: { endpoint, limits: { requests: 1 }, profile: { kind: 'concurrency', levels: [0] } } };
  assert.match(problemOf(() => prepareRun(request({}, { file }))).message, /^c\.json: field profile\.levels\.0: /);
  assert.match(problemOf(() => prepareRun(request({ profile: { kind: 'concurrency', levels: [0] } }, { file }))).message, /^--concurrency \(at profile\.levels\.0\): /);
  // No flag of this table sets profile.rates: the input as a whole is named.
  assert.equal(problemOf(() => prepareRun(request({ endpoint, limits: { requests: 1 }, profile: { kind: 'rate' } }))).message, 'the flags: field profile.rates is required with --profile rate');
  assert.match(problemOf(() => prepareRun(request({ limits: { requests: 1 } }))).message, /^--url is required: /);
});

test('the front end\'s stored key is sent unless the config names a key variable, which must then be set', () => {
  const stored = (url: string) => (url === endpoint.baseUrl ? 'sk-stored' : undefined);
  assert.equal(prepareRun(request({ endpoint, limits: { requests: 1 } }, { storedApiKey: stored })).apiKey, 'sk-stored');
  const named = { endpoint: { ...endpoint, apiKeyEnv: 'BENCH_KEY' }, limits: { requests: 1 } };
  assert.equal(prepareRun(request(named, { storedApiKey: stored, env: { BENCH_KEY: 'sk-env' } })).apiKey, 'sk-env');
  assert.equal(problemOf(() => prepareRun(request(named, { storedApiKey: stored }))).problem, 'api-key');
});

test('the front end\'s input wins over the file key by key, and a profile of another kind replaces the file\'s', () => {
  const file = { path: '/b/c.json', shownAs: 'c.json', settings: { endpoint, limits: { requests: 5, warmup: 3 }, profile: { kind: 'rate', rates: [1, 2] } } };
  const prepared = prepareRun(request({ limits: { requests: 9 }, profile: { kind: 'concurrency', levels: [4] } }, { file }));
  assert.deepEqual(prepared.config.limits, { requests: 9, warmup: 3 });
  assert.deepEqual(prepared.config.profile, { kind: 'concurrency', levels: [4] });
});

test('config file text: JSON errors and non-objects are config problems; $schema is dropped', () => {
  assert.equal(problemOf(() => parseConfigFileText('{"endpoint": ', 'c.json')).problem, 'config');
  assert.match(problemOf(() => parseConfigFileText('[1]', 'c.json')).message, /^c\.json must hold a JSON object/);
  assert.deepEqual(parseConfigFileText('{"$schema": "x", "seed": 1}', 'c.json'), { seed: 1 });
});

test('one problem, worded once, names each front end\'s own input: the command line\'s flag, the extension\'s setting', () => {
  const bad = { endpoint, limits: { requests: -1 }, profile: { kind: 'concurrency', levels: [4, 0] } };
  const fromFlags = problemOf(() => prepareRun(request(bad, { nameOf: flagOf })));
  const fromSettings = problemOf(() => prepareRun(request(bad, { nameOf: presetFieldSetting, ownInput: 'the run settings' })));
  assert.equal(fromFlags.problem, 'config');
  assert.equal(fromSettings.problem, 'config');
  assert.match(fromFlags.message, /--requests/);
  assert.match(fromSettings.message, /llmBench\.requestsPerStep/);
  // The same words once each front end's name for the field is set aside.
  assert.equal(fromFlags.message.replace('--requests', '<field>').replace('--concurrency', '<levels>'), fromSettings.message.replace('llmBench.requestsPerStep', '<field>').replace('llmBench.concurrencyLevels', '<levels>'));
});

test('server metrics: the front end\'s defaults lie under the config file and its own input; settings are named in messages', () => {
  const file = { path: '/work/here/c.json', shownAs: 'c.json', settings: { endpoint, limits: { requests: 1 }, serverMetrics: { intervalMs: 500 } } };
  const defaults = runDefaultsFromSettings((key) => ({ 'serverMetrics.url': ' off ', 'serverMetrics.intervalMs': 2000, 'serverMetrics.allowList': ['vllm:e2e_request_latency_seconds'] })[key]);
  assert.deepEqual(defaults, { serverMetrics: { url: 'off', intervalMs: 2000, allowList: ['vllm:e2e_request_latency_seconds'] } });
  const fromFile = prepareRun(request({}, { file, defaults })).config.serverMetrics;
  assert.deepEqual(fromFile, { url: 'off', intervalMs: 500, allowList: ['vllm:e2e_request_latency_seconds'], maxSeries: 64 });
  const own = prepareRun(request({ serverMetrics: { url: 'http://127.0.0.1:9100/metrics' } }, { file, defaults })).config.serverMetrics;
  assert.equal(own.url, 'http://127.0.0.1:9100/metrics');
  assert.deepEqual(runDefaultsFromSettings((key) => ({ 'serverMetrics.url': '' })[key]), {}, 'an empty URL setting leaves the endpoint\'s /metrics');
  // The workers setting's default, auto, is what a config without the field means: left out, as the command line leaves it.
  assert.deepEqual(runDefaultsFromSettings((key) => ({ workers: 'auto' })[key]), {});
  assert.deepEqual(runDefaultsFromSettings((key) => ({ workers: 2 })[key]), { workers: 2 });
  const settingProblem = problemOf(() => prepareRun(request({ endpoint, limits: { requests: 1 } }, { defaults: { serverMetrics: { intervalMs: 20 } }, nameOf: presetFieldSetting })));
  assert.match(settingProblem.message, /^llmBench\.serverMetrics\.intervalMs: must be at least 100 ms between two scrapes/);
  assert.equal(flagOf('serverMetrics.url'), '--server-metrics');
  assert.equal(flagOf('serverMetrics.intervalMs'), '--server-metrics-interval');
});
