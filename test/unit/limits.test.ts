/**
 * Faults on the client's side and limits of the machine: failures that need no network I/O,
 * a file descriptor limit below the concurrency, and values too large to run. Each runs in a
 * child process (with `ulimit` where it matters), so that a run that spins or hangs is killed
 * and reported instead of stalling the test runner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseResultDocument } from '../../src/format/result';
import { checkFileDescriptors, fileDescriptorLimit } from '../../src/load/fd-limit';
import { BadInputError } from '../../src/format/errors';
import { startTokenServer, TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { runCliLimited, runEngineScript } from '../helpers/limited-child';
import { repoRoot } from '../vscode/harness/tools';
import { translator } from '../../src/views/l10n';
import { sayWarning } from '../../src/views/step-warnings';

/** Far above what either run needs when it behaves: only a hang reaches it. */
const HANG_MS = 30_000;

/** A run config whose every request fails before any I/O: a BigInt in the body cannot be serialized. */
const unsendableRun = (limits: string) => `
  const config = {
    endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
    request: { extraBody: { seed: 1n } },
    workload: { kind: 'synthetic', inputTokens: 4, outputTokens: 2 },
    profile: { kind: 'concurrency', levels: [300] },
    limits: ${limits},
  };`;

test('failures that need no network I/O end at the step duration, not in a loop that starves timers', async () => {
  const outcome = await runEngineScript(
    `${unsendableRun('{ durationSec: 0.5 }')}
    const doc = await engine.runBenchmark(config, {});
    const requests = doc.steps[0].requests;
    return { status: doc.status, records: requests.length, kinds: [...new Set(requests.map((r) => r.error && r.error.kind))] };`,
    { timeoutMs: HANG_MS },
  );
  assert.equal(outcome.timedOut, false, `the run ignored its 0.5 s duration and was killed after ${HANG_MS} ms`);
  assert.equal(outcome.code, 0, outcome.stderr);
  const result = JSON.parse(outcome.stdout) as { status: string; records: number; kinds: string[] };
  assert.equal(result.status, 'failed');
  assert.deepEqual(result.kinds, ['other']);
  assert.ok(result.records >= 300, `${result.records} records`);
});

test('failures that need no network I/O stop at a cancel', async () => {
  const outcome = await runEngineScript(
    `${unsendableRun('{ durationSec: 100000 }')}
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const doc = await engine.runBenchmark(config, { signal: controller.signal });
    return { status: doc.status, records: doc.steps[0].requests.length };`,
    { timeoutMs: HANG_MS },
  );
  assert.equal(outcome.timedOut, false, 'the cancel was never seen: the run was killed');
  assert.equal(outcome.code, 0, outcome.stderr);
  assert.ok((JSON.parse(outcome.stdout) as { records: number }).records > 0);
});

test('/proc/self/limits is read for the open-file limit; a concurrency above it is bad input naming ulimit -n', () => {
  const text = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            256                  4096                 files\n';
  assert.deepEqual(fileDescriptorLimit(text), { soft: 256, hard: 4096 });
  assert.deepEqual(fileDescriptorLimit('Max open files            unlimited            unlimited            files'), { soft: Infinity, hard: Infinity });
  assert.equal(fileDescriptorLimit('nothing here'), null);
  assert.throws(() => checkFileDescriptors(300, { soft: 256, hard: 4096 }), (e: unknown) => e instanceof BadInputError && /ulimit -n \d+/.test(e.message) && /hard limit is 4096/.test(e.message));
  assert.throws(() => checkFileDescriptors(300, { soft: 256, hard: 256 }), /administrator/);
  checkFileDescriptors(10, { soft: 100_000, hard: 100_000 });
  checkFileDescriptors(10, null);
});

test('ulimit -n below the concurrency: exit 2 before anything is sent or written', async (t) => {
  const server = await startTokenServer();
  t.after(() => server.close());
  const cwd = mkdtempSync(join(tmpdir(), 'llmbench-fd-'));
  for (const load of [['--concurrency', '300'], ['--profile', 'throughput'], ['--profile', 'sweep']]) {
    const outcome = await runCliLimited(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, ...load, '--duration', '1', '--out', 'r.llmbench.json'], {
      ulimit: ['-n', '256'],
      cwd,
      timeoutMs: HANG_MS,
    });
    assert.equal(outcome.code, 2, `${load.join(' ')}: ${outcome.stderr}`);
    assert.match(outcome.stderr, /may open only 256 \(ulimit -n\).*lower the concurrency/);
  }
  assert.equal(server.requests.length, 0, 'no request was sent');
  assert.equal(existsSync(join(cwd, 'r.llmbench.json')), false, 'no file was written');
});

test('EMFILE during a run is the client failing: the run is failed with exit 1, never a complete measurement', async () => {
  // The simulator runs in the same process, so each request holds two descriptors: the up-front
  // check (one per request) passes, and the connections then run out.
  const cwd = mkdtempSync(join(tmpdir(), 'llmbench-emfile-'));
  const outcome = await runCliLimited(['run', '--sim', 'tiny', '--concurrency', '150', '--duration', '3', '--output-tokens', '4', '--out', 'r.llmbench.json'], {
    ulimit: ['-n', '256'],
    cwd,
    timeoutMs: HANG_MS,
  });
  assert.equal(outcome.code, 1, outcome.stderr);
  assert.match(outcome.stderr, /The client failed, not the server: .*EMFILE.*ulimit -n/);
  const parsed = parseResultDocument(readFileSync(join(cwd, 'r.llmbench.json'), 'utf8'));
  assert.ok(parsed.ok && parsed.value.status === 'failed', parsed.ok ? `${parsed.value.status}: ${parsed.value.statusReason}` : parsed.error);
  // The reason as the views say it in Chinese, the system's own error kept as it came. The file may
  // have failed too (EMFILE again): then the engine's error follows, worded as well.
  const chinese = translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);
  assert.match(sayWarning(parsed.value.statusReason ?? '', chinese), /^失败的是客户端，而不是服务端：.*EMFILE.* 运行已停止：它的数字测的会是本机。(引擎因错误而停止：.*)?$/);
  assert.deepEqual((parsed.value.warnings ?? []).filter((w) => w.includes('cross-check')), [], 'a run cut short makes no token cross-check');
  assert.ok(parsed.value.steps[0]?.requests.some((r) => r.error?.kind === 'client'));
});

test('huge values are bad input with the allowed range, before anything is sent or written', async (t) => {
  const server = await startTokenServer();
  t.after(() => server.close());
  const cwd = mkdtempSync(join(tmpdir(), 'llmbench-huge-'));
  const cases: Array<[string[], RegExp]> = [
    [['--timeout', '1e12'], /--timeout\b.*allowed: 1 to 2,147,483,647/],
    [['--duration', '1e12'], /--duration\b.*allowed: above 0 up to 2,147,483/],
    [['--input-tokens', '1e12'], /--input-tokens\b.*allowed: 1 to 10,000,000/],
    [['--concurrency', '1e12'], /--concurrency\b.*allowed: 1 to 100,000/],
    [['--requests', '1e12'], /--requests\b.*allowed: 1 to 10,000,000/],
  ];
  for (const [flags, message] of cases) {
    const limits = flags[0] === '--duration' || flags[0] === '--requests' ? [] : ['--requests', '3'];
    const outcome = await runCliLimited(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, ...limits, ...flags, '--out', 'r.llmbench.json'], { cwd, timeoutMs: HANG_MS });
    assert.equal(outcome.code, 2, `${flags.join(' ')}: ${outcome.stderr}`);
    assert.match(outcome.stderr, message);
  }
  assert.equal(server.requests.length, 0);
  assert.equal(existsSync(join(cwd, 'r.llmbench.json')), false);
});

test('dataset errors are bad input (exit 2); binary bytes are escaped; a missing format is guessed or asked for', async (t) => {
  const server = await startTokenServer({ keepRequests: true });
  t.after(() => server.close());
  const cwd = mkdtempSync(join(tmpdir(), 'llmbench-dataset-'));
  writeFileSync(join(cwd, 'empty.txt'), '');
  writeFileSync(join(cwd, 'bad.jsonl'), '{"prompt": "ok"}\n{"prompt": \n');
  writeFileSync(join(cwd, 'binary.jsonl'), Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x07, 0x00, 0xff, 0x0a]));
  writeFileSync(join(cwd, 'chat.jsonl'), '{"messages": [{"role": "user", "content": "hi"}]}\n');
  writeFileSync(join(cwd, 'prompts.json'), '[]');
  writeFileSync(join(cwd, 'prompts.txt'), 'one prompt\n');
  const dataset = (path: string, format?: string) =>
    runCliLimited(['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--requests', '1', '--dataset', path, ...(format ? ['--dataset-format', format] : []), '--out', 'r.llmbench.json'], { cwd, timeoutMs: HANG_MS });
  const refused: Array<[string, string | undefined, RegExp]> = [
    ['empty.txt', undefined, /no usable prompts/],
    ['bad.jsonl', undefined, /line 2 is not JSON/],
    ['binary.jsonl', undefined, /line 1 is not JSON/],
    ['.', 'jsonl', /is a folder, not a file/],
    ['chat.jsonl', 'openqa', /has no "question" text/],
    ['prompts.json', undefined, /its format is needed.*--dataset-format/],
  ];
  for (const [path, format, message] of refused) {
    const outcome = await dataset(path, format);
    assert.equal(outcome.code, 2, `${path}: ${outcome.stderr}`);
    assert.match(outcome.stderr, message);
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f]/.test(outcome.stderr), `${path}: raw control bytes on stderr: ${JSON.stringify(outcome.stderr)}`);
  }
  assert.equal(server.requests.length, 0);
  const guessed = await dataset('prompts.txt');
  assert.equal(guessed.code, 0, guessed.stderr);
  // The file's prompt, opened by the run's salt (docs/workloads.md, "Warm caches").
  const [message, ...more] = (server.requests[0]?.body.messages ?? []) as { role: string; content: string }[];
  assert.deepEqual(more, []);
  assert.equal(message?.role, 'user');
  assert.match(message?.content ?? '', /^[0-9a-f]{6} one prompt$/);
});

test('one Ctrl-C says once that it cancelled; Ctrl-C twice quits at once and the file is finished as partial, not left running', async (t) => {
  const server = await startTokenServer({ firstTokenMs: 50, gapMs: 50, keepRequests: false });
  t.after(() => server.close());
  const cwd = mkdtempSync(join(tmpdir(), 'llmbench-sigint-'));
  const args = ['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--requests', '100000', '--output-tokens', '20', '--out', 'r.llmbench.json'];
  const readStatus = () => {
    const parsed = parseResultDocument(readFileSync(join(cwd, 'r.llmbench.json'), 'utf8'));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    return parsed.value;
  };

  let interrupted = false;
  const once = await runCliLimited([...args, '--concurrency', '4'], {
    cwd,
    timeoutMs: HANG_MS,
    onStderr: (text, signal) => {
      if (interrupted || !/Step 1/.test(text)) return;
      interrupted = true;
      setTimeout(() => signal('SIGINT'), 300);
    },
  });
  assert.equal(once.code, 1, once.stderr);
  assert.match(once.stderr, /^Cancelled\. The partial result is kept in r\.llmbench\.json$/m);
  assert.doesNotMatch(once.stderr, /Cancelled: Cancelled|kept\.\./);
  assert.equal(readStatus().status, 'partial');

  // The second Ctrl-C must come while the first cancel is still under way: many requests in
  // flight make that likely; an attempt whose cancel won the race is tried again.
  let quitAtOnce = 0;
  for (let attempt = 0; attempt < 5 && quitAtOnce === 0; attempt++) {
    let pressed = 0;
    const twice = await runCliLimited([...args, '--concurrency', '2000'], {
      cwd,
      timeoutMs: HANG_MS,
      onStderr: (text, signal) => {
        if (pressed === 0 && /Step 1/.test(text)) {
          pressed = 1;
          setTimeout(() => signal('SIGINT'), 300);
        } else if (pressed === 1 && /Cancelling/.test(text)) {
          pressed = 2;
          signal('SIGINT');
        }
      },
    });
    if (twice.code !== 130) continue;
    quitAtOnce++;
    const doc = readStatus();
    assert.equal(doc.status, 'partial', 'a second Ctrl-C left the file running');
    assert.match(doc.statusReason ?? '', /second Ctrl-C/);
  }
  assert.equal(quitAtOnce, 1, 'no second Ctrl-C came before the first cancel ended');
});

test('credentials in --url reach neither the terminal nor the result file', async (t) => {
  const server = await startTokenServer({ keepRequests: false });
  t.after(() => server.close());
  const cwd = mkdtempSync(join(tmpdir(), 'llmbench-credentials-'));
  // Without /v1 the command line notes where requests go, and the server answers 404: both print the URL.
  const url = `http://alice:hunter22@127.0.0.1:${server.port}/?key=qk-secret-1`;
  const outcome = await runCliLimited(['run', '--url', url, '--model', TOKEN_SERVER_MODEL, '--requests', '3', '--out', 'r.llmbench.json'], { cwd, timeoutMs: HANG_MS });
  assert.equal(outcome.code, 1, outcome.stderr);
  assert.match(outcome.stderr, /usually ends in \/v1/);
  const everything = outcome.stdout + outcome.stderr + readFileSync(join(cwd, 'r.llmbench.json'), 'utf8');
  for (const secret of ['hunter22', 'qk-secret-1', 'alice']) assert.ok(!everything.includes(secret), `${secret} was shown or stored`);
});
