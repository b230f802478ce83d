// One table of run-preparation cases, fed through both front ends: the command line as a child
// process (`llmbench run --config FILE --dry-run`, test/unit/run-preparation-cli.test.ts) and the
// extension's command inside a real VS Code (`llmBench.run` with `dryRun`, the vscode tier's
// run-preparation suite). Each front end's answer must match the same expectation, so any way in
// which the two prepare a run differently fails one of them.
import assert from 'node:assert/strict';

/** What both front ends answer for a dry run (src/host/run-session.ts DryRunOutcome, `llmbench run --dry-run`). */
export type PreparationOutcome = { config: Record<string, unknown>; warnings: string[] } | { error: { problem: string; message: string } };

export interface PreparationCase {
  name: string;
  /** Files to write, relative to the workspace (the command line's working directory). */
  files: Record<string, string>;
  /** The config file to run, relative to the workspace. */
  configFile: string;
  /** Run against the built-in simulator with this preset. */
  simulator?: string;
  /**
   * Parts of the outcome that must be so (objects match key by key, anything else exactly), after
   * the workspace path became `<workspace>` and the simulator's URL `<simulator>`.
   */
  expected: Record<string, unknown>;
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);
const chatLines = `${JSON.stringify({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Name three rivers.' }] })}\n`;

export const PREPARATION_CASES: PreparationCase[] = [
  {
    name: 'relative dataset and tokenizer paths resolve from the config file\'s folder',
    files: {
      'bench/data/questions.jsonl': chatLines,
      'bench/tok.json': '{}',
      'bench/relative.llmbench-config.json': json({
        endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
        workload: { kind: 'dataset', path: 'data/questions.jsonl', format: 'jsonl' },
        tokenizer: 'tok.json',
        limits: { requests: 2 },
      }),
    },
    configFile: 'bench/relative.llmbench-config.json',
    expected: { config: { workload: { kind: 'dataset', path: '<workspace>/bench/data/questions.jsonl', format: 'jsonl' }, tokenizer: '<workspace>/bench/tok.json' }, warnings: [] },
  },
  {
    name: 'the simulator replaces the URL and the model, keeps api and headers, and labels the run',
    files: {
      'sim.json': json({
        $schema: '../media/llmbench-config.schema.json',
        endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'ignored-by-neither', api: 'completions', headers: { 'X-Team': 'bench' } },
        limits: { requests: 2 },
        labels: { purpose: 'preparation' },
      }),
    },
    configFile: 'sim.json',
    simulator: 'tiny',
    expected: {
      config: {
        endpoint: { baseUrl: '<simulator>', model: 'ignored-by-neither', api: 'completions', headers: { 'X-Team': 'bench' } },
        labels: { simulator: 'tiny', purpose: 'preparation' },
      },
      warnings: [],
    },
  },
  {
    name: 'a missing API key variable is an error of its own kind',
    files: {
      'keyed.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'LLMBENCH_TEST_KEY_NOBODY_SETS' }, limits: { requests: 1 } }),
    },
    configFile: 'keyed.json',
    expected: {
      error: { problem: 'api-key', message: 'keyed.json: field endpoint.apiKeyEnv: the environment variable LLMBENCH_TEST_KEY_NOBODY_SETS is empty or not set; export the key in it first' },
    },
  },
  {
    name: 'an unknown field is named with the file it is in',
    files: { 'typo.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 1 }, profil: { kind: 'synchronous' } }) },
    configFile: 'typo.json',
    expected: { error: { problem: 'config', message: 'typo.json: field (top level): Unrecognized key: "profil"' } },
  },
  {
    name: 'a dataset that does not exist is a file problem, named by its field',
    files: { 'missing.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 1 }, workload: { kind: 'dataset', path: 'nowhere.jsonl', format: 'jsonl' } }) },
    configFile: 'missing.json',
    expected: { error: { problem: 'file', message: "missing.json: field workload.path: cannot read '<workspace>/nowhere.jsonl' (ENOENT)" } },
  },
  {
    name: 'completions with a chat dataset and a URL without /v1: the same config, and the same warning',
    files: {
      'chat.jsonl': chatLines,
      'completions.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9', model: 'm', api: 'completions' }, limits: { requests: 1 }, workload: { kind: 'dataset', path: 'chat.jsonl', format: 'jsonl' } }),
    },
    configFile: 'completions.json',
    expected: {
      config: { endpoint: { api: 'completions', baseUrl: 'http://127.0.0.1:9' }, workload: { path: '<workspace>/chat.jsonl' } },
      warnings: ['The base URL usually ends in /v1; requests go to http://127.0.0.1:9/completions'],
    },
  },
  {
    name: 'a dry run shows no credentials: not those of the URL, not secret header values',
    files: {
      'secret.json': json({
        endpoint: { baseUrl: 'http://bench:hunter2@127.0.0.1:9/v1?api_key=sk-in-url&api-version=2', model: 'm', headers: { Authorization: 'Bearer sk-header', 'X-Team': 'bench' } },
        limits: { requests: 1 },
      }),
    },
    configFile: 'secret.json',
    expected: {
      config: { endpoint: { baseUrl: 'http://127.0.0.1:9/v1?api-version=2', headers: { Authorization: '<redacted>', 'X-Team': 'bench' } } },
      warnings: [],
    },
  },
  {
    name: 'a config file that does not exist is a file problem, worded alike',
    files: {},
    configFile: 'absent.json',
    expected: { error: { problem: 'file', message: "absent.json: cannot read '<workspace>/absent.json' (ENOENT); check the path" } },
  },
  {
    name: 'a config file that is not JSON is a config problem, worded alike',
    files: { 'broken.json': '{ "limits": { "requests": 1 }, }' },
    configFile: 'broken.json',
    expected: { error: { problem: 'config', message: /^broken\.json is not valid JSON \(.+\); fix the file and run it again$/ } },
  },
  {
    name: 'server metrics: a config file turns scraping off and sets the interval, over the front end\'s defaults',
    files: { 'scrape.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 1 }, serverMetrics: { url: 'off', intervalMs: 250 } }) },
    configFile: 'scrape.json',
    expected: { config: { serverMetrics: { url: 'off', intervalMs: 250, allowList: [], maxSeries: 64 } }, warnings: [] },
  },
  {
    name: 'server metrics: a scrape URL is shown without its credentials, like the endpoint\'s',
    files: { 'scrape-url.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 1 }, serverMetrics: { url: 'http://bench:hunter2@127.0.0.1:9/metrics' } }) },
    configFile: 'scrape-url.json',
    expected: { config: { serverMetrics: { url: 'http://127.0.0.1:9/metrics', intervalMs: 1000 } }, warnings: [] },
  },
  {
    name: 'server metrics: an interval under 100 ms is named with the file and field',
    files: { 'fast.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 1 }, serverMetrics: { intervalMs: 50 } }) },
    configFile: 'fast.json',
    expected: { error: { problem: 'config', message: 'fast.json: field serverMetrics.intervalMs: must be at least 100 ms between two scrapes' } },
  },
  {
    name: 'a value out of range is named with the file and field',
    files: { 'levels.json': json({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 1 }, profile: { kind: 'concurrency', levels: [4, 0] } }) },
    configFile: 'levels.json',
    expected: { error: { problem: 'config', message: /^levels\.json: field profile\.levels\.1: \S/ } },
  },
];

/** Replaces what differs by machine and run (the workspace path, the simulator's port) with placeholders. */
export function normalizeOutcome(outcome: PreparationOutcome, workspace: string, simulatorUrl?: string): PreparationOutcome {
  let text = JSON.stringify(outcome).split(workspace).join('<workspace>');
  if (simulatorUrl) text = text.split(simulatorUrl).join('<simulator>');
  return JSON.parse(text) as PreparationOutcome;
}

/** The simulator's URL in a prepared config, when the case ran against it. */
export function simulatorUrlOf(outcome: PreparationOutcome): string | undefined {
  if (!('config' in outcome)) return undefined;
  const labels = outcome.config['labels'] as Record<string, string> | undefined;
  const endpoint = outcome.config['endpoint'] as { baseUrl?: string } | undefined;
  return labels?.['simulator'] ? endpoint?.baseUrl : undefined;
}

/** Objects match key by key (extra keys allowed), regular expressions match strings, anything else is equal. */
export function assertMatches(actual: unknown, expected: unknown, path = 'outcome'): void {
  if (expected instanceof RegExp) {
    assert.match(String(actual), expected, `${path}`);
    return;
  }
  if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) {
    assert.ok(typeof actual === 'object' && actual !== null && !Array.isArray(actual), `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [key, value] of Object.entries(expected)) assertMatches((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    return;
  }
  assert.deepEqual(actual, expected, `${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`);
}
