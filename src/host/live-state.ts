/**
 * The live panel's state, built from the engine's run events on the host. The host keeps the one
 * current state (a hidden webview receives nothing, so the panel is sent the whole state when it
 * can show it). The state is updated in place, since events arrive many times per second, and
 * its time series are bounded: at MAX_SERIES_POINTS, neighbouring points are merged pairwise, so a
 * long run keeps its whole shape at an even, coarser resolution.
 */
import type { ProfileConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import type { LiveSeries, LiveState } from '../format/messages/live';
import type { ResultDocument } from '../format/result';

export const MAX_SERIES_POINTS = 1500;
const MAX_LOGS = 30;

export function newLiveState(run: LiveState['run']): LiveState {
  return {
    run,
    phase: 'starting',
    status: null,
    statusReason: null,
    elapsedSec: 0,
    steps: [],
    current: null,
    series: { t: [], requestsPerSecond: [], outputTokensPerSecond: [], inFlight: [], failed: [], stride: 1, lastCount: 0 },
    errors: {},
    logs: [],
  };
}

/** Steps a profile runs, when its config says (a sweep: synchronous, throughput, then its rates), times its repeats. */
export function expectedStepCount(profile: ProfileConfig, repeats = 1): number | null {
  const once = stepsOnce(profile);
  return once === null ? null : once * repeats;
}

function stepsOnce(profile: ProfileConfig): number | null {
  switch (profile.kind) {
    case 'synchronous':
    case 'throughput':
    case 'schedule':
      return 1;
    case 'concurrency':
      return profile.levels.length;
    case 'rate':
      return profile.rates?.length ?? 1;
    case 'sweep':
      return 2 + profile.rateCount;
  }
}

/** Applies one event, stamped `atSec` seconds after the run started. */
export function applyRunEvent(state: LiveState, event: RunEvent, atSec: number): void {
  state.elapsedSec = Math.max(state.elapsedSec, atSec);
  switch (event.type) {
    case 'run-start':
      state.phase = state.phase === 'cancelling' ? 'cancelling' : 'running';
      state.run.resultPath = event.resultPath ?? state.run.resultPath;
      return;
    case 'step-start':
      // Indexes come in order; a step never leaves a hole, which would not survive JSON.
      state.steps.splice(Math.min(event.stepIndex, state.steps.length), 1, { name: event.name, profile: event.profile, startedAtSec: atSec, summary: null });
      state.current = null;
      return;
    case 'progress': {
      state.current = event.snapshot;
      const failedBefore = state.steps
        .slice(0, event.snapshot.stepIndex)
        .reduce((sum, step) => sum + (step.summary?.requests.failed ?? 0), 0);
      appendSample(state.series, {
        t: atSec,
        requestsPerSecond: event.snapshot.requestsPerSecond,
        outputTokensPerSecond: event.snapshot.outputTokensPerSecond,
        inFlight: event.snapshot.inFlight,
        failed: failedBefore + event.snapshot.failed,
      });
      return;
    }
    case 'step-end': {
      const step = state.steps[event.stepIndex];
      if (step) step.summary = event.summary;
      for (const [kind, count] of Object.entries(event.summary.errors)) state.errors[kind] = (state.errors[kind] ?? 0) + count;
      if (state.current?.stepIndex === event.stepIndex) state.current = null;
      return;
    }
    case 'log':
      state.logs.push({ level: event.level, message: event.message });
      if (state.logs.length > MAX_LOGS) state.logs.splice(0, state.logs.length - MAX_LOGS);
      return;
    case 'run-end':
      state.phase = 'finished';
      state.status = event.status;
      state.statusReason = event.reason;
      state.run.resultPath = event.resultPath ?? state.run.resultPath;
      state.current = null;
      return;
  }
}

/**
 * The state of a run whose extension host went away while it ran (a window reload): finished as
 * its result file now says, each step summarized from the requests the file kept (which may be
 * more than the state last showed). A partial run says `reason`: the old host may have finished
 * the file itself as it shut down, calling that a cancel, which the user did not ask for. Without a
 * readable file, the state as it was, marked partial.
 */
export function interruptedState(state: LiveState, file: ResultDocument | null, reason: string): LiveState {
  const finished = { ...state, phase: 'finished' as const, current: null };
  if (!file) return { ...finished, status: 'partial', statusReason: reason };
  const steps = file.steps.map((step, index) => ({
    name: step.name,
    profile: step.profile,
    startedAtSec: state.steps[index]?.startedAtSec ?? state.elapsedSec,
    summary: step.summary,
  }));
  const status = file.status === 'running' ? 'partial' : file.status;
  return { ...finished, steps, status, statusReason: status === 'partial' ? reason : (file.statusReason ?? null) };
}

type SeriesKey = 't' | 'requestsPerSecond' | 'outputTokensPerSecond' | 'inFlight' | 'failed';
type Sample = Record<SeriesKey, number>;
const AVERAGED: SeriesKey[] = ['t', 'requestsPerSecond', 'outputTokensPerSecond', 'inFlight'];

/**
 * Adds a progress sample. Every point holds `stride` samples (times, rates and in-flight averaged;
 * the cumulative failure count the latest), so the resolution is the same over the whole run.
 */
function appendSample(series: LiveSeries, sample: Sample): void {
  const last = series.t.length - 1;
  if (last >= 0 && series.lastCount < series.stride) {
    const n = series.lastCount;
    for (const key of AVERAGED) series[key][last] = ((series[key][last] ?? 0) * n + sample[key]) / (n + 1);
    series.failed[last] = sample.failed;
    series.lastCount = n + 1;
    return;
  }
  if (series.t.length === MAX_SERIES_POINTS) halveResolution(series);
  for (const key of [...AVERAGED, 'failed' as const]) series[key].push(sample[key]);
  series.lastCount = 1;
}

/** Merges each pair of (complete) points into one, doubling the stride. */
function halveResolution(series: LiveSeries): void {
  for (const key of AVERAGED) series[key] = pairwise(series[key], (a, b) => (a + b) / 2);
  series.failed = pairwise(series.failed, (_, b) => b);
  series.stride *= 2;
}

function pairwise(values: number[], merge: (a: number, b: number) => number): number[] {
  const merged: number[] = [];
  for (let i = 0; i + 1 < values.length; i += 2) merged.push(merge(values[i] ?? 0, values[i + 1] ?? 0));
  return merged;
}
