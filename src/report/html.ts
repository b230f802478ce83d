/**
 * The self-contained HTML report of one run or a comparison: tables and SVG charts in one file,
 * no script, no external resource (its Content Security Policy forbids any), so it opens offline
 * in any browser and shows exactly what was exported.
 */
import { createHash } from 'node:crypto';
import { stepLabel } from '../format/step-name';
import { KNEE_COLUMNS, kneeRows, rankingColumns, rankingNoiseNote, rankingRows, runStepWarnings, SERVER_MARKS_NOTE, type ReportModel, type ReportRun } from '../views/report';
import { markedName, stepWarnings, WARNING_MARK } from '../views/step-warnings';
import { formatLabelsText } from '../views/labels';
import { definitionNotes } from '../views/result';
import { htmlPage } from './page';
import { colorOf, escapeXml as escapeHtml, svgLineChart } from './svg';
import { fixed, msToSec, NOT_AVAILABLE } from '../views/number-format';

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1b1b;background:#fff;margin:24px;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.table-scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:6px 0 12px}tr>:first-child{position:sticky;left:0;background:#fff}th:first-child{background:#f3f3f3}th,td{border:1px solid #d0d0d0;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.muted{color:#666}.notes li{margin:2px 0}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts figure{margin:0;border:1px solid #e2e2e2;padding:6px}
.legend{display:flex;flex-wrap:wrap;gap:14px;padding:0;list-style:none}.swatch{vertical-align:middle;margin-right:6px}
svg .grid{stroke:#eee}svg .axis{stroke:#888}svg .tick{font-size:11px;fill:#555}svg .axis-title{font-size:12px;fill:#333}
svg .chart-title{font-size:13px;font-weight:600;fill:#1b1b1b}svg .knee-label{font-size:11px;font-weight:600}svg .empty{fill:#888}
`;

const cell = (text: string) => `<td>${escapeHtml(text)}</td>`;
const row = (cells: string[]) => `<tr>${cells.map(cell).join('')}</tr>`;
/** A table in a box that scrolls sideways, first column kept in view, so a wide one never runs off the page. */
const table = (header: string[], rows: string[][], attrs = '') =>
  `<div class="table-scroll"><table${attrs}><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.map(row).join('')}</tbody></table></div>`;

function sloText(model: ReportModel): string {
  const parts = [
    model.slo.ttftMs !== undefined ? `TTFT ≤ ${model.slo.ttftMs} ms` : null,
    model.slo.tpotMs !== undefined ? `TPOT ≤ ${model.slo.tpotMs} ms` : null,
    model.slo.e2eMs !== undefined ? `latency ≤ ${model.slo.e2eMs} ms` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? `${parts.join(', ')} (${model.stat} of each step)` : 'no SLO given: every step counts';
}

function runTables(run: ReportRun): string {
  const steps = run.doc.steps.map((step) => {
    const s = step.summary;
    return [
      markedName(stepLabel(step), stepWarnings(step, run.doc.importedFrom !== undefined)),
      s ? `${s.requests.completed} / ${s.requests.failed}` : NOT_AVAILABLE,
      fixed(s?.requestsPerSecond),
      fixed(msToSec(s?.latencyMs?.mean)),
      fixed(s?.ttftMs?.mean),
      fixed(s?.ttftMs?.p99),
      fixed(s?.tpotMs?.mean),
      fixed(s?.itlMs?.mean),
      fixed(s?.outputTokensPerSecond),
    ];
  });
  const listed = [...definitionNotes(run.doc.steps), ...(run.doc.importedFrom?.notes ?? [])];
  const list = listed.length ? `<ul class="notes">${listed.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : '';
  const warned = runStepWarnings(run);
  const warnings = warned.length ? `<ul class="notes step-warnings">${warned.map((n) => `<li>${escapeHtml(`${WARNING_MARK} ${n}`)}</li>`).join('')}</ul>` : '';
  const imported = run.doc.importedFrom;
  const notes = imported
    ? `<p class="muted">Imported from ${escapeHtml(imported.tool)}${imported.version ? ` ${escapeHtml(imported.version)}` : ''} (${escapeHtml(imported.file)}):</p>${list}`
    : list;
  return (
    `<h3>${escapeHtml(run.name)}</h3>` +
    table(['Step', 'OK / failed', 'Requests/s', 'Latency mean (s)', 'TTFT mean (ms)', 'TTFT p99 (ms)', 'TPOT mean (ms)', 'ITL mean (ms)', 'Output tok/s'], steps, ' class="steps"') +
    warnings +
    notes
  );
}

export function renderHtmlReport(model: ReportModel, runs: ReportRun[], title: string, generatedAt = new Date()): string {
  const legend = `<ul class="legend">${model.runs
    .map((r, i) => {
      const dashed = model.charts[0]?.curves[i]?.dashed === true;
      // An SVG line, not a styled span: the page's CSP allows no style attributes.
      const swatch = `<svg class="swatch" width="22" height="4" aria-hidden="true"><line x1="0" y1="2" x2="22" y2="2" stroke="${colorOf(r.color)}" stroke-width="3"${dashed ? ' stroke-dasharray="5 3"' : ''}/></svg>`;
      return `<li>${swatch}${escapeHtml(r.name)}${model.groupBy ? ` <span class="muted">(${escapeHtml(model.groupBy)}: ${escapeHtml(r.group)})</span>` : ''}</li>`;
    })
    .join('')}</ul>`;
  const runsTable = table(
    ['Run', 'Group', 'Status', 'Model', 'Source', 'Labels'],
    runs.map((r, i) => [
      r.name,
      model.runs[i]?.group ?? '',
      model.runs[i]?.status ?? '',
      r.doc.endpoint.model,
      r.doc.importedFrom ? `${r.doc.importedFrom.tool} (imported)` : `${r.doc.tool.name} ${r.doc.tool.version}`,
      formatLabelsText(r.doc.labels),
    ]),
    ' class="runs"',
  );
  const ranking = table(
    rankingColumns(model),
    rankingRows(model),
    ' class="ranking"',
  );
  const charts = [...model.charts, model.tradeoff].map((c) => `<figure>${svgLineChart(c)}</figure>`).join('');
  return htmlPage({
    // Only this page's own style sheet, by its hash: no scripts, no inline style attributes.
    contentSecurityPolicy: `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src data:`,
    title,
    head: `<style>${STYLE}</style>`,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="muted">${runs.length} run${runs.length === 1 ? '' : 's'}, generated ${escapeHtml(generatedAt.toISOString())} by LLM Bench. Load axis: ${model.axis}.${model.groupBy ? ` Grouped by ${escapeHtml(model.groupBy)}.` : ''}</p>
<h2>Runs</h2>
${runsTable}
<h2>Ranking</h2>
<p>SLO: ${escapeHtml(sloText(model))}. Ordered by output tokens per second at the heaviest step that meets it. The knee is where added load stops buying throughput (marked on the charts).</p>
${ranking}
<p class="muted">${escapeHtml(rankingNoiseNote(model))}</p>
<h2>Knees</h2>
${table(KNEE_COLUMNS, kneeRows(model), ' class="knees"')}
<p class="muted">${escapeHtml(SERVER_MARKS_NOTE)}</p>
<h2>Curves</h2>
${model.offAxis.length ? `<p class="off-axis">Not on the ${model.axis} axis (no step has a ${model.axis}): ${escapeHtml(model.offAxis.join(', '))}. Try the other axis.</p>` : ''}
${legend}
<div class="charts">${charts}</div>
<p class="muted">TPOT: (latency - TTFT) / (output tokens - 1) per request. ITL: every gap between streamed chunks, pooled (vLLM's ITL; GuideLLM's "ITL" is our TPOT).</p>
<h2>Steps</h2>
${runs.map(runTables).join('\n')}`,
  });
}
