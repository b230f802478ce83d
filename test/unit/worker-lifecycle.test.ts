// One lifecycle for the worker threads we start (src/processes/worker-thread.ts), the simulator's
// and the benchmark engine's alike: a message outside the protocol, an error or an exit nobody
// asked for is a crash that says why, and closing has a deadline after which the thread is ended.
// The threads here are the real bundles (dist/sim-worker.js, dist/engine-worker.js), each wrapped
// by a few lines that make it misbehave in one way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/format/config';
import { parseResultDocument } from '../../src/format/result';
import { runBenchmarkInWorker } from '../../src/load/worker-host';
import { startSimServer } from '../../src/sim/index';
import * as z from 'zod';
import { startWorkerThread } from '../../src/processes/worker-thread';
import { repoRoot } from '../helpers/limited-child';
import { startRunnerServer } from '../helpers/runner-server';

const simWorker = join(repoRoot, 'dist', 'sim-worker.js');
const engineWorker = join(repoRoot, 'dist', 'engine-worker.js');

/** A worker script: `prelude`, then the real bundle. */
function wrapped(bundle: string, prelude: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'llmbench-lifecycle-')), 'worker.js');
  writeFileSync(path, `const { parentPort } = require('node:worker_threads');\n${prelude}\nrequire(${JSON.stringify(bundle)});\n`);
  return path;
}

/** The promise's outcome, or a rejection saying it had not settled within `ms` (the old simulator host waited for ever). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} had not settled after ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Makes the thread's messages of `type` pass through `change` (which may drop them, returning undefined). */
const rewriteReplies = (change: string): string => `
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (message) => { const changed = (${change})(message); if (changed !== undefined) post(changed); };`;

/** Makes the thread deaf to commands that `drop` picks. */
const dropCommands = (drop: string): string => `
const on = parentPort.on.bind(parentPort);
parentPort.on = (event, listener) => on(event, event === 'message' ? (command) => { if (!(${drop})(command)) listener(command); } : listener);`;

test('a thread that throws after posting: every message it posted arrives before its crash is reported, with the error as the reason', async () => {
  const script = join(mkdtempSync(join(tmpdir(), 'llmbench-lifecycle-')), 'worker.js');
  writeFileSync(script, `const { parentPort } = require('node:worker_threads');\nfor (let n = 0; n < 200; n++) parentPort.postMessage({ n });\nthrow new Error('thrown after 200 messages');\n`);
  for (let round = 0; round < 5; round++) {
    const received: number[] = [];
    const crashed = new Promise<{ reason: string; before: number }>((resolve) => {
      startWorkerThread<never, { n: number }>({ script, replies: z.object({ n: z.number() }), onReply: (m) => received.push(m.n), onCrash: (reason) => resolve({ reason, before: received.length }) });
    });
    const { reason, before } = await within(crashed, 10_000, 'the crash');
    assert.equal(reason, 'thrown after 200 messages');
    assert.equal(before, 200, `round ${round}: the messages posted before the error (a lost worker's last records) all arrived first`);
  }
});

test('the simulator: a thread that answers outside the protocol fails the start with the reason, instead of being ignored', async () => {
  const script = wrapped(simWorker, rewriteReplies(`(m) => (m.type === 'ready' ? { type: 'ready', port: 'not a port' } : m)`));
  await assert.rejects(within(startSimServer({ preset: 'tiny', inWorker: true, workerScript: script }), 10_000, 'the start'), /does not fit the protocol/);
});

test('the simulator: closing a thread that does not end by itself ends it at the deadline, and its port closes', async () => {
  const script = wrapped(simWorker, dropCommands(`(c) => c.type === 'close'`));
  const sim = await startSimServer({ preset: 'tiny', inWorker: true, workerScript: script });
  assert.equal((await fetch(`${sim.baseUrl}/models`)).status, 200);
  const started = performance.now();
  await within(sim.close(), 15_000, 'close');
  assert.ok(performance.now() - started < 12_000, `close took ${Math.round(performance.now() - started)} ms`);
  await assert.rejects(fetch(`${sim.baseUrl}/models`), 'the thread and its server are gone');
});

test('the simulator: a thread that dies after it started fails the calls waiting on it, instead of leaving them pending', async () => {
  const script = wrapped(simWorker, dropCommands(`(c) => c.type === 'trace' && process.exit(3)`));
  const sim = await startSimServer({ preset: 'tiny', inWorker: true, workerScript: script });
  await assert.rejects(within(sim.trace(), 10_000, 'trace'), /exited with code 3/);
  await assert.rejects(within(sim.trace(), 10_000, 'a later trace'), /exited with code 3/);
  await within(sim.close(), 10_000, 'close of a dead thread');
});

test('the engine: a thread that answers outside the protocol mid-run is a crash: the run rejects with the reason and the file keeps its requests', async (t) => {
  const server = await startRunnerServer(() => ({ tokens: 2, firstTokenMs: 5 }));
  t.after(() => server.close());
  const script = wrapped(
    engineWorker,
    rewriteReplies(`(m) => (m.type === 'event' && m.event.type === 'progress' && m.event.snapshot.completed >= 3 ? { type: 'event', event: { type: 'no such event' } } : m)`),
  );
  const path = join(mkdtempSync(join(tmpdir(), 'llmbench-lifecycle-')), 'bad-message.llmbench.json');
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
    profile: { kind: 'concurrency', levels: [2] },
    limits: { requests: 1000 },
  });
  await assert.rejects(within(runBenchmarkInWorker(config, { workerScript: script, resultPath: path }), 30_000, 'the run'), /stopped unexpectedly: it sent a message that does not fit the protocol/);
  const parsed = parseResultDocument(readFileSync(path, 'utf8'));
  assert.ok(parsed.ok);
  assert.equal(parsed.value.status, 'partial');
  assert.ok((parsed.value.steps[0]?.requests.length ?? 0) >= 3);
});
