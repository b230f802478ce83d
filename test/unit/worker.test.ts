import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import { parseResultDocument } from '../../src/format/result';
import { overviewOf, runBenchmarkInWorker } from '../../src/load/worker-host';
import { BadInputError } from '../../src/format/errors';
import { startRunnerServer } from '../helpers/runner-server';
import { repoRoot } from '../vscode/harness/tools';
import { translator } from '../../src/views/l10n';
import { sayWarning } from '../../src/views/step-warnings';

// Built by `node esbuild.mjs` (the test runner builds before testing).
const workerScript = join(process.env['LLMBENCH_ROOT'] ?? process.cwd(), 'dist', 'engine-worker.js');
const tempDir = (): string => mkdtempSync(join(tmpdir(), 'llmbench-worker-'));

const config = (baseUrl: string, overrides: Partial<RunConfigInput> = {}) =>
  RunConfigSchema.parse({
    endpoint: { baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 3 },
    profile: { kind: 'concurrency', levels: [2] },
    limits: { requests: 6 },
    ...overrides,
  });

test('a run in the worker thread relays its events and answers the overview of the document it wrote', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 3, firstTokenMs: 5, gapMs: 2 }));
  t.after(() => server.close());
  const path = join(tempDir(), 'worker.llmbench.json');
  const events: RunEvent[] = [];
  const doc = await runBenchmarkInWorker(config(server.baseUrl), { workerScript, resultPath: path, onEvent: (e) => events.push(e) });
  assert.equal(doc.status, 'complete');
  assert.equal(doc.steps[0]?.name, 'concurrency@2');
  assert.equal(doc.steps[0]?.summary?.requests.completed, 6);
  assert.equal(server.maxInFlight, 2);
  const onDisk = parseResultDocument(readFileSync(path, 'utf8'));
  assert.ok(onDisk.ok);
  assert.deepEqual(overviewOf(onDisk.value), doc);
  assert.equal(doc.steps[0]?.summary?.requests.total, 6, 'the records stay in the file; the overview\'s summary counts them');
  assert.equal(onDisk.value.steps[0]?.requests.length, 6, 'every record is in the file');
  assert.ok(!('requests' in doc.steps[0]!), 'no request record crosses from the worker');
  // Progress and server samples come periodically, logs as they happen: the run's own course is the rest.
  const kinds = events.map((e) => e.type).filter((k) => k !== 'progress' && k !== 'log' && k !== 'sampled');
  assert.deepEqual(kinds, ['run-start', 'step-start', 'step-end', 'run-end']);
});

test('cancelling a worker run returns a partial document', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 20 }));
  t.after(() => server.close());
  const controller = new AbortController();
  // Cancelled once the worker reports 3 completed requests, however slow the machine is.
  const doc = await runBenchmarkInWorker(config(server.baseUrl, { limits: { requests: 1000 } }), {
    workerScript,
    signal: controller.signal,
    onEvent: (e) => e.type === 'progress' && e.snapshot.completed >= 3 && controller.abort(),
  });
  assert.ok(controller.signal.aborted, 'the run was cancelled, not finished');
  assert.equal(doc.status, 'partial');
  assert.ok((doc.steps[0]?.summary?.requests.completed ?? 0) >= 3);
  assert.ok(server.arrivals.length < 1000, `${server.arrivals.length} requests sent: the cancel stopped the sending`);
});

test('a worker that dies mid-run rejects with the reason and leaves a partial file with its requests', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 10 }));
  t.after(() => server.close());
  const dir = tempDir();
  // The real engine worker, in a thread that exits abruptly once it has reported 5 completed
  // requests (each is in the file before it is counted), however slow the machine is.
  const dying = join(dir, 'dying-worker.js');
  writeFileSync(
    dying,
    `const port = require('node:worker_threads').parentPort;
const post = port.postMessage.bind(port);
port.postMessage = (message) => {
  post(message);
  if (message.type === 'event' && message.event.type === 'progress' && message.event.snapshot.completed >= 5) process.exit(7);
};
require(${JSON.stringify(workerScript)});
`,
  );
  const path = join(dir, 'crash.llmbench.json');
  const events: RunEvent[] = [];
  await assert.rejects(
    runBenchmarkInWorker(config(server.baseUrl, { limits: { requests: 1000 } }), { workerScript: dying, resultPath: path, onEvent: (e) => events.push(e) }),
    /worker stopped unexpectedly: the worker thread exited with code 7\. The result file .* keeps the \d+ requests/,
  );
  const parsed = parseResultDocument(readFileSync(path, 'utf8'));
  assert.ok(parsed.ok);
  assert.equal(parsed.value.status, 'partial');
  assert.match(parsed.value.statusReason ?? '', /exited with code 7/);
  const completed = parsed.value.steps[0]?.summary?.requests.completed ?? 0;
  assert.ok(completed >= 5, `kept ${completed}`);
  const end = events.at(-1);
  assert.equal(end?.type, 'run-end');
  // The file's reason and the run's end, as the views say them in Chinese, the thread's exit included.
  const chinese = translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);
  assert.equal(sayWarning(parsed.value.statusReason ?? '', chinese), '基准测试工作线程已停止：工作线程以退出码 7 退出');
  assert.match(sayWarning(end?.type === 'run-end' ? (end.reason ?? '') : '', chinese), /^基准测试工作线程意外停止：工作线程以退出码 7 退出。结果文件 .*crash\.llmbench\.json 保留了之前记录的 \d+ 个请求（状态：部分完成）。$/);
});

test('a run the worker cannot start for bad input rejects with the engine message, as bad input', async () => {
  const missing = join(tempDir(), 'missing.jsonl');
  await assert.rejects(
    runBenchmarkInWorker(config('http://127.0.0.1:1/v1', { workload: { kind: 'dataset', path: missing, format: 'jsonl' } }), { workerScript }),
    (error: Error) => error instanceof BadInputError && error.message.includes('missing.jsonl'),
  );
});
