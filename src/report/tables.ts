/**
 * Text tables of a result in the layouts people already read and publish: a terminal table in
 * GuideLLM's style, the Markdown table of GuideLLM sweeps, EvalScope-style concurrency columns,
 * and vLLM's "Serving Benchmark Result" block. Values the document lacks print as `n/a`.
 */
import type { ResultOverview, Stats, Step, StepSummary } from '../format/result';
import { stepLabel } from '../format/step-name';
import { KNEE_COLUMNS, kneeRows, rankingNoiseNote, rankText, SERVER_MARKS_NOTE, type ReportModel } from '../views/report';
import { ITL_FOOTNOTE } from '../format/metrics';
import { fixed, isNumber, msToSec, NOT_AVAILABLE, withUnit } from '../views/number-format';
import { requestCountsUnknown } from '../views/result-tables';

const mean = (stats: Stats | null | undefined): number | null => stats?.mean ?? null;

/** The per-step values shared by the GuideLLM-style tables. */
function headlineOf(summary: StepSummary | null) {
  return {
    requestsPerSecond: summary?.requestsPerSecond ?? null,
    latencySec: msToSec(mean(summary?.latencyMs)),
    ttftMs: mean(summary?.ttftMs),
    itlMs: mean(summary?.tpotMs),
    outputTokensPerSecond: summary?.outputTokensPerSecond ?? null,
  };
}

/** Pads each column to its widest cell: the first column left-aligned, numbers right-aligned. */
function alignColumns(rows: string[][], separator = ' | '): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(separator).trimEnd(),
  );
}

export function formatTerminalTable(doc: ResultOverview): string {
  const header = ['Benchmark', 'Requests/s', 'Latency (s)', 'TTFT (ms)', 'ITL (ms)', 'Output tok/s'];
  const rows = doc.steps.map((step) => {
    const h = headlineOf(step.summary);
    return [stepLabel(step), fixed(h.requestsPerSecond), fixed(h.latencySec), fixed(h.ttftMs), fixed(h.itlMs), fixed(h.outputTokensPerSecond)];
  });
  const [headerLine = '', ...bodyLines] = alignColumns([header, ...rows]);
  const rule = '-'.repeat(headerLine.length);
  return [headerLine, rule, ...bodyLines, rule, 'Latency, TTFT and ITL are means over successful requests. ' + ITL_FOOTNOTE].join('\n') + '\n';
}

// A `|` inside a cell (a run named `a|b`) would split it: Markdown escapes it with a backslash.
const markdownRow = (cells: string[]): string => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;

function markdownTable(header: string[], rows: string[][]): string {
  return [markdownRow(header), markdownRow(header.map(() => '---')), ...rows.map(markdownRow)].join('\n');
}

export function formatMarkdownTable(doc: ResultOverview): string {
  const header = [
    'Benchmark',
    'Requests per Second',
    'Request Latency',
    'Time to First Token',
    'Inter Token Latency',
    'Output Token Throughput',
  ];
  const rows = doc.steps.map((step) => {
    const h = headlineOf(step.summary);
    return [
      stepLabel(step),
      withUnit(h.requestsPerSecond, 'req/sec'),
      withUnit(h.latencySec, 'sec'),
      withUnit(h.ttftMs, 'ms'),
      withUnit(h.itlMs, 'ms'),
      withUnit(h.outputTokensPerSecond, 'tokens/second'),
    ];
  });
  return `${markdownTable(header, rows)}\n\n${ITL_FOOTNOTE}\n`;
}

/** A step's column heading in the concurrency layout: its parallel level, else its rate, else its name. */
export function loadLevelLabel(step: Omit<Step, 'requests'>): string {
  const { profile } = step;
  if (profile.kind === 'synchronous') return '1';
  if (profile.concurrency !== undefined) return String(profile.concurrency);
  if (profile.rate !== undefined) return `${profile.rate} req/s`;
  return step.name;
}

export function formatConcurrencyColumnsMarkdown(doc: ResultOverview): string {
  const summaries = doc.steps.map((step) => step.summary);
  const row = (label: string, cell: (s: StepSummary | null) => string) => [label, ...summaries.map(cell)];
  const rows = [
    row('Time taken', (s) => withUnit(s?.durationSec, 's')),
    row('QPS', (s) => withUnit(s?.requestsPerSecond, 'req/s')),
    row('Average latency', (s) => withUnit(msToSec(s?.latencyMs?.mean), 's', 3)),
    row('Output throughput', (s) => withUnit(s?.outputTokensPerSecond, 'tok/s')),
    row('Latency p50', (s) => withUnit(msToSec(s?.latencyMs?.p50), 's', 3)),
    row('Latency p90', (s) => withUnit(msToSec(s?.latencyMs?.p90), 's', 3)),
    row('Failures', (s) => (!s ? NOT_AVAILABLE : requestCountsUnknown(s.requests, [s.requestsPerSecond, s.outputTokensPerSecond]) ? 'unknown' : `${s.requests.failed} of ${s.requests.total}`)),
  ];
  return markdownTable(['Concurrency', ...doc.steps.map(loadLevelLabel)], rows) + '\n';
}

// vLLM prints `{:<40} {:<10}`-formatted lines under 50-character centred headings.
const VLLM_WIDTH = 50;

function vllmHeading(title: string, fill: string): string {
  const padding = Math.max(0, VLLM_WIDTH - title.length);
  const left = Math.floor(padding / 2);
  return fill.repeat(left) + title + fill.repeat(padding - left);
}

const vllmLine = (label: string, value: string): string => `${label.padEnd(40)} ${value.padEnd(10)}`;

/** Total tokens of successful requests: from the per-request mean and count, else from throughput x duration. */
function tokenTotal(summary: StepSummary, which: 'input' | 'output'): number | null {
  const stats = which === 'input' ? summary.inputTokens : summary.outputTokens;
  if (stats && isNumber(stats.count)) return Math.round(stats.mean * stats.count);
  const duration = summary.durationSec;
  const output = summary.outputTokensPerSecond;
  if (!isNumber(duration) || !isNumber(output)) return null;
  if (which === 'output') return Math.round(output * duration);
  return isNumber(summary.totalTokensPerSecond) ? Math.round((summary.totalTokensPerSecond - output) * duration) : null;
}

const VLLM_METRICS = [
  { key: 'ttftMs', short: 'TTFT', title: 'Time to First Token' },
  { key: 'tpotMs', short: 'TPOT', title: 'Time per Output Token (excl. 1st token)' },
  { key: 'itlMs', short: 'ITL', title: 'Inter-token Latency' },
  { key: 'latencyMs', short: 'E2EL', title: 'End-to-end Latency' },
] as const;

export function formatVllmBlock(doc: ResultOverview, stepIndex: number): string {
  const step = doc.steps[stepIndex];
  if (!step) throw new RangeError(`step ${stepIndex} does not exist (the result has ${doc.steps.length} steps)`);
  const summary = step.summary;
  const lines = [vllmHeading(' Serving Benchmark Result ', '=')];
  if (!summary) {
    lines.push(vllmLine('Successful requests:', NOT_AVAILABLE), `(step "${step.name}" has no summary: it did not finish)`);
  } else {
    const count = (n: number | null) => (n === null ? NOT_AVAILABLE : String(n));
    lines.push(vllmLine('Successful requests:', String(summary.requests.completed)));
    lines.push(vllmLine('Failed requests:', String(summary.requests.failed)));
    if (step.profile.concurrency !== undefined) lines.push(vllmLine('Maximum request concurrency:', String(step.profile.concurrency)));
    if (step.profile.rate !== undefined) lines.push(vllmLine('Request rate configured (RPS):', fixed(step.profile.rate)));
    lines.push(vllmLine('Benchmark duration (s):', fixed(summary.durationSec)));
    lines.push(vllmLine('Total input tokens:', count(tokenTotal(summary, 'input'))));
    lines.push(vllmLine('Total generated tokens:', count(tokenTotal(summary, 'output'))));
    lines.push(vllmLine('Request throughput (req/s):', fixed(summary.requestsPerSecond)));
    if (isNumber(summary.goodput)) lines.push(vllmLine('Request goodput (req/s):', fixed(summary.goodput)));
    lines.push(vllmLine('Output token throughput (tok/s):', fixed(summary.outputTokensPerSecond)));
    if (summary.peakOutputTokensPerSecond !== undefined) {
      lines.push(vllmLine('Peak output token throughput (tok/s):', fixed(summary.peakOutputTokensPerSecond)));
    }
    lines.push(vllmLine('Total token throughput (tok/s):', fixed(summary.totalTokensPerSecond)));
    for (const metric of VLLM_METRICS) {
      const stats = summary[metric.key];
      lines.push(vllmHeading(metric.title, '-'));
      lines.push(vllmLine(`Mean ${metric.short} (ms):`, fixed(stats?.mean)));
      lines.push(vllmLine(`Median ${metric.short} (ms):`, fixed(stats?.p50)));
      lines.push(vllmLine(`P99 ${metric.short} (ms):`, fixed(stats?.p99)));
    }
  }
  lines.push('='.repeat(VLLM_WIDTH));
  return lines.join('\n') + '\n';
}

/** The ranking of a many-run report as a Markdown table. */
export function formatRankingMarkdown(model: ReportModel): string {
  const rows = model.ranking.map((r) => [
    rankText(r),
    r.name,
    r.step ?? 'none',
    withUnit(r.requestsPerSecond, 'req/sec'),
    withUnit(r.outputTokensPerSecond, 'tokens/second'),
    withUnit(r.ttftMs, 'ms'),
    withUnit(r.tpotMs, 'ms'),
    model.knees[r.run]?.step ?? 'none',
  ]);
  const header = ['Rank', 'Run', 'Heaviest step meeting the SLO', 'Requests per Second', 'Output Token Throughput', `TTFT ${model.stat}`, `TPOT ${model.stat}`, 'Knee'];
  return `${markdownTable(header, rows)}\n\n${rankingNoiseNote(model)}\n\n${markdownTable(KNEE_COLUMNS, kneeRows(model))}\n\n${SERVER_MARKS_NOTE}\n`;
}
