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

/** "step 1: 12 / 64 requests, 830 output tok/s" */
function benchmarkDetail(snapshot: ProgressSnapshot): string {
  const planned = snapshot.plannedRequests !== null ? ` / ${snapshot.plannedRequests}` : '';
  return `step ${snapshot.stepIndex + 1}: ${snapshot.completed}${planned} requests, ${formatMetric('outputTokensPerSecond', snapshot.outputTokensPerSecond)} output tok/s`;
}

export function newTuneLiveState(tune: TuneLiveState['tune'], config: TuneConfig): TuneLiveState {
  return { tune, phase: 'confirming', status: null, statusReason: null, config, trials: [], best: null, remeasure: null, running: null, serverLog: [], serverLogTrial: null };
}

/** Applies one event of the tuner, received at `atMs` (the host's clock). */
export function applyTuneEvent(state: TuneLiveState, event: TuneEvent, atMs = Date.now()): void {
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
        state.running.detail = benchmarkDetail(event.event.snapshot);
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

const STAGE_TEXT: Record<NonNullable<TuneLiveState['running']>['stage'], string> = {
  launching: 'launching its server',
  'waiting-ready': 'waiting for its server to get ready',
  benchmarking: 'benchmarking',
  stopping: 'stopping its server',
};

/** What the live panel says at the top: the phase, the trial under way, how the tune ended. */
export function tuneLiveHeadline(state: TuneLiveState): { text: string; tone: 'ok' | 'warning' | 'error' | 'running' } {
  if (state.phase === 'confirming') return { text: 'Waiting for you to confirm the first server launch.', tone: 'running' };
  if (state.phase === 'cancelling') return { text: 'Cancelling: stopping the server...', tone: 'warning' };
  if (state.phase === 'finished') {
    const reason = state.statusReason ? `: ${state.statusReason}` : '';
    const tone = state.status === 'complete' ? 'ok' : state.status === 'cancelled' ? 'warning' : 'error';
    return { text: `Finished (${state.status ?? 'unknown'})${reason}`, tone };
  }
  if (!state.running) return { text: state.remeasure?.status === 'running' ? 'Re-measuring the best candidates...' : 'Choosing the next trial...', tone: 'running' };
  const stage = STAGE_TEXT[state.running.stage];
  if (state.running.round !== undefined) {
    const rounds = state.remeasure?.rounds;
    return { text: `Re-measuring trial ${state.running.trial}, round ${state.running.round}${rounds ? ` of ${rounds}` : ''}: ${stage} (${paramsText(state.running.params)})`, tone: 'running' };
  }
  return { text: `Trial ${state.running.trial}: ${stage} (${paramsText(state.running.params)})`, tone: 'running' };
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
export function tuneTimeLeft(state: TuneLiveState, nowMs: number): string {
  if (state.phase === 'finished' || state.phase === 'confirming') return '';
  const planned = plannedTrials(state);
  const done = state.trials.length;
  const wallSec = state.config.budget.wallTimeSec;
  const tuneElapsedSec = (nowMs - Date.parse(state.tune.startedAt)) / 1000;
  const wallLeftSec = wallSec === undefined || !Number.isFinite(tuneElapsedSec) ? Infinity : Math.max(0, wallSec - tuneElapsedSec);
  const of = planned === null ? '' : ` of ${planned}`;
  const durations = state.trials.map((t) => (Date.parse(t.endedAt) - Date.parse(t.startedAt)) / 1000).filter((d) => Number.isFinite(d) && d >= 0);
  if (durations.length === 0) {
    const wall = Number.isFinite(wallLeftSec) ? `; the wall-time budget ends it within ${formatDuration(wallLeftSec)}` : '';
    return `${done}${of} trials done. Time left: known once the first trial ends${wall}.`;
  }
  const perTrialSec = durations.reduce((a, b) => a + b, 0) / durations.length;
  const runningSec = state.running?.startedAt ? Math.max(0, (nowMs - Date.parse(state.running.startedAt)) / 1000) : 0;
  const later = planned === null ? null : Math.max(0, planned - done - (state.running ? 1 : 0));
  if (later === null && !Number.isFinite(wallLeftSec)) return `${done} trials done, ${formatDuration(perTrialSec)} a trial so far.`;
  const byTrials = later === null ? Infinity : (state.running ? Math.max(0, perTrialSec - runningSec) : 0) + later * perTrialSec;
  const left = Math.min(byTrials, wallLeftSec);
  return `${done}${of} trials done, ${formatDuration(perTrialSec)} a trial so far: about ${formatDuration(left)} left in the tune${left < byTrials ? ' (its wall-time budget ends it)' : ''}.`;
}

/** What the running trial's benchmark is doing, in its own line (not in the trials table's reason column); empty when none runs. */
export function runningTrialProgress(state: TuneLiveState): string {
  const running = state.phase === 'finished' ? null : state.running;
  if (!running) return '';
  return `Trial ${running.trial}: ${running.detail ?? STAGE_TEXT[running.stage]}`;
}

/** The live panel's view of the tune so far: the same table and charts as the editor (without the Pareto chart, which needs the result files). */
export function tuneLiveView(state: TuneLiveState): TuneView {
  const data: TuneData = {
    config: state.config,
    trials: state.trials,
    best: state.best,
    remeasure: state.remeasure,
    status: state.status ?? 'running',
    statusReason: state.statusReason,
  };
  return buildTuneView(data, state.tune.outPath.split(/[\\/]/).pop() ?? state.tune.outPath, [], { running: state.phase === 'finished' ? null : state.running });
}

/** The notification at a tune's end, or null when a complete tune needs no words (its file opens). */
export function tuneEndMessage(status: TuneStatus, reason: string | null, trials: number): string | null {
  const why = reason ? ` ${endSentence(reason)}` : '';
  if (status === 'cancelled') return `LLM Bench: the tune stopped after ${trials} trial${trials === 1 ? '' : 's'}; the tune file keeps every one that finished.${why}`;
  if (status === 'failed') return `LLM Bench: the tune failed after ${trials} trial${trials === 1 ? '' : 's'}.${why}`;
  return null;
}
