/**
 * A run's progress as words and fractions, from the live state: the live panel's headline and
 * bars, the status bar item and the progress notification all say the same thing.
 */
import type { LiveState } from '../format/messages/live';
import { stepLabel } from '../format/step-name';
import { formatDuration, formatElapsed, formatSeconds } from './number-format';

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
  /** Time left, for this step and the run, when it can be estimated: "about 40 s left in this step, 3 min 10 s in all". */
  eta: string;
  canCancel: boolean;
  canOpenResult: boolean;
  tone: 'running' | 'ok' | 'warning' | 'error';
}

export function runDescription(state: LiveState): string {
  return [state.run.model, state.run.baseUrl, state.run.profile].join(' · ');
}

const finishedSteps = (state: LiveState) => state.steps.filter((s) => s.summary !== null).length;

/**
 * Seconds left in the running step: requests remaining at the step's completion rate so far, or
 * its time limit, whichever ends it first; null before anything can be said.
 */
function stepSecondsLeft(state: LiveState): number | null {
  const c = state.current;
  if (!c) return null;
  const done = c.completed + c.failed;
  const byRequests = c.plannedRequests !== null && done > 0 && c.elapsedSec > 0 ? (c.elapsedSec * (c.plannedRequests - done)) / done : null;
  const byTime = c.plannedDurationSec !== null ? c.plannedDurationSec - c.elapsedSec : null;
  const candidates = [byRequests, byTime].filter((x): x is number => x !== null && Number.isFinite(x));
  return candidates.length ? Math.max(0, Math.min(...candidates)) : null;
}

/** Time left in this step and, when the run's step count is known, in the run (later steps as long as those done so far). */
function etaText(state: LiveState, total: number): string {
  const stepLeft = stepSecondsLeft(state);
  if (stepLeft === null || state.current === null) return '';
  const finished = state.steps.flatMap((step) => (step.summary?.durationSec ? [step.summary.durationSec] : []));
  const thisStep = state.current.elapsedSec + stepLeft;
  const perStep = finished.length ? finished.reduce((a, b) => a + b, 0) / finished.length : thisStep;
  const later = state.run.expectedSteps !== null ? Math.max(0, total - state.steps.length) : null;
  const inAll = later !== null && later > 0 ? `, about ${formatDuration(stepLeft + later * perStep)} in all` : '';
  return `about ${formatDuration(stepLeft)} left in this step${inAll}`;
}

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
        formatElapsed(c.elapsedSec, c.plannedDurationSec),
      ].join(' · ')
    : '';
  if (state.phase === 'finished') {
    const failedSteps = state.status === 'failed';
    return {
      headline: `Finished (${state.status ?? 'unknown'}) after ${done} step${done === 1 ? '' : 's'} in ${formatSeconds(state.elapsedSec)}${state.statusReason ? `: ${state.statusReason}` : ''}`,
      overall: { value: done, max: Math.max(done, 1) },
      step: null,
      stepDetail: '',
      eta: '',
      canCancel: false,
      canOpenResult: state.run.resultPath !== null,
      tone: failedSteps ? 'error' : state.status === 'complete' ? 'ok' : 'warning',
    };
  }
  const where = running && running.summary === null ? `step ${state.steps.length} of ${total}: ${stepLabel(running)}` : `${done} of ${total} steps done`;
  const verb = state.phase === 'cancelling' ? 'Cancelling' : state.phase === 'starting' ? 'Starting' : 'Running';
  // Between a step's start and its first progress report, the bar and line stay, at zero.
  const stepStarting = c === null && running !== undefined && running.summary === null && state.phase !== 'starting';
  return {
    headline: `${verb} ${where}`,
    overall: { value: Math.min(done + (running?.summary === null ? stepFraction : 0), total), max: total },
    step: stepStarting ? { value: 0, max: 1 } : step,
    stepDetail: stepStarting ? `${stepLabel(running)}: sending the first requests` : stepDetail,
    eta: etaText(state, total),
    canCancel: state.phase !== 'cancelling',
    canOpenResult: false,
    tone: 'running',
  };
}

/** A reason as the end of a sentence: reasons from the engine often carry their own full stop. */
export const endSentence = (text: string): string => (/[.!?…]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** What the notification at a run's end says, or null when a complete run needs no words. */
export function runEndMessage(status: string, reason: string | null | undefined, requestsMeasured: number): string | null {
  if (status === 'partial') {
    return `LLM Bench: the run stopped early: ${endSentence(reason ?? 'cancelled')} The result keeps the ${requestsMeasured} requests measured.`;
  }
  if (status === 'failed') return `LLM Bench: the run failed: ${endSentence(reason ?? 'see the log')}`;
  return null;
}

/** The progress notification's line: what runs, how far the step is, and the time left. */
export function notificationText(view: ProgressView): string {
  return [view.headline, view.stepDetail, view.eta].filter(Boolean).join(' \u00b7 ');
}

/** The status bar item: percent done, the live output rate and the time left, kept short ("LLM Bench 40% · 812 tok/s · 35 s left"). */
export function statusBarText(state: LiveState, view: ProgressView = progressView(state)): string {
  const throughput = state.current ? ` \u00b7 ${Math.round(state.current.outputTokensPerSecond)} tok/s` : '';
  const percent = view.overall ? ` ${Math.round((100 * view.overall.value) / view.overall.max)}%` : '';
  const left = view.eta ? ` \u00b7 ${view.eta.replace(/^about /, '').replace(/ left in this step.*$/, ' left')}` : '';
  return `LLM Bench${percent}${throughput}${left}`;
}

/** Where the result file is being written, then where it was written once the run is over. */
export function resultPathText(state: LiveState): string {
  if (!state.run.resultPath) return '';
  return `${state.phase === 'finished' ? 'Saved to' : 'Saving to'} ${state.run.resultPath}`;
}
