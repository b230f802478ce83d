/**
 * A run's progress as words and fractions, from the live state: the live panel's headline and
 * bars, the status bar item and the progress notification all say the same thing.
 */
import type { LiveState } from '../format/messages/live';
import type { PlannedStep } from '../format/events';
import type { StepProfile } from '../format/result';
import { sweepRates } from '../format/config';
import { stepLabel } from '../format/step-name';
import { formatDuration, formatElapsed, formatSeconds } from './number-format';
import { english, statusWord, type Translate } from './l10n';
import { sayWarning } from './step-warnings';

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
  /** The time left at its shortest, for the status bar: "35 s left"; empty when `eta` is. */
  left: string;
  canCancel: boolean;
  canOpenResult: boolean;
  tone: 'running' | 'ok' | 'warning' | 'error';
}

export function runDescription(state: LiveState): string {
  return [state.run.model, state.run.baseUrl, state.run.profile].join(' · ');
}

const finishedSteps = (state: LiveState) => state.steps.filter((s) => s.summary !== null).length;

/**
 * Seconds left in the running step: measured requests remaining at the step's completion rate so
 * far, or its time limit, whichever ends it first; null before anything can be said.
 */
function stepSecondsLeft(state: LiveState): number | null {
  const c = state.current;
  if (!c) return null;
  // Warm-up requests took part of the time so far: counted with the rest here.
  const done = c.completed + c.failed + (c.warmup?.ended ?? 0);
  const planned = c.plannedRequests === null ? null : c.plannedRequests + (c.warmup?.planned ?? 0);
  const byRequests = planned !== null && done > 0 && c.elapsedSec > 0 ? (c.elapsedSec * (planned - done)) / done : null;
  const byTime = c.plannedDurationSec !== null ? c.plannedDurationSec - c.elapsedSec : null;
  const candidates = [byRequests, byTime].filter((x): x is number => x !== null && Number.isFinite(x));
  return candidates.length ? Math.max(0, Math.min(...candidates)) : null;
}

/** Requests in flight a closed-loop step holds (its concurrency, or all its requests when fewer); null for open-loop steps. */
function closedLoopSlots(profile: StepProfile, sends: number): number | null {
  if (profile.kind === 'synchronous') return 1;
  if (profile.kind === 'concurrency' || profile.kind === 'throughput') return Math.min(profile.concurrency ?? sends, sends);
  return null;
}

/**
 * Requests each slot completes per second, as measured so far: by the finished step whose load is
 * nearest below `slots` (a request takes longer under more load, so the nearest measured load says
 * most), else by the running step's own progress.
 */
function perSlotRate(state: LiveState, slots: number): number | null {
  const measured = state.steps.flatMap((step) => {
    const s = step.summary;
    const load = s?.achievedConcurrency ?? null;
    return s && s.requestsPerSecond && load && load > 0 ? [{ load, rate: s.requestsPerSecond / load }] : [];
  });
  const below = measured.filter((m) => m.load <= slots * 1.05).sort((a, b) => b.load - a.load)[0];
  const nearest = below ?? measured.sort((a, b) => a.load - b.load)[0];
  if (nearest) return nearest.rate;
  const c = state.current;
  const running = state.steps[c?.stepIndex ?? -1];
  const ended = (c?.completed ?? 0) + (c?.failed ?? 0) + (c?.warmup?.ended ?? 0);
  if (!c || !running || c.elapsedSec <= 0 || ended === 0) return null;
  const runningSlots = closedLoopSlots(running.profile, Math.max((c.plannedRequests ?? Infinity) + (c.warmup?.planned ?? 0), 1)) ?? Math.max(c.inFlight, 1);
  return ended / c.elapsedSec / runningSlots;
}

/** The measured request rates of a sweep's synchronous and throughput steps, which place its rate steps. */
function sweepEnds(state: LiveState): [number, number] | null {
  const [synchronous, throughput] = state.steps;
  const a = synchronous?.summary?.requestsPerSecond;
  const b = throughput?.summary?.requestsPerSecond;
  return a && b ? [a, b] : null;
}

/**
 * Seconds a step not yet started will take, from its plan and what the run measured so far: the
 * same step of an earlier repeat as it took; an open-loop step its requests at its rate; a
 * closed-loop step its requests at its slots times the rate per slot measured nearest its load;
 * never past its duration limit. Null when nothing can be said yet.
 */
function plannedStepSeconds(state: LiveState, step: PlannedStep | { sweepRate: number; of: number; requests: number | null; warmup: number; durationSec: number | null }): number | null {
  const limit = step.durationSec ?? null;
  const sends = step.requests === null || step.requests === undefined ? null : step.requests + (step.warmup ?? 0);
  const capped = (seconds: number | null) => (seconds === null ? limit : limit === null ? seconds : Math.min(seconds, limit));
  if (sends === null) return limit;
  if ('sweepRate' in step) {
    const ends = sweepEnds(state);
    if (!ends) return limit;
    const rate = sweepRates(ends[0], ends[1], step.of)[step.sweepRate] ?? ends[1];
    return capped(sends / rate);
  }
  const before = state.steps.find((done) => done.name === step.name && done.summary?.durationSec && done.summary.requests.total > 0);
  if (before?.summary?.durationSec) return capped((before.summary.durationSec * sends) / before.summary.requests.total);
  const profile = step.profile;
  if (profile.kind === 'rate' && profile.ramp) return capped(profile.ramp.targetRates.at(-1)?.atSec ?? null);
  if (profile.kind === 'rate' && profile.rate) return capped(sends / profile.rate);
  const slots = closedLoopSlots(profile, sends);
  const rate = slots === null ? null : perSlotRate(state, slots);
  // A closed loop runs in waves: 17 sends on 16 slots take two rounds, not 17/16 of one.
  return capped(slots === null || rate === null ? null : Math.ceil(sends / slots) / rate);
}

/**
 * Seconds left in the run after the running step: each step still to come, estimated by
 * `plannedStepSeconds`, and the pauses between repeats; null when the plan is unknown or a step
 * cannot be estimated yet.
 */
function laterSecondsLeft(state: LiveState, total: number): number | null {
  const plan = state.run.plan;
  if (plan.length === 0 || state.run.expectedSteps === null) return null;
  const repeats = state.run.repeat?.count ?? 1;
  const perRepeat = Math.max(Math.round(state.run.expectedSteps / repeats), plan.length);
  const sweepSteps = perRepeat - plan.length;
  let seconds = 0;
  for (let index = state.steps.length; index < total; index++) {
    const position = index % perRepeat;
    if (position === 0 && index > 0) seconds += state.run.repeat?.pauseSec ?? 0;
    const planned = plan[position];
    const template = plan[0];
    const step = planned ?? (template ? { sweepRate: position - plan.length, of: sweepSteps, requests: template.requests ?? null, warmup: template.warmup ?? 0, durationSec: template.durationSec ?? null } : null);
    const estimate = step ? plannedStepSeconds(state, step) : null;
    if (estimate === null) return null;
    seconds += estimate;
  }
  return seconds;
}

/**
 * Time left in this step and, when the plan allows an estimate, in the run: "about 40 s left in this
 * step, about 3 min 10 s in all"; and the step's alone for the status bar ("40 s left").
 */
function etaText(state: LiveState, total: number, t: Translate): { eta: string; left: string } {
  const stepLeft = stepSecondsLeft(state);
  if (stepLeft === null || state.current === null) return { eta: '', left: '' };
  const later = laterSecondsLeft(state, total);
  const step = formatDuration(stepLeft, t);
  const eta = later !== null && later > 0 ? t('about {0} left in this step, about {1} in all', step, formatDuration(stepLeft + later, t)) : t('about {0} left in this step', step);
  return { eta, left: t('{0} left', step) };
}

/** Fraction of the running step done, by requests when limited by count, else by time. */
function stepProgress(state: LiveState): Progress | null {
  const c = state.current;
  if (!c) return null;
  if (c.plannedRequests !== null) return { value: Math.min(c.completed + c.failed, c.plannedRequests), max: c.plannedRequests };
  if (c.plannedDurationSec !== null) return { value: Math.min(c.elapsedSec, c.plannedDurationSec), max: c.plannedDurationSec };
  return null;
}

export function progressView(state: LiveState, t: Translate = english): ProgressView {
  const done = finishedSteps(state);
  const total = Math.max(state.run.expectedSteps ?? 0, state.steps.length, 1);
  const step = stepProgress(state);
  const stepFraction = step ? step.value / step.max : 0;
  const running = state.steps.at(-1);
  const c = state.current;
  // The counts are the measured requests the step's table will show; the warm-up is said while it lasts.
  const warmingUp = c?.warmup && c.warmup.ended < c.warmup.planned ? t('warming up ({0} of {1})', c.warmup.ended, c.warmup.planned) : null;
  const stepDetail = c
    ? [
        ...(warmingUp ? [warmingUp] : []),
        t('{0} requests done', `${c.completed}${c.plannedRequests !== null ? ` / ${c.plannedRequests}` : ''}`),
        t('{0} failed', c.failed),
        t('{0} in flight', c.inFlight),
        formatElapsed(c.elapsedSec, c.plannedDurationSec, t),
      ].join(' · ')
    : '';
  if (state.phase === 'finished') {
    const failedSteps = state.status === 'failed';
    return {
      headline: `${done === 1 ? t('Finished ({0}) after 1 step in {1}', statusWord(state.status, t), formatSeconds(state.elapsedSec, 1, t)) : t('Finished ({0}) after {1} steps in {2}', statusWord(state.status, t), done, formatSeconds(state.elapsedSec, 1, t))}${state.statusReason ? `: ${sayWarning(state.statusReason, t)}` : ''}`,
      overall: { value: done, max: Math.max(done, 1) },
      step: null,
      stepDetail: '',
      eta: '',
      left: '',
      canCancel: false,
      canOpenResult: state.run.resultPath !== null,
      tone: failedSteps ? 'error' : state.status === 'complete' ? 'ok' : 'warning',
    };
  }
  const inStep = running !== undefined && running.summary === null;
  const headline =
    state.phase === 'cancelling'
      ? inStep ? t('Cancelling step {0} of {1}: {2}', state.steps.length, total, stepLabel(running)) : t('Cancelling: {0} of {1} steps done', done, total)
      : state.phase === 'starting'
        ? inStep ? t('Starting step {0} of {1}: {2}', state.steps.length, total, stepLabel(running)) : t('Starting: {0} of {1} steps done', done, total)
        : inStep ? t('Running step {0} of {1}: {2}', state.steps.length, total, stepLabel(running)) : t('Running: {0} of {1} steps done', done, total);
  // Between a step's start and its first progress report, the bar and line stay, at zero.
  const stepStarting = c === null && running !== undefined && running.summary === null && state.phase !== 'starting';
  return {
    headline,
    overall: { value: Math.min(done + (running?.summary === null ? stepFraction : 0), total), max: total },
    step: stepStarting ? { value: 0, max: 1 } : step,
    stepDetail: stepStarting ? t('{0}: sending the first requests', stepLabel(running)) : stepDetail,
    ...etaText(state, total, t),
    canCancel: state.phase !== 'cancelling',
    canOpenResult: false,
    tone: 'running',
  };
}

/** A reason as the end of a sentence: reasons from the engine often carry their own full stop. */
export const endSentence = (text: string): string => (/[.!?…。！？]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** What the notification at a run's end says, or null when a complete run needs no words. */
export function runEndMessage(status: string, reason: string | null | undefined, requestsMeasured: number, t: Translate = english): string | null {
  if (status === 'partial') {
    return t('LLM Bench: the run stopped early: {0} The result keeps the {1} requests measured.', endSentence(reason ? sayWarning(reason, t) : t('cancelled')), requestsMeasured);
  }
  if (status === 'failed') return t('LLM Bench: the run failed: {0}', endSentence(reason ? sayWarning(reason, t) : t('see the log')));
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
  const left = view.left ? ` \u00b7 ${view.left}` : '';
  return `LLM Bench${percent}${throughput}${left}`;
}

/** Where the result file is being written, then where it was written once the run is over. */
export function resultPathText(state: LiveState, t: Translate = english): string {
  if (!state.run.resultPath) return '';
  return state.phase === 'finished' ? t('Saved to {0}', state.run.resultPath) : t('Saving to {0}', state.run.resultPath);
}

