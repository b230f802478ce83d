// A live panel restored after a window reload shows a run whose extension host is gone: the
// state becomes finished as the result file says, with every step summarized from the file, and
// no step of it reads as still running.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asFinished } from '../../src/results/writer';
import { LiveStateSchema } from '../../src/format/messages/live';
import { applyRunEvent, interruptedState, newLiveState } from '../../src/host/live-state';
import { tableRows } from '../../src/views/live';
import { makeDocument } from '../helpers/result-documents';

const REASON = 'VS Code reloaded while this run was going';

/** The panel's last state before the reload: step 1 done, step 2 (concurrency 4) running. */
function stateAtReload() {
  const state = newLiveState({
    id: 'run-1', model: 'test-model', baseUrl: 'http://127.0.0.1:8000/v1', profile: 'concurrency 1,4',
    startedAt: '2025-01-01T00:00:00.000Z', labels: [], expectedSteps: 2, resultPath: '/tmp/run.llmbench.json',
  });
  const file = makeDocument([
    { name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 20, ttftMs: 30, gapMs: 5, chunks: 8 },
    { name: 'concurrency@4', profile: { kind: 'concurrency', concurrency: 4 }, requests: 12, ttftMs: 60, gapMs: 5, chunks: 8, partial: true },
  ]);
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 } }, 0);
  applyRunEvent(state, { type: 'step-end', stepIndex: 0, name: 'concurrency@1', summary: file.steps[0]!.summary! }, 2);
  applyRunEvent(state, { type: 'step-start', stepIndex: 1, name: 'concurrency@4', profile: { kind: 'concurrency', concurrency: 4 } }, 2);
  return { state, file };
}

test('a run stopped by a reload shows the steps as its finished result file summarizes them', () => {
  const { state, file } = stateAtReload();
  const finishedFile = asFinished({ ...file, status: 'running', statusReason: null }, REASON);
  const restored = interruptedState(state, finishedFile, REASON);
  assert.equal(restored.phase, 'finished');
  assert.equal(restored.status, 'partial');
  assert.equal(restored.statusReason, REASON);
  assert.equal(restored.current, null);
  assert.deepEqual(restored.steps.map((s) => [s.name, s.startedAtSec, s.summary?.requests.completed]), [['concurrency@1', 0, 20], ['concurrency@4', 2, 12]]);
  assert.ok(tableRows(restored).every((row) => !row.join(' ').includes('running')));
  assert.ok(LiveStateSchema.safeParse(restored).success);
  assert.equal(state.phase, 'starting', 'the state it came from is left as it was');
});

test('a file the old extension host finished as cancelled on its way out still reads as stopped by the reload', () => {
  const { state, file } = stateAtReload();
  const cancelledOnShutdown = asFinished({ ...file, status: 'partial', statusReason: 'Cancelled before the run finished' });
  const restored = interruptedState(state, cancelledOnShutdown, REASON);
  assert.equal(restored.status, 'partial');
  assert.equal(restored.statusReason, REASON);
  const completed = interruptedState(state, { ...cancelledOnShutdown, status: 'complete', statusReason: null }, REASON);
  assert.deepEqual([completed.status, completed.statusReason], ['complete', null]);
});

test('without a readable result file the last state shows, finished as partial, its unfinished step stopped', () => {
  const { state } = stateAtReload();
  const restored = interruptedState(state, null, REASON);
  assert.equal(restored.status, 'partial');
  assert.equal(restored.statusReason, REASON);
  const rows = tableRows(restored);
  assert.equal(rows[0]?.[0], 'concurrency@1');
  assert.deepEqual(rows[1]?.slice(0, 2), ['concurrency@4 (stopped)', '–']);
});
