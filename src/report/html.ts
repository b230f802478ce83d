/**
 * The self-contained HTML report of one run or a comparison: tables and SVG charts in one file,
 * no script, no external resource (its Content Security Policy forbids any), so it opens offline
 * in any browser and shows exactly what was exported.
 */
import { createHash } from 'node:crypto';
import { kneeTable, rankingNoiseNote, rankingTable, reportLegend, runStepWarnings, SERVER_MARKS_NOTE, type ReportModel, type ReportRun } from '../views/report';
import { sayWarning, WARNING_MARK } from '../views/step-warnings';
import { formatLabelsText } from '../views/labels';
import { chooseXAxis, definitionNotes, stepRow } from '../views/result';
import { localCountsNotes } from '../views/token-counts';
import { stepLabel } from '../format/step-name';
import { htmlPage } from './page';
import { colorOf, dashAttribute, escapeXml as escapeHtml, svgLineChart } from './svg';
import { formatLocalTime, NOT_AVAILABLE } from '../views/number-format';
import type { TableColumn } from '../views/chart-spec';
import { stepTable } from '../views/result-tables';
import { fontStack } from '../views/fonts';
import { ENGLISH, type Translate, type ViewLocale } from '../views/l10n';

/** A report opened anywhere: the system UI fonts first, then the CJK faces for Chinese labels (src/views/fonts.ts). */
const REPORT_FONTS = fontStack('system-ui, -apple-system, "Segoe UI"');

const STYLE = `
body{font:14px/1.45 ${REPORT_FONTS};color:#1b1b1b;background:#fff;margin:24px;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.table-scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d0d0;padding:3px 8px;vertical-align:top}th{background:#f3f3f3;font-weight:600;text-align:left;vertical-align:bottom}
td{text-align:left;min-width:5em;overflow-wrap:anywhere}td.num,th.num{text-align:right;white-space:nowrap;min-width:0}
.unit{display:block;font-weight:normal;color:#595959;font-size:0.9em}.line{display:block}.line.sub{color:#595959}
.muted{color:#595959}.notes li{margin:2px 0}
.charts{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:12px}.charts figure{margin:0;border:1px solid #e2e2e2;padding:6px;min-width:0}.charts svg{display:block;width:100%;height:auto}
@media (max-width:900px){.charts{grid-template-columns:minmax(0,1fr)}}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;padding:0;list-style:none}.swatch{vertical-align:middle;margin-right:6px}
svg .grid{stroke:#eee}svg .axis{stroke:#767676}svg .tick{font-size:11px;fill:#555}svg .axis-title{font-size:12px;fill:#333}
svg .chart-title{font-size:13px;font-weight:600;fill:#1b1b1b}svg .mark-label{font-size:11px;font-weight:600}svg .empty{fill:#595959}
`;

/** A cell's lines ("\n" stacks a step over its load), escaped. */
const cellText = (text: string) => text.split('\n').map((line, i) => (text.includes('\n') ? `<span class="line${i > 0 ? ' sub' : ''}">${escapeHtml(line)}</span>` : escapeHtml(line))).join('');

/**
 * A table in a box that scrolls sideways if it must: numbers right-aligned and kept on one line,
 * text (runs, models, labels) left-aligned and wrapping, so that the tables fit half a page.
 */
function table(columns: TableColumn[], rows: string[][], className: string, t: Translate): string {
  const head = columns.map((c) => `<th${c.numeric ? ' class="num"' : ''}${c.description ? ` title="${escapeHtml(t(c.description))}"` : ''}>${escapeHtml(t(c.label))}${c.unit ? `<span class="unit">${escapeHtml(t(c.unit))}</span>` : ''}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell, i) => `<td${columns[i]?.numeric ? ' class="num"' : ''}>${cellText(cell)}</td>`).join('')}</tr>`).join('');
  return `<div class="table-scroll"><table class="${className}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

function sloText(model: ReportModel, t: Translate): string {
  const parts = [
    model.slo.ttftMs !== undefined ? `TTFT ≤ ${model.slo.ttftMs} ms` : null,
    model.slo.ttfoMs !== undefined ? `TTFO ≤ ${model.slo.ttfoMs} ms` : null,
    model.slo.tpotMs !== undefined ? `TPOT ≤ ${model.slo.tpotMs} ms` : null,
    model.slo.e2eMs !== undefined ? t('latency ≤ {0} ms', model.slo.e2eMs) : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? t('{0} ({1} of each step)', parts.join(', '), model.stat) : t('no SLO given: every step counts');
}

/** A run's steps as the result editor's table shows them (src/views/result-tables.ts stepTable), its notes under it. */
function runTables(run: ReportRun, t: Translate): string {
  const axis = chooseXAxis(run.doc.steps);
  // The reader gave every step a summary (an unfinished one from its records, marked partial).
  const steps = stepTable(run.doc.steps.flatMap((step, i) => (step.summary ? [stepRow(step, step.summary, axis, run.unfinishedSteps?.includes(i) === true, run.doc.importedFrom !== undefined)] : [])), undefined, t);
  const columns: TableColumn[] = steps.groups.flatMap((g, gi) =>
    g.columns.map((stat) => ({ label: gi === 0 ? 'Step' : g.label, unit: [g.unit, stat ? t(stat) : ''].filter(Boolean).join(', '), numeric: gi > 0, description: g.definition })),
  );
  const listed = [
    ...definitionNotes(run.doc.steps, t),
    ...localCountsNotes(run.doc.steps, stepLabel, t),
    ...(run.doc.importedFrom?.notes ?? []).map((note) => sayWarning(note, t)),
  ];
  const list = listed.length ? `<ul class="notes">${listed.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : '';
  const warned = runStepWarnings(run);
  const warnings = warned.length ? `<ul class="notes step-warnings">${warned.map((n) => `<li>${escapeHtml(`${WARNING_MARK} ${sayWarning(n, t)}`)}</li>`).join('')}</ul>` : '';
  const imported = run.doc.importedFrom;
  const notes = imported
    ? `<p class="muted">${escapeHtml(t('Imported from {0} ({1}):', `${imported.tool}${imported.version ? ` ${imported.version}` : ''}`, imported.file))}</p>${list}`
    : list;
  return `<h3>${escapeHtml(run.name)}</h3>` + table(columns, steps.rows, 'steps', t) + warnings + notes;
}

/**
 * `t` and `lang`: the report's language (src/views/l10n.ts): the display language in the extension,
 * `--lang` on the command line; English by default. Figures, names and units are the same in every language.
 */
export function renderHtmlReport(model: ReportModel, runs: ReportRun[], title: string, generatedAt = new Date(), { t, locale }: ViewLocale = ENGLISH): string {
  const legend = `<ul class="legend">${reportLegend(model)
    .map((entry) => {
      // An SVG line, not a styled span: the page's CSP allows no style attributes.
      const swatch = `<svg class="swatch" width="28" height="6" aria-hidden="true"><line x1="0" y1="3" x2="28" y2="3" stroke="${colorOf(entry.color)}" stroke-width="2.5"${dashAttribute(entry.dash)}/></svg>`;
      return `<li>${swatch}${escapeHtml(entry.name)}${entry.group !== null ? ` <span class="muted">(${escapeHtml(model.groupBy ?? '')}: ${escapeHtml(entry.group)})</span>` : ''}</li>`;
    })
    .join('')}</ul>`;
  const grouped = model.groupBy !== null;
  // Workers only when a run says how many it used: a column of n/a says nothing.
  const withWorkers = runs.some((r) => r.doc.workers !== undefined);
  const runsTable = table(
    [{ label: 'Run' }, ...(grouped ? [{ label: 'Group', unit: model.groupBy ?? '' }] : []), { label: 'Status' }, { label: 'Model' }, ...(withWorkers ? [{ label: 'Workers' }] : []), { label: 'Source' }, { label: 'Labels' }],
    runs.map((r, i) => [
      r.name,
      ...(grouped ? [model.runs[i]?.group ?? ''] : []),
      model.runs[i]?.status ?? '',
      r.doc.endpoint.model,
      ...(withWorkers ? [r.doc.workers ? String(r.doc.workers.count) : NOT_AVAILABLE] : []),
      r.doc.importedFrom ? t('{0} (imported)', r.doc.importedFrom.tool) : `${r.doc.tool.name} ${r.doc.tool.version}`,
      formatLabelsText(r.doc.labels),
    ]),
    'runs',
    t,
  );
  const rankingTableOf = rankingTable(model, t);
  const ranking = table(rankingTableOf.columns, rankingTableOf.rows, 'ranking', t);
  const knees = kneeTable(model, t);
  const charts = [...model.charts, model.tradeoff].map((c) => `<figure>${svgLineChart(c, undefined, undefined, t)}</figure>`).join('');
  return htmlPage({
    // Only this page's own style sheet, by its hash: no scripts, no inline style attributes.
    contentSecurityPolicy: `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src data:`,
    title,
    lang: locale,
    head: `<style>${STYLE}</style>`,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="muted">${escapeHtml(runs.length === 1 ? t('1 run, generated {0} by LLM Bench.', formatLocalTime(generatedAt.toISOString())) : t('{0} runs, generated {1} by LLM Bench.', runs.length, formatLocalTime(generatedAt.toISOString())))} ${escapeHtml(t('Load axis: {0}.', t(model.axis)))}${model.groupBy ? ` ${escapeHtml(t('Grouped by {0}.', model.groupBy))}` : ''}</p>
<h2>${escapeHtml(t('Runs'))}</h2>
${runsTable}
<h2>${escapeHtml(t('Ranking'))}</h2>
<p>SLO: ${escapeHtml(sloText(model, t))}. ${escapeHtml(t('Ordered by output tokens per second at the heaviest step that meets it. The knee is where added load stops buying throughput (marked on the charts).'))}</p>
${ranking}
<p class="muted">${escapeHtml(rankingNoiseNote(model, t))}</p>
<h2>${escapeHtml(t('Knees'))}</h2>
${table(knees.columns, knees.rows, 'knees', t)}
<p class="muted">${escapeHtml(t(SERVER_MARKS_NOTE))}</p>
${model.endpoints
  .map(
    (run) => `<h2>${escapeHtml(t('Per endpoint: {0}', run.name))}</h2>
${table(run.table.columns, run.table.rows, 'endpoints', t)}
${run.notes.map((note) => `<p class="muted">${escapeHtml(note)}</p>`).join('\n')}`,
  )
  .join('\n')}
${model.shards
  .map(
    (run) => `<h2>${escapeHtml(t('Shards: {0}', run.name))}</h2>
${run.notes.map((note) => `<p class="muted">${escapeHtml(note)}</p>`).join('\n')}
${table(run.table.columns, run.table.rows, 'shards', t)}`,
  )
  .join('\n')}
<h2>${escapeHtml(t('Curves'))}</h2>
${model.offAxis.length ? `<p class="off-axis">${escapeHtml(t('Not on the {0} axis (no step has a {0}): {1}. Try the other axis.', t(model.axis), model.offAxis.join(', ')))}</p>` : ''}
${legend}
<div class="charts">${charts}</div>
<p class="muted">${escapeHtml(t('TPOT: (latency - TTFT) / (output tokens - 1) per request. ITL: every gap between streamed chunks, pooled (vLLM\'s ITL; GuideLLM\'s "ITL" is our TPOT).'))}</p>
<h2>${escapeHtml(t('Steps'))}</h2>
${runs.map((run) => runTables(run, t)).join('\n')}`,
  });
}
