import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseResultDocument, SCHEMA_VERSION, type RequestRecord, type ResultDocument } from '../../src/format/result';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { summarizeStep } from '../../src/results/stats';
import { readResultDocument, resultFileName, ResultWriter, type ResultHead } from '../../src/results/writer';
import { runBenchmark } from '../../src/load/runner';
import { startRunnerServer } from '../helpers/runner-server';
import { startTokenServer, TOKEN_SERVER_MODEL } from '../helpers/cli-server';
import { runCliLimited } from '../helpers/limited-child';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'llmbench-writer-'));

const head: ResultHead = {
  schemaVersion: SCHEMA_VERSION,
  tool: { name: 'llm-bench', version: 'test' },
  createdAt: '2026-01-02T03:04:05.000Z',
  endpoint: { baseUrl: 'http://127.0.0.1:1/v1', api: 'chat', model: 'm' },
  labels: { gpu: 'none' },
  config: { slo: { e2eMs: 15 } },
};

function record(index: number): RequestRecord {
  return {
    index,
    warmup: false,
    scheduledMs: index * 10,
    sentMs: index * 10,
    queueMs: 0,
    firstTokenMs: index * 10 + 2,
    chunkMs: [index * 10 + 2, index * 10 + 5],
    endMs: index * 10 + 5 + index, // latencies 5, 6, 7, ...
    inputTokens: 3,
    inputTokensSource: 'estimate',
    outputTokens: 2,
    outputTokensSource: 'usage',
    finishReason: 'length',
    httpStatus: 200,
    error: index === 3 ? { kind: 'http', message: 'HTTP 500 "quoted" \\ text' } : null,
  };
}

function parseFile(path: string): ResultDocument {
  const parsed = parseResultDocument(readFileSync(path, 'utf8'));
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  return parsed.value;
}

test('the file is a valid running document after every appended request, and complete at the end', () => {
  const path = join(tempDir(), 'run.llmbench.json');
  const writer = new ResultWriter(path, head);
  assert.deepEqual(parseFile(path).steps, []);
  for (const [stepIndex, name] of ['first', 'second'].entries()) {
    writer.startStep(name, { kind: 'concurrency', concurrency: 2 });
    for (let i = 0; i < 5; i++) {
      writer.addRecord(record(i));
      const doc = parseFile(path);
      assert.equal(doc.status, 'running');
      assert.equal(doc.steps.length, stepIndex + 1);
      assert.deepEqual(doc.steps[stepIndex]?.requests, Array.from({ length: i + 1 }, (_, j) => record(j)));
      assert.equal(doc.steps[stepIndex]?.summary, null);
    }
    const summary = writer.endStep();
    assert.deepEqual(summary, summarizeStep(writer.document.steps[stepIndex]?.requests ?? [], { kind: 'concurrency', concurrency: 2 }, { e2eMs: 15 }), 'the accumulator and the records agree');
    assert.equal(parseFile(path).steps[stepIndex]?.summary?.requests.completed, 4);
  }
  const final = writer.finish('complete', null);
  const onDisk = parseFile(path);
  assert.deepEqual(onDisk, final);
  assert.equal(onDisk.status, 'complete');
  assert.equal(typeof onDisk.finishedAt, 'string');
  assert.deepEqual(readdirSync(join(path, '..')), ['run.llmbench.json'], 'no temporary file is left behind');
});

test('without keepRecords the document in memory holds no record, the file holds them all, and the summaries are the same', () => {
  const path = join(tempDir(), 'lean.llmbench.json');
  const writer = new ResultWriter(path, head, { keepRecords: false });
  writer.startStep('only', { kind: 'concurrency', concurrency: 2 });
  for (let i = 0; i < 7; i++) writer.addRecord(record(i));
  const summary = writer.endStep({ note: 'a note' });
  const final = writer.finish('complete', null);
  assert.deepEqual(final.steps[0]?.requests, [], 'no record kept in memory');
  const onDisk = parseFile(path);
  assert.deepEqual(onDisk.steps[0]?.requests, Array.from({ length: 7 }, (_, i) => record(i)));
  assert.deepEqual(onDisk.steps[0]?.summary, summary);
  assert.deepEqual(summary, summarizeStep(onDisk.steps[0]?.requests ?? [], { kind: 'concurrency', concurrency: 2 }, { e2eMs: 15 }));
  assert.equal(onDisk.steps[0]?.note, 'a note');
  assert.equal(onDisk.status, 'complete');
});

test('a reader shows a running file as partial and summarizes its open step; an unfinished writer finishes partial', () => {
  const path = join(tempDir(), 'crashed.llmbench.json');
  const writer = new ResultWriter(path, head);
  writer.startStep('synchronous', { kind: 'synchronous', concurrency: 1 });
  for (let i = 0; i < 3; i++) writer.addRecord(record(i));
  writer.abandon(); // as if the process had died here
  const read = readResultDocument(readFileSync(path, 'utf8'));
  assert.ok(read.ok);
  assert.equal(read.value.status, 'partial');
  assert.match(read.value.statusReason ?? '', /had not finished/);
  const summary = read.value.steps[0]?.summary;
  assert.deepEqual(summary?.requests, { total: 3, completed: 3, failed: 0 });
  // The SLO echoed in the config is applied: latencies 5, 6, 7 against e2e 15 are all good.
  assert.equal(summary?.goodput, summary?.requestsPerSecond);

  const cancelled = new ResultWriter(join(tempDir(), 'cancelled.llmbench.json'), head);
  cancelled.startStep('synchronous', { kind: 'synchronous', concurrency: 1 });
  cancelled.addRecord(record(0));
  const doc = cancelled.finish('partial', 'Cancelled');
  assert.equal(doc.status, 'partial');
  assert.equal(doc.steps[0]?.summary?.requests.completed, 1);
});

test('a result file that cannot be written is refused up front with the path', () => {
  const path = join(tempDir(), 'no-such-folder', 'run.llmbench.json');
  assert.throws(() => new ResultWriter(path, head), /Cannot write the result file .*no-such-folder.*Check that its folder exists/);
});

test('without a path the document is kept in memory only', () => {
  const writer = new ResultWriter(undefined, head);
  writer.startStep('s', { kind: 'synchronous' });
  writer.addRecord(record(0));
  assert.equal(writer.document.steps[0]?.requests.length, 1);
});

test('result file names carry the local time, a sanitized model and the profile', () => {
  const date = new Date(2026, 0, 2, 3, 4, 5);
  assert.equal(resultFileName(date, 'meta-llama/Llama-3.1-8B Instruct', 'sweep'), '20260102-030405-meta-llama-Llama-3.1-8B-Instruct-sweep.llmbench.json');
  assert.equal(resultFileName(date, '../..', 'rate'), '20260102-030405-model-rate.llmbench.json');
});

const childScript = join(__dirname, '..', 'helpers', 'runner-child.js');

test('a run killed with SIGKILL leaves a valid file with every request completed before the kill', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 3, firstTokenMs: 5, gapMs: 5 }));
  t.after(() => server.close());
  const path = join(tempDir(), 'killed.llmbench.json');
  const config: RunConfigInput = {
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 3 },
    profile: { kind: 'concurrency', levels: [2] },
    limits: { requests: 2000 },
  };
  const child = spawn(process.execPath, [childScript, JSON.stringify(RunConfigSchema.parse(config)), path], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));

  let seen = 0;
  for (let attempt = 0; attempt < 200 && seen < 20; attempt++) {
    await sleep(50);
    if (!existsSync(path)) continue;
    const parsed = parseResultDocument(readFileSync(path, 'utf8'));
    assert.ok(parsed.ok, `the file was invalid while running: ${parsed.ok ? '' : parsed.error}`);
    seen = parsed.value.steps[0]?.requests.length ?? 0;
  }
  assert.ok(seen >= 20, `the child recorded only ${seen} requests in 10 s: ${stderr}`);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  const completedByServer = server.completed;

  const raw = parseFile(path);
  assert.equal(raw.status, 'running');
  const records = raw.steps[0]?.requests ?? [];
  assert.ok(records.length >= seen, 'nothing recorded earlier is lost');
  // Every response the server finished was recorded, except at most the two in flight at the kill.
  assert.ok(records.length >= completedByServer - 2, `${records.length} recorded, server completed ${completedByServer}`);
  assert.ok(records.every((r) => r.error === null && r.outputTokens === 3));
  const shown = readResultDocument(readFileSync(path, 'utf8'));
  assert.ok(shown.ok);
  assert.equal(shown.value.status, 'partial');
  assert.equal(shown.value.steps[0]?.summary?.requests.completed, records.length);
});

test('a cancelled run finishes its file as partial with what it measured', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 10, gapMs: 10 }));
  t.after(() => server.close());
  const path = join(tempDir(), 'cancelled-run.llmbench.json');
  const controller = new AbortController();
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm', headers: { 'X-Api-Key': 'secret-value', 'X-Team': 'bench' } },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
    limits: { requests: 1000 },
  });
  // Cancelled once 3 requests are measured, however slow the machine is.
  const doc = await runBenchmark(config, {
    resultPath: path,
    signal: controller.signal,
    apiKey: 'sk-never-written',
    onEvent: (e) => e.type === 'progress' && e.snapshot.completed >= 3 && controller.abort(),
  });
  assert.ok(controller.signal.aborted, 'the run was cancelled, not finished');
  assert.equal(doc.status, 'partial');
  const onDisk = parseFile(path);
  assert.deepEqual(onDisk, doc);
  const measured = onDisk.steps[0]?.requests.filter((r) => r.error === null) ?? [];
  assert.ok(measured.length >= 3, `measured ${measured.length}`);
  assert.equal(onDisk.steps[0]?.summary?.requests.completed, measured.length);
  const text = readFileSync(path, 'utf8');
  assert.ok(!text.includes('secret-value') && !text.includes('sk-never-written'), 'no secret in the file');
  assert.match(text, /"X-Team":"bench"/);
});

test('every whole-file rewrite is a new file renamed over the old one: a reader never sees it half written', () => {
  const path = join(tempDir(), 'atomic.llmbench.json');
  const writer = new ResultWriter(path, head);
  // The file before each rewrite is held open, as a reader would, so that its inode cannot be reused.
  const rewrites: Array<[string, () => void]> = [
    ['startStep', () => writer.startStep('s', { kind: 'synchronous', concurrency: 1 })],
    ['endStep', () => writer.endStep()],
    ['finish', () => writer.finish('complete', null)],
  ];
  for (const [name, rewrite] of rewrites) {
    const reader = openSync(path, 'r');
    const before = fstatSync(reader).ino;
    const text = readFileSync(path, 'utf8');
    rewrite();
    assert.notEqual(statSync(path).ino, before, `${name} rewrote the file in place`);
    assert.equal(readFileSync(reader, 'utf8'), text, `${name}: a reader of the old file still reads it whole`);
    closeSync(reader);
    if (name === 'startStep') {
      const open = statSync(path).ino;
      writer.addRecord(record(0));
      assert.equal(statSync(path).ino, open, 'a record is appended in place');
    }
  }
});

test('a full disk mid-run (file size limit): the file stays valid JSON with every request written before, no .tmp, the message names the file', async (t) => {
  const server = await startTokenServer({ keepRequests: false });
  t.after(() => server.close());
  const dir = tempDir();
  const outcome = await runCliLimited(
    ['run', '--url', server.baseUrl, '--model', TOKEN_SERVER_MODEL, '--concurrency', '32', '--requests', '2000', '--output-tokens', '8', '--input-tokens', '16', '--out', 'full.llmbench.json'],
    { ulimit: ['-f', '64'], cwd: dir, timeoutMs: 60_000 },
  );
  assert.equal(outcome.timedOut, false);
  assert.equal(outcome.code, 1, outcome.stderr);
  assert.match(outcome.stderr, /Cannot write the result file .*full\.llmbench\.json.*file size limit/);
  assert.deepEqual(readdirSync(dir), ['full.llmbench.json'], 'no temporary file is left');
  const text = readFileSync(join(dir, 'full.llmbench.json'), 'utf8');
  assert.ok(text.length <= 64 * 1024);
  const doc = parseFile(join(dir, 'full.llmbench.json'));
  const kept = doc.steps[0]?.requests.length ?? 0;
  assert.ok(kept > 10 && kept < 2000, `${kept} requests kept`);
});
