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

test('a step its duration cut: the note names the duration, not the requests per step, whether the step cancelled its last requests or drained them', async () => {
  // Lane i's requests take about (i + 1) x 0.3 s: the slow lanes' requests are still in flight when the 1.2 s duration ends the step.
  const answer = (index: number): Answer => ({ tokens: 4, gapMs: ((index % 8) + 1) * 75 });
  const input = (drainSec: number) => ({
    workload: { kind: 'synthetic' as const, inputTokens: 8, outputTokens: 4 },
    profile: { kind: 'concurrency' as const, levels: [8] },
    limits: { requests: 64, durationSec: 1.2, drainSec },
  });
  // No drain: the requests in flight at the duration are cancelled, and the note says so.
  const [cancelled, ...more] = await notesOf(answer, input(0));
  console.log(cancelled);
  assert.deepEqual(more, []);
  assert.match(cancelled ?? '', /^Step "concurrency@8" averaged [\d.]+ requests in flight, not 8: its duration of 1\.2 s ended it, cancelling the \d+ requests then in flight \(left out of its figures\).*Lengthen the duration \(--duration\)/);
  assert.ok(!(cancelled ?? '').includes('Raise the requests per step'), cancelled);
  // The default drain lets them finish: the duration is still named as the cause.
  const [drained, ...others] = await notesOf(answer, input(5));
  console.log(drained);
  assert.deepEqual(others, []);
  assert.match(drained ?? '', /^Step "concurrency@8" averaged [\d.]+ requests in flight, not 8: its duration of 1\.2 s ended it.*Lengthen the duration \(--duration\)/);
  assert.ok(!(drained ?? '').includes('Raise the requests per step'), drained);
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
