/**
 * The live panel's state, built from the engine's run events on the host. The host keeps the one
 * current state (a hidden webview receives nothing, so the panel is sent the whole state when it
 * can show it). The state is updated in place, since events arrive many times per second, and
 * its time series are bounded: beyond MAX_SERIES_POINTS, neighbouring samples are merged pairwise,
 * so a long run keeps its whole shape at a coarser resolution.
 */
import type { ProfileConfig } from '../format/config';
import type { RunEvent } from '../format/events';
import type { LiveSeries, LiveState } from '../format/messages/live';

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
    series: { t: [], requestsPerSecond: [], outputTokensPerSecond: [], inFlight: [], failed: [] },
    errors: {},
    logs: [],
  };
}

/** Steps a profile runs, when its config says (a sweep: synchronous, throughput, then its rates). */
export function expectedStepCount(profile: ProfileConfig): number | null {
  switch (profile.kind) {
    case 'synchronous':
    case 'throughput':
    case 'schedule':
      return 1;
    case 'concurrency':
      return profile.levels.length;
    case 'rate':
      return profile.rates.length;
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

type Sample = { [K in keyof LiveSeries]: number };

function appendSample(series: LiveSeries, sample: Sample): void {
  for (const key of Object.keys(series) as Array<keyof LiveSeries>) series[key].push(sample[key]);
  if (series.t.length > MAX_SERIES_POINTS) halveResolution(series);
}

/** Merges each pair of neighbouring samples: rates and in-flight are averaged, times and the cumulative failure count take the later value. */
function halveResolution(series: LiveSeries): void {
  const mean = (values: number[], i: number) => ((values[i] ?? 0) + (values[i + 1] ?? values[i] ?? 0)) / 2;
  const later = (values: number[], i: number) => values[i + 1] ?? values[i] ?? 0;
  const merged: LiveSeries = { t: [], requestsPerSecond: [], outputTokensPerSecond: [], inFlight: [], failed: [] };
  for (let i = 0; i < series.t.length; i += 2) {
    merged.t.push(later(series.t, i));
    merged.requestsPerSecond.push(mean(series.requestsPerSecond, i));
    merged.outputTokensPerSecond.push(mean(series.outputTokensPerSecond, i));
    merged.inFlight.push(mean(series.inFlight, i));
    merged.failed.push(later(series.failed, i));
  }
  Object.assign(series, merged);
}
