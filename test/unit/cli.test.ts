/**
 * The `llmbench` command line as a user runs it: node dist/cli.js as a child process, against
 * loopback token servers and the simulator on 127.0.0.1. Checks exit codes (0 complete, 1 ran but
 * failed, 2 bad input), the messages for bad input, the result file, and that an API key never
 * shows in the output or the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readResultFile } from '../helpers/result-documents';
import { closedPort, TOKEN_SERVER_MODEL, startTokenServer } from '../helpers/cli-server';

const repoRoot = process.env.LLMBENCH_ROOT ?? resolve(__dirname, '../../..');
const cliPath = join(repoRoot, 'dist', 'cli.js');

interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number; onStderr?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<CliOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'llmbench-cli-')),
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      options.onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`llmbench ${args.join(' ')} did not exit within ${options.timeoutMs ?? 30_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

const readResult = readResultFile;

/** The one result file a run wrote under `dir/benchmarks/`. */
function onlyResultIn(dir: string): string {
  const files = readdirSync(join(dir, 'benchmarks')).filter((f) => f.endsWith('.llmbench.json'));
  assert.equal(files.length, 1, `expected one result file, found ${files.join(', ')}`);
  return join(dir, 'benchmarks', files[0] as string);
}

const endpoint = ['--url', 'http://127.0.0.1:9/v1', '--model', 'm'];

test('--version prints the package version and --help the commands', async () => {
  const version = await runCli(['--version']);
  assert.equal(version.code, 0);
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout.trim(), pkg.version);
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  for (const command of ['run', 'sim', 'import', 'report', 'demo']) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
  const runHelp = await runCli(['help', 'run']);
  assert.equal(runHelp.code, 0);
  assert.match(runHelp.stdout, /--concurrency 1,8,64/);
});

const badInputs: Array<[what: string, args: string[], message: RegExp]> = [
  ['an unknown command', ['bench'], /'bench' is not a command/],
  ['an unknown flag', ['run', ...endpoint, '--requests', '1', '--rpm', '3'], /--rpm is not an option of llmbench run/],
  ['a flag without its value', ['run', ...endpoint, '--requests'], /--requests needs a value/],
  ['a non-numeric rate', ['run', ...endpoint, '--requests', '1', '--rate', 'abc'], /--rate: 'abc' is not a number; give requests per second like --rate 1,2\.5/],
  ['a negative concurrency', ['run', ...endpoint, '--requests', '1', '--concurrency', '-4'], /--concurrency: '-4' must be at least 1/],
  ['a zero request count', ['run', ...endpoint, '--requests', '0'], /--requests: '0' must be at least 1/],
  ['a zero duration', ['run', ...endpoint, '--duration', '0'], /--duration: '0' must be greater than 0/],
  ['a fractional concurrency', ['run', ...endpoint, '--requests', '1', '--concurrency', '1,2.5'], /--concurrency: '2\.5' must be a whole number/],
  ['an unknown profile', ['run', ...endpoint, '--requests', '1', '--profile', 'burst'], /--profile: 'burst' is not one of the choices; choose synchronous, concurrency, rate, throughput, sweep or trace/],
  ['a rate profile without --rate', ['run', ...endpoint, '--requests', '1', '--profile', 'rate'], /--rate is required with --profile rate/],
  ['a flag the profile does not use', ['run', ...endpoint, '--requests', '1', '--profile', 'synchronous', '--rate', '2'], /--rate does not apply to --profile synchronous/],
  ['no request or duration limit', ['run', ...endpoint], /--requests or --duration/],
  ['no endpoint', ['run', '--requests', '1'], /--url is required/],
  ['a malformed URL', ['run', '--url', 'localhost:8000', '--model', 'm', '--requests', '1'], /--url: baseUrl must be an http/],
  ['an SLO value that is not a number', ['run', ...endpoint, '--requests', '1', '--slo', 'ttft=fast'], /--slo ttft: 'fast' is not a number/],
  ['an unknown SLO', ['run', ...endpoint, '--requests', '1', '--slo', 'ttft=200,itl=5'], /--slo: 'itl' is not an objective/],
  ['a header without a colon', ['run', ...endpoint, '--requests', '1', '--header', 'X-Team bench'], /--header: 'X-Team bench' is not a header/],
  ['a label without =', ['run', ...endpoint, '--requests', '1', '--label', 'gpu'], /--label: 'gpu' is not a label; write key=value/],
  ['extra body that is not JSON', ['run', ...endpoint, '--requests', '1', '--extra-body', '{ignore_eos: true}'], /--extra-body: not valid JSON/],
  ['extra body that is not an object', ['run', ...endpoint, '--requests', '1', '--extra-body', '[1]'], /--extra-body: must be a JSON object/],
  ['an unreadable config file', ['run', '--config', '/nonexistent/run.json'], /--config \/nonexistent\/run\.json: cannot read '\/nonexistent\/run\.json' \(ENOENT\); check the path/],
  ['an unreadable dataset', ['run', ...endpoint, '--requests', '1', '--dataset', '/nonexistent/q.jsonl', '--dataset-format', 'openqa'], /--dataset: cannot read/],
  ['--burstiness with constant arrival', ['run', ...endpoint, '--requests', '1', '--rate', '2', '--arrival', 'constant', '--burstiness', '0.5'], /--burstiness is the gamma shape: it needs --arrival gamma/],
  ['an empty API key variable', ['run', ...endpoint, '--requests', '1', '--api-key-env', 'LLMBENCH_TEST_EMPTY_KEY'], /--api-key-env: the environment variable LLMBENCH_TEST_EMPTY_KEY is empty or not set/],
  ['--sim with --url', ['run', '--sim', ...endpoint, '--requests', '1'], /--sim and --url both name the endpoint/],
];

for (const [what, args, message] of badInputs) {
  test(`exit 2 for ${what}`, async () => {
    const outcome = await runCli(args, { env: { LLMBENCH_TEST_EMPTY_KEY: '' } });
    assert.equal(outcome.code, 2, `stderr: ${outcome.stderr}`);
    assert.match(outcome.stderr, message);
    assert.doesNotMatch(outcome.stderr, /at .*\.js:\d+/, 'a bad-input message shows no stack trace');
  });
}

test('exit 2 naming the config file field that is invalid, and flags override the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-config-'));
  const configPath = join(dir, 'run.json');
  writeFileSync(
    configPath,
    JSON.stringify({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, profile: { kind: 'concurrency', levels: [4, 0] }, limits: { requests: 2 } }),
  );
  const invalid = await runCli(['run', '--config', configPath]);
  assert.equal(invalid.code, 2);
  assert.match(invalid.stderr, new RegExp(`--config ${configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: field profile\\.levels\\.1: `));

  writeFileSync(configPath, JSON.stringify({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, limits: { requests: 2 }, colour: 'blue' }));
  const unknownField = await runCli(['run', '--config', configPath]);
  assert.equal(unknownField.code, 2);
  assert.match(unknownField.stderr, /field \(top level\): .*colour/);

  writeFileSync(configPath, '{"endpoint": ');
  const notJson = await runCli(['run', '--config', configPath]);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /is not valid JSON/);

  // The file's bad level is replaced by the flag's, so the run gets past validation and only
  // fails at the (closed) endpoint: exit 1, not 2.
  writeFileSync(
    configPath,
    JSON.stringify({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, profile: { kind: 'concurrency', levels: [0] }, limits: { requests: 2 } }),
  );
  const port = await closedPort();
  const overridden = await runCli(['run', '--config', configPath, '--concurrency', '2', '--url', `http://127.0.0.1:${port}/v1`, '--timeout', '5']);
  assert.equal(overridden.code, 1, overridden.stderr);
});

test('exit 1 when every request fails (nothing listening), with a valid failed result file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cli-'));
  const port = await closedPort();
  const outcome = await runCli(['run', '--url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '--requests', '3', '--timeout', '5'], { cwd: dir });
  assert.equal(outcome.code, 1, outcome.stderr);
  const doc = readResult(onlyResultIn(dir));
  assert.notEqual(doc.status, 'complete');
  const records = doc.steps.flatMap((s) => s.requests);
  assert.ok(records.length >= 3);
  assert.ok(records.every((r) => r.error?.kind === 'connect'), JSON.stringify(records.map((r) => r.error)));
  assert.match(outcome.stdout, /Result: benchmarks\/.*\.llmbench\.json/);
});

test('exit 0 against a loopback server: table, result file, labels; the API key is sent but never shown or written', async () => {
  const server = await startTokenServer();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cli-'));
  const secret = 'sk-llmbench-test-5ecret-value';
  try {
    const outcome = await runCli(
      [
        'run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--concurrency', '1,2', '--requests', '4',
        '--input-tokens', '20', '--output-tokens', '6', '--api-key-env', 'LLMBENCH_TEST_KEY',
        '--header', 'X-Team: bench', '--header', 'X-Auth-Token: hidden-header-value',
        '--label', 'engine=scripted', '--label', 'gpu=none', '--extra-body', '{"ignore_eos": true}',
        '--slo', 'ttft=500,e2e=2000', '--format', 'vllm', '--out', 'out/run.llmbench.json',
      ],
      { cwd: dir, env: { LLMBENCH_TEST_KEY: secret } },
    );
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.match(outcome.stdout, /Benchmark\s+\|\s+req\/s\s+\|\s+output tok\/s\s+\|\s+TTFT \(mean, ms\)/);
    assert.match(outcome.stdout, /Serving Benchmark Result/);
    assert.match(outcome.stdout, /Result: out\/run\.llmbench\.json/);

    const fileText = readFileSync(join(dir, 'out', 'run.llmbench.json'), 'utf8');
    for (const text of [outcome.stdout, outcome.stderr, fileText]) {
      assert.ok(!text.includes(secret), 'the API key leaked');
      assert.ok(!text.includes('hidden-header-value'), 'a secret header value leaked');
    }
    const doc = readResult(join(dir, 'out', 'run.llmbench.json'));
    assert.equal(doc.status, 'complete');
    assert.deepEqual(doc.labels, { engine: 'scripted', gpu: 'none' });
    assert.deepEqual(doc.steps.map((s) => s.profile.concurrency), [1, 2]);
    for (const step of doc.steps) {
      assert.equal(step.summary?.requests.completed, 4);
      for (const record of step.requests) {
        assert.equal(record.outputTokens, 6);
        assert.equal(record.outputTokensSource, 'usage');
        assert.ok(record.firstTokenMs !== null && record.endMs !== null && record.firstTokenMs <= record.endMs);
      }
    }
    const completions = server.requests.filter((r) => r.path === '/v1/chat/completions');
    assert.ok(completions.length >= 8);
    for (const request of completions) {
      assert.equal(request.headers.authorization, `Bearer ${secret}`);
      assert.equal(request.headers['x-team'], 'bench');
      assert.equal(request.body.ignore_eos, true);
      assert.equal(request.body.model, TOKEN_SERVER_MODEL);
    }
  } finally {
    await server.close();
  }
});

test('exit 0 with --no-stream against completions: no TTFT is invented', async () => {
  const server = await startTokenServer();
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cli-'));
  try {
    const outcome = await runCli(
      ['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--api', 'completions', '--no-stream', '--requests', '3', '--input-tokens', '10', '--output-tokens', '4'],
      { cwd: dir },
    );
    assert.equal(outcome.code, 0, outcome.stderr);
    const doc = readResult(onlyResultIn(dir));
    const [step] = doc.steps;
    assert.equal(step?.summary?.ttftMs, null);
    assert.ok(step?.requests.every((r) => r.firstTokenMs === null && r.endMs !== null));
    assert.ok(server.requests.every((r) => r.path === '/v1/completions' && r.body.stream !== true));
  } finally {
    await server.close();
  }
});

test('exit 0 against the built-in simulator (--sim tiny), the result file in ./benchmarks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cli-'));
  const outcome = await runCli(['run', '--sim', 'tiny', '--concurrency', '4', '--requests', '8', '--input-tokens', '64', '--output-tokens', '16'], { cwd: dir });
  assert.equal(outcome.code, 0, outcome.stderr);
  const doc = readResult(onlyResultIn(dir));
  assert.equal(doc.status, 'complete');
  assert.equal(doc.steps[0]?.summary?.requests.completed, 8);
  assert.match(doc.endpoint.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
});

test('exit 2 for an unknown simulator preset', async () => {
  const outcome = await runCli(['run', '--sim', 'h100-dreams', '--requests', '1']);
  assert.equal(outcome.code, 2);
  assert.match(outcome.stderr, /--sim: .*h100-dreams|--sim: .*preset/);
});

test('demo runs a sweep against the simulator (shortened with run flags)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-demo-'));
  const outcome = await runCli(['demo', '--sim', 'tiny', '--rate', '2', '--duration', '1', '--requests', '10', '--input-tokens', '64', '--output-tokens', '16'], {
    cwd: dir,
    timeoutMs: 60_000,
  });
  assert.equal(outcome.code, 0, outcome.stderr);
  assert.match(outcome.stdout, /^synchronous /m);
  assert.match(outcome.stdout, /^throughput /m);
  const doc = readResult(onlyResultIn(dir));
  assert.equal(doc.steps.length, 4);
  assert.equal(doc.labels.source, 'llmbench demo');
});

test('Ctrl-C cancels: exit 1, the partial result is kept and says so', async () => {
  const server = await startTokenServer({ firstTokenMs: 20, gapMs: 20 });
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-cli-'));
  try {
    let interrupted = false;
    const outcome = await runCli(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--requests', '200', '--output-tokens', '10', '--input-tokens', '8'], {
      cwd: dir,
      onStderr: (text, child) => {
        if (!interrupted && /Step 1/.test(text)) {
          interrupted = true;
          setTimeout(() => child.kill('SIGINT'), 700);
        }
      },
    });
    assert.ok(interrupted, 'the run never started a step');
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(outcome.stderr, /Cancelled.*partial result is kept/);
    const doc = readResult(onlyResultIn(dir));
    assert.equal(doc.status, 'partial');
    const completed = doc.steps.flatMap((s) => s.requests).filter((r) => r.error === null);
    assert.ok(completed.length > 0 && completed.length < 200, `${completed.length} completed`);
  } finally {
    await server.close();
  }
});

test('--server-metrics URL|off and --server-metrics-interval MS become the run\'s serverMetrics; a bad value exits 2 naming the flag', async () => {
  const dry = await runCli(['run', '--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--requests', '1', '--server-metrics', 'off', '--server-metrics-interval', '250', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual((JSON.parse(dry.stdout) as { config: { serverMetrics: unknown } }).config.serverMetrics, { url: 'off', intervalMs: 250, allowList: [], maxSeries: 64 });
  const tooFast = await runCli(['run', '--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--requests', '1', '--server-metrics-interval', '50']);
  assert.equal(tooFast.code, 2);
  assert.match(tooFast.stderr, /--server-metrics-interval: '50' must be at least 100/);
  const notUrl = await runCli(['run', '--url', 'http://127.0.0.1:9/v1', '--model', 'm', '--requests', '1', '--server-metrics', 'localhost:8000']);
  assert.equal(notUrl.code, 2);
  assert.match(notUrl.stderr, /--server-metrics: must be "off" or an http:\/\/ or https:\/\/ URL/);
});
