/**
 * The benchmark report panel: options (group by a label, statistic, axis, SLO), the ranking, the
 * runs with their labels, and every curve overlaid with knees marked. The host sends a complete
 * model each time; options go back to it and it answers with a new model.
 */
import '../shared/zod-csp';
import { HostToReportSchema, type HostToReport } from '../../src/format/messages/report';
import { ReportPanelStateSchema, type ReportPanelState, type ReportRequest } from '../../src/format/messages/from-views';
import { KNEE_COLUMNS, kneeRows, noRunsText, rankingColumns, rankingNoiseNote, rankingRows, reportChartSpec, SERVER_MARKS_NOTE, type ReportModel, type ReportSlo } from '../../src/views/report';
import { SpecChart } from '../shared/charts';
import { byId, el, replaceChildren, textTable } from '../shared/dom';
import { onThemeChange, readTheme } from '../shared/theme';
import { button, dropdown } from '../shared/toolkit';
import { connectToHost } from '../shared/vscode-api';
import { formatLabelsText } from '../../src/views/labels';

const host = connectToHost<HostToReport, ReportRequest, ReportPanelState>({ events: HostToReportSchema, state: ReportPanelStateSchema });
const app = byId('app');
let charts: SpecChart[] = [];
/** The ids of `charts`, in order. */
let chartIds: string[] = [];
let theme = readTheme();

function sloInput(label: string, value: number | undefined, id: string): HTMLInputElement {
  const input = el('input', { attrs: { type: 'number', min: '0', step: 'any', id, 'aria-label': label, placeholder: label } });
  if (value !== undefined) input.value = String(value);
  return input;
}

function controls(model: ReportModel): HTMLElement[] {
  const options = () => ({ ...(model.groupBy ? { groupBy: model.groupBy } : {}), axis: model.axis, stat: model.stat, slo: model.slo });
  const send = (patch: object) => void host.ask({ type: 'options', options: { ...options(), ...patch } });
  const groupBy = dropdown(
    [{ value: '', label: 'Each run' }, ...model.labelKeys.map((k) => ({ value: k, label: k }))],
    model.groupBy ?? '',
    (value) => send({ groupBy: value || undefined }),
    'Group by label',
  );
  groupBy.id = 'group-by';
  const stat = dropdown(['mean', 'p50', 'p90', 'p99'].map((s) => ({ value: s, label: s })), model.stat, (value) => send({ stat: value }), 'Statistic');
  const axis = dropdown([{ value: 'concurrency', label: 'concurrency' }, { value: 'rate', label: 'rate' }], model.axis, (value) => send({ axis: value }), 'Load axis');
  const ttft = sloInput('TTFT ≤ ms', model.slo.ttftMs, 'slo-ttft');
  const tpot = sloInput('TPOT ≤ ms', model.slo.tpotMs, 'slo-tpot');
  const e2e = sloInput('Latency ≤ ms', model.slo.e2eMs, 'slo-e2e');
  const applySlo = () => {
    const slo: ReportSlo = {};
    const read = (input: HTMLInputElement) => (Number(input.value) > 0 ? Number(input.value) : undefined);
    const [t, p, e] = [read(ttft), read(tpot), read(e2e)];
    if (t) slo.ttftMs = t;
    if (p) slo.tpotMs = p;
    if (e) slo.e2eMs = e;
    send({ slo });
  };
  // Two rows, so that a narrow panel wraps between whole groups of controls, not inside the SLO.
  return [
    el('div', { className: 'toolbar' }, [
      'Group by', groupBy, 'Statistic', stat, 'Axis', axis,
      el('span', { className: 'spacer' }),
      'Export',
      button('HTML...', () => void host.ask({ type: 'export', format: 'html' }), 'secondary', 'export-html'),
      button('CSV...', () => void host.ask({ type: 'export', format: 'csv' }), 'secondary', 'export-csv'),
      button('Markdown...', () => void host.ask({ type: 'export', format: 'md' }), 'secondary', 'export-md'),
    ]),
    el('div', { className: 'toolbar' }, ['SLO', ttft, tpot, e2e, button('Apply SLO', applySlo, 'secondary', 'apply-slo')]),
  ];
}

/** Runs whose figures follow another tool's definition, said once each under the runs table. */
function definitionNotices(model: ReportModel): HTMLElement[] {
  const notes = model.runs.flatMap((r) => r.definitionNotes.map((note) => `${r.name}: ${note}`));
  return notes.length ? [el('ul', { className: 'notes definition-notes' }, notes.map((text) => el('li', { text })))] : [];
}

/** Counts draws, so that charts of a model already replaced are never built. */
let drawn = 0;

/** A report of no runs: why, and how to make one, in place of empty tables and an empty chart. */
function drawEmpty(title: string, problems: string[]): void {
  const text = noRunsText(problems);
  replaceChildren(app, [
    el('h1', { text: title }),
    el('section', { className: 'empty-report', attrs: { id: 'no-runs' } }, [
      el('p', { text: text.headline }),
      ...text.why.map((why) => el('p', { className: 'notice', text: why })),
      el('ul', {}, text.how.map((how) => el('li', { text: how }))),
      el('div', { className: 'toolbar' }, [
        button('Run LLM Benchmark...', () => void host.ask({ type: 'make-runs', how: 'run' }), 'primary', 'make-run'),
        button('Import Results...', () => void host.ask({ type: 'make-runs', how: 'import' }), 'secondary', 'make-import'),
      ]),
    ]),
  ]);
}

function draw(title: string, model: ReportModel, problems: string[]): void {
  for (const chart of charts) chart.destroy();
  if (model.runs.length === 0) {
    charts = [];
    chartIds = [];
    drawEmpty(title, problems);
    return;
  }
  const all = [...model.charts, model.tradeoff];
  const cards = all.map((chart) => {
    const canvas = el('canvas', { attrs: { 'aria-label': chart.title } });
    const card = el('div', { className: 'chart-card', attrs: { 'data-chart': chart.id, 'data-curves': String(chart.curves.filter((c) => c.points.length).length), 'data-knees': String(chart.curves.filter((c) => c.knee).length), 'data-server-marks': String(chart.curves.reduce((n, c) => n + c.marks.length, 0)) } }, [
      el('div', { className: 'chart-head' }, [el('h3', { text: chart.title }), button('PNG', () => void host.ask({ type: 'save-png', chartId: chart.id }), 'icon')]),
      el('div', { className: 'chart-box' }, [canvas]),
    ]);
    return { card, canvas, chart };
  });
  const runRows = model.runs.map((r, i) => el('tr', {}, [
    el('td', { text: r.name }),
    el('td', { text: r.group }),
    el('td', { text: r.status, className: r.status === 'complete' ? '' : 'tone-warning' }),
    el('td', { text: formatLabelsText(r.labels) }),
    el('td', { text: r.importedFrom ? `${r.importedFrom} (imported)` : 'LLM Bench' }),
    el('td', {}, [r.source ? button('Edit Labels...', () => void host.ask({ type: 'editLabels', run: i }), 'secondary') : null]),
  ]));
  replaceChildren(app, [
    el('h1', { text: title }),
    ...problems.map((p) => el('div', { className: 'notice', text: `Skipped: ${p}` })),
    ...controls(model),
    el('h2', { text: 'Ranking' }),
    el('div', { className: 'table-scroll' }, [textTable(rankingColumns(model).map((label, i) => ({ label, numeric: i >= 4 && i <= 9 })), rankingRows(model), 'data-table ranking sticky-first')]),
    el('p', { className: 'muted', text: rankingNoiseNote(model) }),
    el('h2', { text: 'Knees' }),
    el('div', { className: 'table-scroll' }, [textTable(KNEE_COLUMNS.map((label, i) => ({ label, numeric: i === 2 })), kneeRows(model), 'data-table knees sticky-first')]),
    el('p', { className: 'muted', text: SERVER_MARKS_NOTE }),
    el('h2', { text: 'Runs' }),
    el('div', { className: 'table-scroll' }, [
      el('table', { className: 'data-table runs sticky-first' }, [
        el('thead', {}, [el('tr', {}, ['Run', 'Group', 'Status', 'Labels', 'Source', ''].map((h) => el('th', { text: h })))]),
        el('tbody', {}, runRows),
      ]),
    ]),
    ...definitionNotices(model),
    el('h2', { text: 'Curves' }),
    el('p', { className: 'muted', text: 'The large point on a curve marks its knee: past it, more load buys little throughput while latency climbs. A triangle outline marks the step where the server\'s KV cache first reached 95%, a square outline where requests first kept waiting. Runs of a group share a colour, every other one dashed.' }),
    model.offAxis.length ? el('div', { className: 'notice', text: `Not on the ${model.axis} axis (no step has a ${model.axis}): ${model.offAxis.join(', ')}. Try the other axis.` }) : null,
    el('div', { className: 'chart-grid' }, cards.map((c) => c.card)),
  ]);
  charts = [];
  chartIds = [];
  // The tables paint first; the charts follow on the next frame (unless a newer model came first).
  const generation = ++drawn;
  requestAnimationFrame(() => {
    if (generation !== drawn) return;
    charts = cards.map(({ canvas, chart }) => new SpecChart(canvas, reportChartSpec(chart), theme));
    chartIds = cards.map(({ chart }) => chart.id);
  });
}

onThemeChange((next) => {
  theme = next;
  for (const chart of charts) chart.setTheme(next);
});
host.charts((chartId) => charts[chartIds.indexOf(chartId)]?.toPngDataUrl());
host.start((message) => {
  app.setAttribute('aria-busy', 'false');
  draw(message.title, message.model, message.problems);
});
