/**
 * The states the live panels show, built from the events as the host builds them: a sweep with a
 * step done and the next one running, and a tune with a trial done and the next one launching. The
 * panels' DOM tests and their Chinese tests (l10n-live.test.ts) share them.
 */
import type { LiveState } from '../../src/format/messages/live';
import { applyRunEvent, newLiveState } from '../../src/host/live-state';
import { applyTuneEvent, newTuneLiveState } from '../../src/views/tune-live';
import { makeStep } from './result-documents';
import { issueTuneConfig, makeTrial } from './tune-documents';

/** A sweep of concurrency 1 and 4 on `model`: the first step done, the second started. */
export function sweepLiveState(model = 'Qwen/Qwen2-7B-Instruct'): LiveState {
  const state = newLiveState({
    id: 'run-7',
    model,
    baseUrl: 'http://127.0.0.1:8000/v1',
    profile: 'concurrency 1,4',
    startedAt: '2025-01-01T00:00:00.000Z',
    labels: [['hardware', '1x A100 <80GB>']],
    expectedSteps: 2,
    resultPath: '/w/benchmarks/r.llmbench.json',
  });
  const step = makeStep({ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 30, ttftMs: 40, gapMs: 8, chunks: 16 });
  applyRunEvent(state, { type: 'run-start', plannedSteps: [], stepCount: 2, resultPath: null }, 0);
  applyRunEvent(state, { type: 'step-start', stepIndex: 0, name: step.name, profile: step.profile }, 0);
  applyRunEvent(state, { type: 'step-end', stepIndex: 0, name: step.name, summary: step.summary! }, 3);
  applyRunEvent(state, { type: 'step-start', stepIndex: 1, name: 'concurrency@4', profile: { kind: 'concurrency', concurrency: 4 } }, 3);
  return state;
}

/** The tune of issue 12: trial 1 done (the best so far), trial 2 launching its server, one line of its log. */
export function tuneLiveStateLaunching() {
  const state = newTuneLiveState({ id: 't1', outPath: '/w/benchmarks/sim.llmtune.json', configPath: '/w/sim.llmtune-config.json', startedAt: '2026-11-25T08:00:00.000Z' }, issueTuneConfig());
  const first = makeTrial(1, { seqs: 16, batched: 2048, chunked: false, objective: 900, ttftP99: 800 });
  applyTuneEvent(state, { type: 'trial-start', trial: 1, params: first.params, command: first.command, port: 41001, logFile: null });
  applyTuneEvent(state, { type: 'trial-end', trial: first, best: { trial: 1, params: first.params, objective: 900, command: first.command } });
  const second = makeTrial(2, { seqs: 64, batched: 4096, chunked: true });
  applyTuneEvent(state, { type: 'trial-start', trial: 2, params: second.params, command: second.command, port: 41002, logFile: null });
  applyTuneEvent(state, { type: 'server-log', trial: 2, stream: 'stderr', line: 'INFO:     Application startup complete.' });
  return { state, first, second };
}
