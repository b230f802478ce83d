// The trace and endpoint flags of `llmbench run` (issue 22) through the real command line
// (`--dry-run` as a child process): the configuration each makes, and the message for each misuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/limited-child';

const TRACE = join(repoRoot, 'test', 'fixtures', 'traces', 'mooncake-readme.jsonl');

function dryRun(args: string[], env: Record<string, string> = {}, cwd = mkdtempSync(join(tmpdir(), 'llmbench-traffic-flags-'))): { code: number | null; config: Record<string, unknown>; error: string } {
  const child = spawnSync(process.execPath, [cliPath, 'run', ...args, '--dry-run'], { encoding: 'utf8', timeout: 30_000, cwd, env: { ...process.env, ...env } });
  const out = JSON.parse(child.stdout || '{}') as { config?: Record<string, unknown>; error?: { message: string } };
  return { code: child.status, config: out.config ?? {}, error: out.error?.message ?? child.stderr };
}

const ONE = ['--url', 'http://127.0.0.1:9/v1', '--model', 'm'];

test('--trace makes a trace profile: --time-scale, --trace-window, --trace-max-requests, --skip-bad-rows, --concurrency as its cap; no request limit needed', () => {
  const run = dryRun([...ONE, '--trace', TRACE, '--trace-format', 'mooncake', '--time-scale', '2.5', '--trace-window', '10:60', '--trace-max-requests', '500', '--skip-bad-rows', '--concurrency', '32']);
  assert.equal(run.code, 0, run.error);
  assert.deepEqual(run.config.profile, {
    kind: 'trace',
    path: TRACE,
    format: 'mooncake',
    timeScale: 2.5,
    window: { startSec: 10, endSec: 60 },
    maxRequests: 500,
    skipBadRows: true,
    blockTokens: 512,
    maxConcurrency: 32,
  });
  const openEnd = dryRun([...ONE, '--profile', 'trace', '--trace', TRACE, '--trace-window', '30:']);
  assert.deepEqual((openEnd.config.profile as { window: unknown }).window, { startSec: 30 });
  // A relative path is the working directory's.
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-traffic-flags-'));
  writeFileSync(join(dir, 'local.jsonl'), '{"timestamp": 0, "input_length": 10, "output_length": 2}\n');
  const relative = dryRun([...ONE, '--trace', 'local.jsonl'], {}, dir);
  assert.equal((relative.config.profile as { path: string }).path, join(dir, 'local.jsonl'));
});

test('misused trace flags are refused with what to do', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--profile', 'trace'], /--profile trace needs --trace FILE/],
    [['--time-scale', '2', '--requests', '3'], /--time-scale applies to a trace replay: add --trace FILE/],
    [['--trace', TRACE, '--time-scale', '0'], /--time-scale: '0' must be greater than 0/],
    [['--trace', TRACE, '--trace-window', '60'], /--trace-window: '60' is not START:END/],
    [['--trace', TRACE, '--trace-window', '60:10'], /--trace-window: '60:10' ends before it starts/],
    [['--trace', TRACE, '--trace-format', 'sharegpt'], /--trace-format: 'sharegpt' is not one of the choices; choose mooncake, azure, burstgpt or columns/],
    [['--trace', TRACE, '--input-tokens', '100'], /--input-tokens does not apply to a trace: each request's lengths come from its row/],
    [['--trace', TRACE, '--profile', 'rate', '--rate', '2', '--requests', '3'], /--trace does not apply to --profile rate: it applies to a trace replay/],
    [['--trace', join(repoRoot, 'test', 'fixtures', 'traces', 'no-such.jsonl')], /--trace: cannot read '.*no-such\.jsonl' \(ENOENT\)/],
  ];
  for (const [args, message] of cases) {
    const run = dryRun([...ONE, ...args]);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.error}`);
    assert.match(run.error, message);
  }
});

test('--url repeated spreads a run over endpoints, each with the shared flags; --url-strategy and --url-failover go with it', () => {
  const run = dryRun(['--url', 'http://127.0.0.1:9/v1', '--url', 'http://127.0.0.1:10/v1', '--model', 'm', '--header', 'X-Team: bench', '--url-strategy', 'least-in-flight', '--url-failover', '--requests', '3']);
  assert.equal(run.code, 0, run.error);
  assert.deepEqual(
    (run.config.endpoints as { baseUrl: string; model: string; headers: Record<string, string> }[]).map((e) => [e.baseUrl, e.model, e.headers['X-Team']]),
    [
      ['http://127.0.0.1:9/v1', 'm', 'bench'],
      ['http://127.0.0.1:10/v1', 'm', 'bench'],
    ],
  );
  assert.equal((run.config.endpoint as { baseUrl: string }).baseUrl, 'http://127.0.0.1:9/v1', 'the endpoint is the first');
  assert.equal(run.config.endpointStrategy, 'least-in-flight');
  assert.deepEqual(run.config.failover, { consecutiveErrors: 3, coolOffSec: 10 });

  for (const [args, message] of [
    [[...ONE, '--url-failover', '--requests', '3'], /--url-failover spreads a run over several endpoints: give --url more than once/],
    [['--url', 'http://127.0.0.1:9/v1', '--url', 'http://127.0.0.1:10/v1', '--model', 'm', '--url-strategy', 'random', '--requests', '3'], /--url-strategy: 'random' is not one of the choices; choose round-robin or least-in-flight/],
    [['--url', 'http://127.0.0.1:9/v1', '--url', 'localhost:10', '--model', 'm', '--requests', '3'], /--url \(at endpoints\.1\.baseUrl\): baseUrl must be an http/],
  ] as const) {
    const refused = dryRun([...args]);
    assert.equal(refused.code, 2, refused.error);
    assert.match(refused.error, message);
  }
});

test("a config file's endpoints each take their own key variable; a missing one is named by its endpoint", () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-traffic-flags-'));
  const path = join(dir, 'replicas.llmbench-config.json');
  writeFileSync(
    path,
    JSON.stringify({
      endpoint: { model: 'm', api: 'completions' },
      endpoints: [
        { baseUrl: 'http://user:secret-pw@127.0.0.1:9/v1', apiKeyEnv: 'KEY_A' },
        { baseUrl: 'http://127.0.0.1:10/v1', apiKeyEnv: 'KEY_B', model: 'other', headers: { Authorization: 'Bearer header-secret' } },
      ],
      limits: { requests: 2 },
    }),
  );
  const run = dryRun(['--config', path], { KEY_A: 'a-key-value', KEY_B: 'b-key-value' });
  assert.equal(run.code, 0, run.error);
  const endpoints = run.config.endpoints as { baseUrl: string; model: string; api: string; headers: Record<string, string> }[];
  assert.deepEqual(endpoints.map((e) => [e.model, e.api]), [
    ['m', 'completions'],
    ['other', 'completions'],
  ]);
  const shown = JSON.stringify(run.config);
  for (const secret of ['secret-pw', 'header-secret', 'a-key-value', 'b-key-value']) assert.ok(!shown.includes(secret), `the dry run shows no ${secret}`);
  const missing = dryRun(['--config', path], { KEY_A: 'a-key-value' });
  assert.equal(missing.code, 2);
  assert.match(missing.error, /field endpoints\.1\.apiKeyEnv: the environment variable KEY_B is empty or not set/);
  const sim = dryRun(['--config', path, '--sim'], { KEY_A: 'a', KEY_B: 'b' });
  assert.equal(sim.code, 2);
  assert.match(sim.error, /the built-in simulator is one endpoint/);
});
