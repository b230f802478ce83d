// A concurrency step that did not reach its level is told why, in the run's own terms (issue 21,
// item 6): when its duration cut it, the duration; when its sessions held their slots through
// their think time, the think time; "raise the requests per step" only when too few requests were
// the cause. Runs against a loopback server, read by the result view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import { ResultDocumentSchema } from '../../src/format/result';
import { runBenchmark } from '../../src/load/runner';
import { buildResultView } from '../../src/views/result';
import { startRunnerServer, type Answer } from '../helpers/runner-server';

async function notesOf(answer: (index: number) => Answer, input: Omit<RunConfigInput, 'endpoint'>): Promise<string[]> {
  const server = await startRunnerServer(answer);
  try {
    const doc = ResultDocumentSchema.parse(await runBenchmark(RunConfigSchema.parse({ endpoint: { baseUrl: server.baseUrl, model: 'm' }, serverMetrics: { url: 'off' }, ...input }), {}));
    return buildResultView({ document: doc, unfinishedSteps: [] }, 'run.llmbench.json').notes.filter((n) => n.includes('requests in flight, not'));
  } finally {
    await server.close();
  }
}

test('a step its duration cut: the note names the duration, not the requests per step', async () => {
  // Lane i's requests take about (i + 1) x 0.3 s: the slow lanes' requests are still in flight when the 1.2 s duration ends them.
  const [note, ...more] = await notesOf((index) => ({ tokens: 4, gapMs: ((index % 8) + 1) * 75 }), {
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
    profile: { kind: 'concurrency', levels: [8] },
    limits: { requests: 64, durationSec: 1.2 },
  });
  console.log(note);
  assert.deepEqual(more, []);
  assert.match(note ?? '', /^Step "concurrency@8" averaged [\d.]+ requests in flight, not 8: its duration of 1\.2 s ended it, cancelling the \d+ requests then in flight \(left out of its figures\).*Lengthen the duration \(--duration\)/);
  assert.ok(!(note ?? '').includes('Raise the requests per step'), note);
});

test('sessions that think between turns: the note names the think time and the concurrency unit', async () => {
  const [note, ...more] = await notesOf(() => ({ tokens: 2 }), {
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 2 },
    sessions: { turns: 4, thinkTimeMs: 200 },
    profile: { kind: 'concurrency', levels: [4] },
    limits: { requests: 16 },
  });
  console.log(note);
  assert.deepEqual(more, []);
  assert.match(note ?? '', /not 4: its 4 sessions kept their slots through the think time of 200 ms between turns.*--concurrency-unit requests keeps 4 requests in flight instead/);
  assert.ok(!(note ?? '').includes('Raise the requests per step'), note);
});
