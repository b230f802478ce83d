/**
 * The benchmark report panel: options (group by a label, statistic, axis, SLO), the ranking, the
 * runs with their labels, and every curve overlaid with knees marked. The host sends a complete
 * model each time; options go back to it and it answers with a new model.
 */
import '../shared/zod-csp';
import { HostToReportSchema, type HostToReport } from '../../src/format/messages/report';
import { ReportPanelStateSchema, type ReportPanelState, type ReportRequest } from '../../src/format/messages/from-views';
import { kneeTable, noRunsText, rankingNoiseNote, rankingTable, reportChartSpec, reportChartText, reportLegend, SERVER_MARKS_NOTE, type ReportModel, type ReportSlo } from '../../src/views/report';
import { DASH_PATTERNS } from '../../src/views/chart-spec';
import { SpecChart } from '../shared/charts';
import { byId, el, replaceChildren, scrollBox, textTable, type Child } from '../shared/dom';
import { onThemeChange, readTheme, seriesColor } from '../shared/theme';
import { button, dropdown } from '../shared/toolkit';
import { connectToHost } from '../shared/vscode-api';
import { formatLabelsText } from '../../src/views/labels';
import { t } from '../shared/l10n';
import { sayWarning } from '../../src/views/step-warnings';

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
    [{ value: '', label: t('Each run') }, ...model.labelKeys.map((k) => ({ value: k, label: k }))],
    model.groupBy ?? '',
    (value) => send({ groupBy: value || undefined }),
    t('Group by label'),
  );
  groupBy.id = 'group-by';
  const stat = dropdown(['mean', 'p50', 'p90', 'p99'].map((s) => ({ value: s, label: s })), model.stat, (value) => send({ stat: value }), 'Statistic');
  const axis = dropdown([{ value: 'concurrency', label: t('concurrency') }, { value: 'rate', label: t('rate') }], model.axis, (value) => send({ axis: value }), t('Load axis'));
  const ttft = sloInput('TTFT ≤ ms', model.slo.ttftMs, 'slo-ttft');
  // TTFO is offered where it means something else than TTFT: when some run reasoned (or an SLO on it is set).
  const ttfo = model.reasoning || model.slo.ttfoMs !== undefined ? sloInput('TTFO ≤ ms', model.slo.ttfoMs, 'slo-ttfo') : null;
  const tpot = sloInput('TPOT ≤ ms', model.slo.tpotMs, 'slo-tpot');
  const e2e = sloInput(t('Latency ≤ ms'), model.slo.e2eMs, 'slo-e2e');
  const applySlo = () => {
    const slo: ReportSlo = {};
    const read = (input: HTMLInputElement) => (Number(input.value) > 0 ? Number(input.value) : undefined);
    const [t, p, e] = [read(ttft), read(tpot), read(e2e)];
    const o = ttfo ? read(ttfo) : undefined;
    if (t) slo.ttftMs = t;
    if (o) slo.ttfoMs = o;
    if (p) slo.tpotMs = p;
    if (e) slo.e2eMs = e;
    send({ slo });
  };
  // Each label stays with its controls: a narrow panel wraps between groups, never inside one
  // (at 1000 px "Export" was left at the end of one line, its buttons on the next).
  const group = (...children: Child[]) => el('span', { className: 'control-group' }, children);
  return [
    el('div', { className: 'toolbar' }, [
      group(t('Group by'), groupBy),
      group(t('Statistic'), stat),
      group(t('Axis'), axis),
      el('span', { className: 'spacer' }),
      group(
        t('Export'),
        button('HTML...', () => void host.ask({ type: 'export', format: 'html' }), 'secondary', 'export-html'),
        button('CSV...', () => void host.ask({ type: 'export', format: 'csv' }), 'secondary', 'export-csv'),
        button('Markdown...', () => void host.ask({ type: 'export', format: 'md' }), 'secondary', 'export-md'),
      ),
    ]),
    el('div', { className: 'toolbar' }, [group('SLO', ttft, ttfo, tpot, e2e), button(t('Apply SLO'), applySlo, 'secondary', 'apply-slo')]),
  ];
}

/** Runs whose figures follow another tool's definition, said once each under the runs table; then what is wrong with a run's steps (a client that was the limit among them). */
function definitionNotices(model: ReportModel): HTMLElement[] {
  const notes = model.runs.flatMap((r) => r.definitionNotes.map((note) => `${r.name}: ${note}`));
  const warnings = model.runs.flatMap((r) => r.stepWarnings.map((warning) => `${r.name}: ${sayWarning(warning, t)}`));
  return [
    ...(notes.length ? [el('ul', { className: 'notes definition-notes' }, notes.map((text) => el('li', { text })))] : []),
    ...(warnings.length ? [el('ul', { className: 'notes step-warnings tone-warning' }, warnings.map((text) => el('li', { text })))] : []),
  ];
}

/** A line in a run's colour and dash, as its curves are drawn (SVG attributes, not a style: the CSP allows them). */
function lineSwatch(color: string, dash: number): SVGSVGElement {
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  for (const [name, value] of Object.entries({ width: '28', height: '8', 'aria-hidden': 'true', class: 'swatch' })) svg.setAttribute(name, value);
  const line = document.createElementNS(svgNs, 'line');
  const pattern = DASH_PATTERNS[dash % DASH_PATTERNS.length] ?? [];
  for (const [name, value] of Object.entries({ x1: '0', y1: '4', x2: '28', y2: '4', stroke: color, 'stroke-width': '2.5', ...(pattern.length ? { 'stroke-dasharray': pattern.join(' ') } : {}) })) line.setAttribute(name, value);
  svg.appendChild(line);
  return svg;
}

/** The page's one legend for every chart below it: each run's colour and dash, name and group. */
function legendElement(model: ReportModel): HTMLElement {
  return el('ul', { className: 'report-legend', attrs: { 'aria-label': t('Runs on the charts') } }, reportLegend(model).map((entry) =>
    el('li', {}, [lineSwatch(seriesColor(theme, entry.color), entry.dash), entry.name, entry.group === null ? null : el('span', { className: 'muted', text: ` (${model.groupBy}: ${entry.group})` })]),
  ));
}

/** Counts draws, so that charts of a model already replaced are never built. */
let drawn = 0;
let legend: { model: ReportModel; element: HTMLElement } | null = null;

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
        button(t('Run LLM Benchmark...'), () => void host.ask({ type: 'make-runs', how: 'run' }), 'primary', 'make-run'),
        button(t('Import Results...'), () => void host.ask({ type: 'make-runs', how: 'import' }), 'secondary', 'make-import'),
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
    const canvas = el('canvas', { attrs: { 'aria-label': reportChartText(chart.title, chart, t) } });
    const card = el('div', { className: 'chart-card', attrs: { 'data-chart': chart.id, 'data-curves': String(chart.curves.filter((c) => c.points.length).length), 'data-knees': String(chart.curves.filter((c) => c.knee).length), 'data-server-marks': String(chart.curves.reduce((n, c) => n + c.marks.length, 0)) } }, [
      el('div', { className: 'chart-head' }, [el('h3', { text: reportChartText(chart.title, chart, t) }), button(t('Save PNG'), () => void host.ask({ type: 'save-png', chartId: chart.id }), 'secondary')]),
      el('div', { className: 'chart-box' }, [canvas]),
    ]);
    return { card, canvas, chart };
  });
  const grouped = model.groupBy !== null;
  const runRows = model.runs.map((r, i) => el('tr', {}, [
    el('td', { text: r.name }),
    grouped ? el('td', { text: r.group }) : null,
    el('td', { text: r.status, className: (r.complete ?? r.status === 'complete') ? '' : 'tone-warning' }),
    el('td', { className: 'wrap', text: formatLabelsText(r.labels) }),
    el('td', { text: r.importedFrom ? t('{0} (imported)', r.importedFrom) : 'LLM Bench' }),
    el('td', {}, [r.source ? button(t('Edit Labels...'), () => void host.ask({ type: 'editLabels', run: i }), 'secondary') : null]),
  ]));
  const ranking = rankingTable(model, t);
  const knees = kneeTable(model, t);
  legend = { model, element: legendElement(model) };
  replaceChildren(app, [
    el('h1', { text: title }),
    ...problems.map((p) => el('div', { className: 'notice', text: t('Skipped: {0}', p) })),
    ...controls(model),
    el('h2', { text: t('Ranking') }),
    scrollBox(textTable(ranking.columns, ranking.rows, 'data-table ranking sticky-first')),
    el('p', { className: 'muted', text: rankingNoiseNote(model, t) }),
    el('h2', { text: t('Knees') }),
    scrollBox(textTable(knees.columns, knees.rows, 'data-table knees sticky-first')),
    el('p', { className: 'muted', text: t(SERVER_MARKS_NOTE) }),
    ...model.endpoints.flatMap((run) => [
      el('h2', { text: t('Per endpoint: {0}', run.name) }),
      scrollBox(textTable(run.table.columns, run.table.rows, 'data-table endpoints sticky-first')),
      ...run.notes.map((note) => el('p', { className: 'notice', text: note })),
    ]),
    ...model.shards.flatMap((run) => [
      el('h2', { text: t('Shards: {0}', run.name) }),
      ...run.notes.map((note) => el('p', { className: 'notice', text: note })),
      scrollBox(textTable(run.table.columns, run.table.rows, 'data-table shards sticky-first')),
    ]),
    el('h2', { text: t('Runs') }),
    scrollBox(
      el('table', { className: 'data-table runs sticky-first' }, [
        el('thead', {}, [el('tr', {}, [t('Run'), grouped ? t('Group ({0})', model.groupBy ?? '') : null, t('Status'), t('Labels'), t('Source'), ''].flatMap((h) => (h === null ? [] : [el('th', { text: h })])))]),
        el('tbody', {}, runRows),
      ]),
    ),
    ...definitionNotices(model),
    el('h2', { text: t('Curves') }),
    el('p', { className: 'muted', text: CURVES_NOTE }),
    model.offAxis.length ? el('div', { className: 'notice', text: t('Not on the {0} axis (no step has a {0}): {1}. Try the other axis.', t(model.axis), model.offAxis.join(', ')) }) : null,
    legend.element,
    el('div', { className: 'chart-grid' }, cards.map((c) => c.card)),
  ]);
  charts = [];
  chartIds = [];
  // The tables paint first; the charts follow on the next frame (unless a newer model came first).
  const generation = ++drawn;
  requestAnimationFrame(() => {
    if (generation !== drawn) return;
    charts = cards.map(({ canvas, chart }) => new SpecChart(canvas, reportChartSpec(chart, t), theme));
    chartIds = cards.map(({ chart }) => chart.id);
  });
}

/** What the curves show, above the legend. */
const CURVES_NOTE = t(
  "Each run has its own colour; runs grouped by a label share their group's dash (the legend names both). A ring marks a run's knee: past it, more load buys little throughput while latency climbs. A triangle outline marks the step where the server's KV cache first reached 95%, a square outline where requests first kept waiting.",
);

onThemeChange((next) => {
  theme = next;
  for (const chart of charts) chart.setTheme(next);
  // The legend's swatches are the theme's colours: drawn again in the new ones.
  if (legend) {
    const fresh = legendElement(legend.model);
    legend.element.replaceWith(fresh);
    legend = { model: legend.model, element: fresh };
  }
});
host.charts((chartId) => charts[chartIds.indexOf(chartId)]?.toPngDataUrl());
host.start((message) => {
  app.setAttribute('aria-busy', 'false');
  draw(message.title, message.model, message.problems);
});
