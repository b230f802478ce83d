/**
 * The live tune panel's state, built from the tuner's events, and what the panel shows of it. Pure:
 * the host reduces events with `applyTuneEvent` (in place: log lines arrive many times a second) and
 * the panel's webview draws `tuneLiveView` and `tuneLiveHeadline`.
 */
import { SERVER_LOG_LINES, type TuneLiveState, type TuneView } from '../format/messages/tune';
import type { TuneConfig, TuneEvent, TuneStatus } from '../format/tune';
import { buildTuneView, paramsText, type TuneData } from './tune';
import type { ProgressSnapshot } from '../format/events';
import { formatDuration, formatMetric } from './number-format';
import { endSentence } from './progress';
import { spaceSize } from '../tune/space';
import { english, statusWord, type Translate } from './l10n';
import { sayWarning } from './step-warnings';

/** "step 1: 12 / 64 requests, 830 output tok/s" */
function benchmarkDetail(snapshot: ProgressSnapshot, t: Translate): string {
  const planned = snapshot.plannedRequests !== null ? ` / ${snapshot.plannedRequests}` : '';
  return t('step {0}: {1} requests, {2} output tok/s', snapshot.stepIndex + 1, `${snapshot.completed}${planned}`, formatMetric('outputTokensPerSecond', snapshot.outputTokensPerSecond));
}

export function newTuneLiveState(tune: TuneLiveState['tune'], config: TuneConfig): TuneLiveState {
  return { tune, phase: 'confirming', status: null, statusReason: null, config, trials: [], best: null, remeasure: null, running: null, serverLog: [], serverLogTrial: null };
}

/** Applies one event of the tuner, received at `atMs` (the host's clock); `t` words the benchmark's progress in the display language. */
export function applyTuneEvent(state: TuneLiveState, event: TuneEvent, atMs = Date.now(), t: Translate = english): void {
  switch (event.type) {
    case 'trial-start':
      if (state.phase === 'confirming') state.phase = 'running';
      state.running = { trial: event.trial, params: event.params, command: event.command, ...(event.round !== undefined ? { round: event.round } : {}), stage: 'launching', detail: null, startedAt: new Date(atMs).toISOString() };
      state.serverLog = [];
      state.serverLogTrial = event.trial;
      return;
    case 'server-log':
      if (event.trial !== state.serverLogTrial) return;
      state.serverLog.push(event.line);
      if (state.serverLog.length > SERVER_LOG_LINES) state.serverLog.splice(0, state.serverLog.length - SERVER_LOG_LINES);
      return;
    case 'trial-stage':
      if (state.running?.trial === event.trial) state.running.stage = event.stage;
      return;
    case 'benchmark':
      if (state.running?.trial === event.trial && event.event.type === 'progress') {
        state.running.stage = 'benchmarking';
        state.running.detail = benchmarkDetail(event.event.snapshot, t);
      }
      return;
    case 'trial-end': {
      const at = state.trials.findIndex((t) => t.number === event.trial.number);
      if (at >= 0) state.trials[at] = event.trial;
      else state.trials.push(event.trial);
      state.best = event.best;
      if (state.running?.trial === event.trial.number) state.running = null;
      return;
    }
    case 'remeasure': {
      state.remeasure = event.remeasure;
      state.best = event.best;
      const { running } = state;
      if (running?.round !== undefined && event.remeasure.runs.some((r) => r.trial === running.trial && r.round === running.round)) state.running = null;
      return;
    }
    case 'log':
      return;
    case 'done':
      state.phase = 'finished';
      state.status = event.status;
      state.statusReason = event.reason;
      state.best = event.best;
      state.running = null;
      return;
  }
}

/** What a running trial is doing, in words. */
function stageText(stage: NonNullable<TuneLiveState['running']>['stage'], t: Translate): string {
  switch (stage) {
    case 'launching':
      return t('launching its server');
    case 'waiting-ready':
      return t('waiting for its server to get ready');
    case 'benchmarking':
      return t('benchmarking');
    case 'stopping':
      return t('stopping its server');
  }
}


/** What the live panel says at the top: the phase, the trial under way, how the tune ended. */
export function tuneLiveHeadline(state: TuneLiveState, t: Translate = english): { text: string; tone: 'ok' | 'warning' | 'error' | 'running' } {
  if (state.phase === 'confirming') return { text: t('Waiting for you to confirm the first server launch.'), tone: 'running' };
  if (state.phase === 'cancelling') return { text: t('Cancelling: stopping the server...'), tone: 'warning' };
  if (state.phase === 'finished') {
    const status = statusWord(state.status, t);
    const tone = state.status === 'complete' ? 'ok' : state.status === 'cancelled' ? 'warning' : 'error';
    return { text: state.statusReason ? t('Finished ({0}): {1}', status, sayWarning(state.statusReason, t)) : t('Finished ({0})', status), tone };
  }
  if (!state.running) return { text: state.remeasure?.status === 'running' ? t('Re-measuring the best candidates...') : t('Choosing the next trial...'), tone: 'running' };
  const stage = stageText(state.running.stage, t);
  const params = paramsText(state.running.params);
  if (state.running.round !== undefined) {
    const rounds = state.remeasure?.rounds;
    return {
      text: rounds
        ? t('Re-measuring trial {0}, round {1} of {2}: {3} ({4})', state.running.trial, state.running.round, rounds, stage, params)
        : t('Re-measuring trial {0}, round {1}: {2} ({3})', state.running.trial, state.running.round, stage, params),
      tone: 'running',
    };
  }
  return { text: t('Trial {0}: {1} ({2})', state.running.trial, stage, params), tone: 'running' };
}

/** The trials the tune will run unless cut short: its trial budget, or every combination of a smaller space; null without a trial budget. */
function plannedTrials(state: TuneLiveState): number | null {
  const budget = state.config.budget.trials;
  const size = spaceSize(state.config.space);
  return budget === undefined ? (Number.isFinite(size) ? size : null) : Math.min(budget, size);
}

/**
 * Time left in the whole tune, in words: the trials still to run at the mean time a trial has taken
 * so far (refused ones included, which take none), the running one's time so far counted, and never
 * past the wall-time budget. Empty once the tune is over.
 */
export function tuneTimeLeft(state: TuneLiveState, nowMs: number, t: Translate = english): string {
  if (state.phase === 'finished' || state.phase === 'confirming') return '';
  const planned = plannedTrials(state);
  const done = state.trials.length;
  const wallSec = state.config.budget.wallTimeSec;
  const tuneElapsedSec = (nowMs - Date.parse(state.tune.startedAt)) / 1000;
  const wallLeftSec = wallSec === undefined || !Number.isFinite(tuneElapsedSec) ? Infinity : Math.max(0, wallSec - tuneElapsedSec);
  const doneText = planned === null ? t('{0} trials done', done) : t('{0} of {1} trials done', done, planned);
  const durations = state.trials.map((t) => (Date.parse(t.endedAt) - Date.parse(t.startedAt)) / 1000).filter((d) => Number.isFinite(d) && d >= 0);
  if (durations.length === 0) {
    return Number.isFinite(wallLeftSec)
      ? t('{0}. Time left: known once the first trial ends; the wall-time budget ends it within {1}.', doneText, formatDuration(wallLeftSec, t))
      : t('{0}. Time left: known once the first trial ends.', doneText);
  }
  const perTrialSec = durations.reduce((a, b) => a + b, 0) / durations.length;
  const runningSec = state.running?.startedAt ? Math.max(0, (nowMs - Date.parse(state.running.startedAt)) / 1000) : 0;
  const later = planned === null ? null : Math.max(0, planned - done - (state.running ? 1 : 0));
  if (later === null && !Number.isFinite(wallLeftSec)) return t('{0}, {1} a trial so far.', doneText, formatDuration(perTrialSec, t));
  const byTrials = later === null ? Infinity : (state.running ? Math.max(0, perTrialSec - runningSec) : 0) + later * perTrialSec;
  const left = Math.min(byTrials, wallLeftSec);
  return left < byTrials
    ? t('{0}, {1} a trial so far: about {2} left in the tune (its wall-time budget ends it).', doneText, formatDuration(perTrialSec, t), formatDuration(left, t))
    : t('{0}, {1} a trial so far: about {2} left in the tune.', doneText, formatDuration(perTrialSec, t), formatDuration(left, t));
}

/**
 * How far the running trial's benchmark has gone, in its own line (not in the trials table's reason
 * column); empty when none runs or its benchmark has not reported yet: the headline already says
 * the trial's stage (the line repeated the headline while a server launched).
 */
export function runningTrialProgress(state: TuneLiveState, t: Translate = english): string {
  const running = state.phase === 'finished' ? null : state.running;
  if (!running?.detail) return '';
  return t('Trial {0}: {1}', running.trial, running.detail);
}

/** The live panel's view of the tune so far: the same table and charts as the editor (without the Pareto chart, which needs the result files). */
export function tuneLiveView(state: TuneLiveState, t: Translate = english): TuneView {
  const data: TuneData = {
    config: state.config,
    trials: state.trials,
    best: state.best,
    remeasure: state.remeasure,
    status: state.status ?? 'running',
    statusReason: state.statusReason,
  };
  return buildTuneView(data, state.tune.outPath.split(/[\\/]/).pop() ?? state.tune.outPath, [], { running: state.phase === 'finished' ? null : state.running }, t);
}

/** The notification at a tune's end, or null when a complete tune needs no words (its file opens). */
export function tuneEndMessage(status: TuneStatus, reason: string | null, trials: number, t: Translate = english): string | null {
  const why = reason ? ` ${endSentence(sayWarning(reason, t))}` : '';
  if (status === 'cancelled') return `${trials === 1 ? t('LLM Bench: the tune stopped after 1 trial; the tune file keeps every one that finished.') : t('LLM Bench: the tune stopped after {0} trials; the tune file keeps every one that finished.', trials)}${why}`;
  if (status === 'failed') return `${trials === 1 ? t('LLM Bench: the tune failed after 1 trial.') : t('LLM Bench: the tune failed after {0} trials.', trials)}${why}`;
  return null;
}
