/**
 * A run's progress as words and fractions, from the live state: the live panel's headline and
 * bars, the status bar item and the progress notification all say the same thing.
 */
import type { LiveState } from '../format/messages/live';

export interface Progress {
  value: number;
  max: number;
}

export interface ProgressView {
  /** One line for the status region (announced to screen readers). */
  headline: string;
  overall: Progress | null;
  /** The running step's progress; null when it has no request or duration limit to measure by. */
  step: Progress | null;
  stepDetail: string;
  canCancel: boolean;
  canOpenResult: boolean;
  tone: 'running' | 'ok' | 'warning' | 'error';
}

export function runDescription(state: LiveState): string {
  return [state.run.model, state.run.baseUrl, state.run.profile].join(' · ');
}

const finishedSteps = (state: LiveState) => state.steps.filter((s) => s.summary !== null).length;

/** Fraction of the running step done, by requests when limited by count, else by time. */
function stepProgress(state: LiveState): Progress | null {
  const c = state.current;
  if (!c) return null;
  if (c.plannedRequests !== null) return { value: Math.min(c.completed + c.failed, c.plannedRequests), max: c.plannedRequests };
  if (c.plannedDurationSec !== null) return { value: Math.min(c.elapsedSec, c.plannedDurationSec), max: c.plannedDurationSec };
  return null;
}

export function progressView(state: LiveState): ProgressView {
  const done = finishedSteps(state);
  const total = Math.max(state.run.expectedSteps ?? 0, state.steps.length, 1);
  const step = stepProgress(state);
  const stepFraction = step ? step.value / step.max : 0;
  const running = state.steps.at(-1);
  const c = state.current;
  const stepDetail = c
    ? [
        `${c.completed}${c.plannedRequests !== null ? ` / ${c.plannedRequests}` : ''} requests done`,
        `${c.failed} failed`,
        `${c.inFlight} in flight`,
        `${c.elapsedSec.toFixed(1)}${c.plannedDurationSec !== null ? ` / ${c.plannedDurationSec}` : ''} s`,
      ].join(' · ')
    : '';
  if (state.phase === 'finished') {
    const failedSteps = state.status === 'failed';
    return {
      headline: `Finished (${state.status ?? 'unknown'}) after ${done} step${done === 1 ? '' : 's'} in ${state.elapsedSec.toFixed(1)} s${state.statusReason ? `: ${state.statusReason}` : ''}`,
      overall: { value: done, max: Math.max(done, 1) },
      step: null,
      stepDetail: '',
      canCancel: false,
      canOpenResult: state.run.resultPath !== null,
      tone: failedSteps ? 'error' : state.status === 'complete' ? 'ok' : 'warning',
    };
  }
  const where = running && running.summary === null ? `step ${state.steps.length} of ${total}: ${running.name}` : `${done} of ${total} steps done`;
  const verb = state.phase === 'cancelling' ? 'Cancelling' : state.phase === 'starting' ? 'Starting' : 'Running';
  return {
    headline: `${verb} ${where}`,
    overall: { value: Math.min(done + (running?.summary === null ? stepFraction : 0), total), max: total },
    step,
    stepDetail,
    canCancel: state.phase !== 'cancelling',
    canOpenResult: false,
    tone: 'running',
  };
}
