/**
 * The live panel's DOM layer: builds the page once, then redraws from each state the host sends.
 * Everything shown comes from view.ts; text from the run (model names, errors, labels) is set as
 * text only.
 */
import '../shared/zod-csp';
import { HostToLiveMessageSchema, LiveViewStateSchema, type HostToLiveMessage, type LiveState, type LiveViewState } from '../../src/format/messages/live';
import type { LiveRequest } from '../../src/format/messages/from-views';
import { SpecChart } from '../shared/charts';
import { byId, el, replaceChildren, scrollBox, setText, textTable } from '../shared/dom';
import { onThemeChange, readTheme, type Theme } from '../shared/theme';
import { button, setDisabled } from '../shared/toolkit';
import { connectToHost, showStates } from '../shared/vscode-api';
import { errorSummary, LATENESS_COLUMNS, latenessRows, liveCharts, serverStrip, TABLE_COLUMNS, tableFootnote, tableRows, workersText, type LiveChart, type LiveChartId, type TimeChartChoice } from '../../src/views/live';
import { progressView, resultPathText, runDescription } from '../../src/views/progress';
import { sayWarning } from '../../src/views/step-warnings';
import { t } from '../shared/l10n';

const host = connectToHost<HostToLiveMessage, LiveRequest, LiveViewState>({ events: HostToLiveMessageSchema, state: LiveViewStateSchema });

let current: LiveState | null = null;
const timeCharts: TimeChartChoice = { latestStepOnly: false, serverOneByOne: false };
let theme: Theme = readTheme();
const charts = new Map<LiveChartId, SpecChart>();

const app = byId('app');
const cancelButton = button(t('Cancel run'), () => current && void host.ask({ type: 'cancel', runId: current.run.id }), 'secondary', 'cancel');
const openButton = button(t('Open result'), () => current && void host.ask({ type: 'open-result', runId: current.run.id }), 'primary', 'open-result');
const logButton = button(t('Show log'), () => void host.ask({ type: 'show-log' }), 'secondary', 'show-log');
const runButton = button(t('Run LLM Benchmark…'), () => void host.ask({ type: 'run-again' }), 'secondary', 'run-again');

const skeleton = {
  title: el('h1', { text: t('LLM Bench: live run') }),
  description: el('p', { className: 'muted', attrs: { id: 'run-description' } }),
  labels: el('p', { className: 'muted', attrs: { id: 'run-labels' } }),
  headline: el('p', { attrs: { id: 'headline', role: 'status', 'aria-live': 'polite' } }),
  overall: el('progress', { attrs: { id: 'overall-progress', 'aria-label': t('Overall progress') } }),
  stepDetail: el('p', { className: 'muted', attrs: { id: 'step-detail' } }),
  step: el('progress', { attrs: { id: 'step-progress', 'aria-label': t('Current step progress') } }),
  workers: el('p', { className: 'muted', attrs: { id: 'workers' } }),
  messages: el('div', { attrs: { id: 'messages' } }),
  chartChoice: el('label', { className: 'chart-choice', title: t('Draw the time charts for the latest step only, on a scale of its own') }),
  charts: el('div', { className: 'chart-grid', attrs: { id: 'charts' } }),
  serverMessage: el('p', { className: 'muted', attrs: { id: 'server-message' } }),
  serverHeading: el('h2', { text: t('Server'), title: t("The server's own metrics, scraped from its /metrics during the run, on the same time axis as the charts above") }),
  serverChoice: el('label', { className: 'chart-choice hidden', title: t('A run over several endpoints: draw each endpoint\'s own server charts instead of their sum') }),
  lateness: el('div', { attrs: { id: 'lateness-table' } }),
  serverCharts: el('div', { className: 'chart-grid', attrs: { id: 'server-charts' } }),
  serverNote: el('p', { className: 'muted', attrs: { id: 'server-note' } }),
  table: el('div', { attrs: { id: 'steps-table' } }),
  errors: el('p', { attrs: { id: 'error-summary' } }),
  logs: el('ul', { attrs: { id: 'run-log' } }),
  resultPath: el('p', { className: 'muted', attrs: { id: 'result-path' } }),
};
const runSection = el('div', { attrs: { id: 'run' } }, [
  skeleton.description,
  skeleton.labels,
  skeleton.headline,
  skeleton.overall,
  skeleton.stepDetail,
  skeleton.step,
  skeleton.workers,
  el('div', { className: 'toolbar' }, [cancelButton, openButton, el('span', { className: 'spacer' }), logButton, runButton]),
  skeleton.resultPath,
  skeleton.chartChoice,
  skeleton.charts,
  el('section', { className: 'server-strip', attrs: { id: 'server-strip' } }, [skeleton.serverHeading, skeleton.serverChoice, skeleton.serverMessage, skeleton.serverCharts, skeleton.serverNote]),
  el('h2', { text: t('Steps') }),
  skeleton.table,
  skeleton.lateness,
  el('p', { className: 'muted', text: tableFootnote(t) }),
  skeleton.errors,
  skeleton.logs,
]);
const emptySection = el('div', { attrs: { id: 'empty' } }, [
  el('p', { text: t('No benchmark has run in this window yet. Start one with “LLM Bench: Run LLM Benchmark” from the Command Palette.') }),
  button(t('Run LLM Benchmark…'), () => void host.ask({ type: 'run-again' }), 'primary'),
]);
const latestStepBox = el('input', { attrs: { type: 'checkbox', id: 'latest-step-only' } });
latestStepBox.addEventListener('change', () => {
  timeCharts.latestStepOnly = latestStepBox.checked;
  if (current) renderCharts(current);
});
replaceChildren(skeleton.chartChoice, [latestStepBox, t('Time charts: latest step only')]);
const oneByOneBox = el('input', { attrs: { type: 'checkbox', id: 'server-one-by-one' } });
oneByOneBox.addEventListener('change', () => {
  timeCharts.serverOneByOne = oneByOneBox.checked;
  if (current) renderCharts(current);
});
replaceChildren(skeleton.serverChoice, [oneByOneBox, t('Each endpoint on its own (else summed)')]);
replaceChildren(app, [skeleton.title, skeleton.messages, emptySection, runSection]);

function showProgress(node: HTMLProgressElement, progress: { value: number; max: number } | null): void {
  node.classList.toggle('hidden', progress === null);
  if (progress) {
    node.max = progress.max;
    node.value = progress.value;
  }
}

/** Draws charts into `grid`, updating those already there in place. */
function drawCharts(grid: HTMLElement, list: LiveChart[]): void {
  for (const chart of list) {
    const existing = charts.get(chart.id);
    if (existing) {
      existing.update(chart.spec);
      continue;
    }
    // A card without a chart (no canvas here) is made once, not again at each update.
    if (grid.querySelector(`[data-chart="${chart.id}"]`)) continue;
    const canvas = el('canvas', { attrs: { role: 'img', 'aria-label': chart.title } });
    const card = el('figure', { className: 'chart-card', attrs: { 'data-chart': chart.id } }, [
      el('h3', { text: chart.title, title: chart.description }),
      el('div', { className: 'chart-box' }, [canvas]),
    ]);
    grid.appendChild(card);
    if (!canvas.getContext('2d')) {
      card.appendChild(el('p', { className: 'muted', text: t('Charts cannot be drawn here (no canvas support).') }));
      continue;
    }
    charts.set(chart.id, new SpecChart(canvas, chart.spec, theme));
  }
}

/** The server strip: its charts, or the one line saying why there are none (a chart that is gone leaves the grid). */
function renderServerStrip(state: LiveState): void {
  const strip = serverStrip(state, timeCharts, t);
  const wanted = new Set(strip.charts.map((chart) => chart.id));
  for (const card of [...skeleton.serverCharts.querySelectorAll<HTMLElement>('[data-chart]')]) {
    const id = card.dataset['chart'] as LiveChartId;
    if (wanted.has(id)) continue;
    charts.get(id)?.destroy();
    charts.delete(id);
    card.remove();
  }
  skeleton.serverChoice.classList.toggle('hidden', (state.server?.replicas.length ?? 0) < 2 || strip.message !== null);
  setText(skeleton.serverMessage, strip.message ?? '');
  skeleton.serverMessage.classList.toggle('hidden', strip.message === null);
  skeleton.serverHeading.classList.toggle('hidden', strip.message !== null);
  setText(skeleton.serverNote, strip.note);
  skeleton.serverNote.classList.toggle('hidden', strip.note === '');
  drawCharts(skeleton.serverCharts, strip.charts);
}

function renderCharts(state: LiveState): void {
  drawCharts(skeleton.charts, liveCharts(state, timeCharts, t));
  renderServerStrip(state);
}

function render(state: LiveState | null): void {
  current = state;
  if (!state) return;
  const view = progressView(state, t);
  setText(skeleton.description, runDescription(state));
  setText(skeleton.labels, state.run.labels.map(([k, v]) => `${k}: ${v}`).join(' · '));
  setText(skeleton.headline, view.headline);
  skeleton.headline.className = `headline tone-${view.tone}`;
  showProgress(skeleton.overall, view.overall);
  showProgress(skeleton.step, view.step);
  setText(skeleton.stepDetail, [view.stepDetail, view.eta].filter(Boolean).join(' · '));
  setText(skeleton.resultPath, resultPathText(state, t));
  setText(skeleton.workers, workersText(state, t));
  cancelButton.classList.toggle('hidden', !view.canCancel && state.phase !== 'cancelling');
  setDisabled(cancelButton, !view.canCancel);
  openButton.classList.toggle('hidden', !view.canOpenResult);
  runButton.classList.toggle('hidden', state.phase !== 'finished');
  replaceChildren(skeleton.table, [scrollBox(textTable(TABLE_COLUMNS, tableRows(state, t), 'data-table sticky-first'))]);
  const lateness = latenessRows(state, t);
  replaceChildren(skeleton.lateness, lateness.length > 0 ? [scrollBox(textTable(LATENESS_COLUMNS, lateness, 'data-table sticky-first'))] : []);
  setText(skeleton.errors, errorSummary(state, t));
  replaceChildren(skeleton.logs, state.logs.filter((l) => l.level !== 'info').map((l) => el('li', { className: `log-${l.level}`, text: `${l.level === 'error' ? t('error') : t('warning')}: ${sayWarning(l.message, t)}` })));
  renderCharts(state);
}

onThemeChange((next) => {
  theme = next;
  for (const chart of charts.values()) chart.setTheme(theme);
});

showStates(host, { panel: t('live panel'), messages: skeleton.messages, empty: emptySection, shown: runSection, render });
