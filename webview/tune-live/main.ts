/**
 * The live tune panel's DOM: the tune's headline, Cancel, the trials so far (the running one last),
 * the objective per trial with the best so far, the best command line, the objective against each
 * parameter, and the running trial's server log (its last lines). Built once, redrawn from each
 * state the host sends; kept with setState so a reload shows the last state at once.
 */
import '../shared/zod-csp';
import { HostToTuneLiveMessageSchema, TuneLiveViewStateSchema, type HostToTuneLiveMessage, type TuneLiveState, type TuneLiveViewState } from '../../src/format/messages/tune';
import type { TuneLiveRequest } from '../../src/format/messages/from-views';
import { runningTrialProgress, tuneLiveHeadline, tuneLiveView, tuneTimeLeft } from '../../src/views/tune-live';
import { commandLine } from '../../src/views/tune';
import { byId, el, replaceChildren, setText } from '../shared/dom';
import { onThemeChange } from '../shared/theme';
import { button, setDisabled } from '../shared/toolkit';
import { connectToHost, showStates } from '../shared/vscode-api';
import { bestSection, objectiveList, trialsTable, TuneCharts } from '../tune/render';
import { t } from '../shared/l10n';

const host = connectToHost<HostToTuneLiveMessage, TuneLiveRequest, TuneLiveViewState>({ events: HostToTuneLiveMessageSchema, state: TuneLiveViewStateSchema });

let current: TuneLiveState | null = null;
const app = byId('app');
// No Save PNG here: a chart is saved from the tune file's editor, where it is final.
const charts = new TuneCharts();
onThemeChange((theme) => charts.setTheme(theme));

const cancelButton = button(t('Cancel tune'), () => current && void host.ask({ type: 'cancel', tuneId: current.tune.id }), 'secondary', 'cancel-tune');
const openButton = button(t('Open tune file'), () => current && void host.ask({ type: 'open-tune-file', tuneId: current.tune.id }), 'primary', 'open-tune-file');
const logButton = button(t('Show log'), () => void host.ask({ type: 'show-log' }), 'secondary', 'show-log');

const parts = {
  headline: el('p', { attrs: { id: 'tune-headline', role: 'status', 'aria-live': 'polite' } }),
  /** The running trial's benchmark, in its own line (it sat in the table's reason column). */
  progress: el('p', { attrs: { id: 'tune-progress' } }),
  /** Time left in the whole tune. */
  eta: el('p', { className: 'muted', attrs: { id: 'tune-eta' } }),
  summary: el('p', { className: 'muted', attrs: { id: 'tune-summary' } }),
  objective: el('div', {}),
  file: el('p', { className: 'muted', attrs: { id: 'tune-file' } }),
  messages: el('div', {}),
  best: el('div', {}),
  table: el('div', { attrs: { id: 'trials' } }),
  charts: el('div', {}),
  logTitle: el('h2', { text: t('Server log') }),
  command: el('pre', { className: 'server-command' }),
  log: el('pre', { className: 'server-log', attrs: { id: 'server-log', tabindex: '0' } }),
};
const tuneSection = el('div', { attrs: { id: 'tune' } }, [
  parts.headline,
  parts.progress,
  parts.eta,
  parts.summary,
  el('div', { className: 'toolbar' }, [cancelButton, openButton, el('span', { className: 'spacer' }), logButton]),
  parts.file,
  parts.objective,
  parts.best,
  el('h2', { text: t('Trials') }),
  parts.table,
  el('h2', { text: t('Charts') }),
  parts.charts,
  parts.logTitle,
  parts.command,
  parts.log,
]);
const emptySection = el('p', { attrs: { id: 'empty' }, text: t('No tune has run in this window yet. Start one with “LLM Bench: Tune Server Flags” from the Command Palette, or from a *.llmtune-config.json file in the explorer.') });
replaceChildren(app, [el('h1', { text: t('LLM Bench: Tune') }), parts.messages, emptySection, tuneSection]);

function render(state: TuneLiveState | null): void {
  current = state;
  if (!state) return;
  const headline = tuneLiveHeadline(state, t);
  setText(parts.headline, headline.text);
  parts.headline.className = `headline tone-${headline.tone}`;
  const view = tuneLiveView(state, t);
  const progress = runningTrialProgress(state, t);
  setText(parts.progress, progress);
  parts.progress.classList.toggle('hidden', progress === '');
  showTimeLeft();
  tickWhileRunning(state);
  setText(parts.summary, view.headline);
  setText(parts.file, t('Tune file: {0}', state.tune.outPath));
  const cancellable = state.phase === 'running' || state.phase === 'confirming';
  cancelButton.classList.toggle('hidden', state.phase === 'finished');
  setDisabled(cancelButton, !cancellable);
  openButton.classList.toggle('hidden', state.trials.length === 0 && state.phase !== 'finished');
  replaceChildren(parts.objective, [objectiveList(view)]);
  // The best so far may still change: its command is copied from the tune file's editor, where it is final.
  replaceChildren(parts.best, [bestSection(view.best)]);
  replaceChildren(parts.table, [trialsTable(view, (trial) => current && void host.ask({ type: 'open-trial', tuneId: current.tune.id, trial }))]);
  replaceChildren(parts.charts, charts.sections(view));
  charts.show(view, false);
  const logOf = state.serverLogTrial;
  setText(parts.logTitle, logOf === null ? t('Server log') : state.running?.trial === logOf ? t('Server log: trial {0}', logOf) : t('Server log: trial {0} (ended)', logOf));
  setText(parts.command, state.running ? `$ ${commandLine(state.running.command)}` : '');
  parts.command.classList.toggle('hidden', !state.running);
  const stick = parts.log.scrollTop + parts.log.clientHeight >= parts.log.scrollHeight - 4;
  setText(parts.log, state.serverLog.length > 0 ? state.serverLog.join('\n') : t('No server output yet.'));
  // Follow the tail unless the reader scrolled up to read.
  if (stick) parts.log.scrollTop = parts.log.scrollHeight;
}

/** The tune's time left, again every few seconds: the running trial's time counts as it goes. */
function showTimeLeft(): void {
  const text = current ? tuneTimeLeft(current, Date.now(), t) : '';
  setText(parts.eta, text);
  parts.eta.classList.toggle('hidden', text === '');
}

/** The clock that retells the time left: it runs only while a tune does (a finished tune's panel keeps no timer alive). */
let ticker: ReturnType<typeof setInterval> | undefined;
function tickWhileRunning(state: TuneLiveState): void {
  const running = state.phase !== 'finished';
  if (running && ticker === undefined) ticker = setInterval(showTimeLeft, 5000);
  if (!running && ticker !== undefined) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

showStates(host, { panel: t('tune panel'), messages: parts.messages, empty: emptySection, shown: tuneSection, render });
