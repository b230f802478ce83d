/**
 * Text tables of a result: the command line's table of means (the live panel's), and the layouts
 * people already read and publish: the Markdown table of GuideLLM sweeps, EvalScope-style
 * concurrency columns, and vLLM's "Serving Benchmark Result" block (these keep their tools' names,
 * units and fixed decimals, and import reads them back). Values the document lacks print as `n/a`.
 * A run that repeated its profile gets one row (or column) per step, each figure the mean across
 * its repeats ± the half-width of its 95% interval (src/views/repeats.ts); `perRepeat` lists every
 * repeat on its own instead.
 */
import { ttfoStatsOf, type ResultOverview, type Stats, type Step, type StepSummary } from '../format/result';
import { stepLabel } from '../format/step-name';
import { kneeTable, rankingNoiseNote, rankingTable, SERVER_MARKS_NOTE, type ReportModel, type TextTable } from '../views/report';
import { ITL_FOOTNOTE } from '../format/metrics';
import { fixed, formatMetric, isNumber, msToSec, NOT_AVAILABLE, withUnit } from '../views/number-format';
import { localCountsNotes } from '../views/token-counts';
import { endpointLines } from '../views/endpoint-figures';
import { traceNotes, traceTable } from '../views/trace-figures';
import { markedName, olderRatesNote, sayWarning, stepWarningLines, stepWarnings, WARNING_MARK } from '../views/step-warnings';
import { meansTable, requestCountsUnknown, type MeansColumn } from '../views/result-tables';
import { groupByName, hasRepeats, meanInterval } from '../views/repeats';
import { english, type Translate } from '../views/l10n';

/** How the tables lay out a run that repeated its profile. */
export interface TableOptions {
  /** One row per repeat, as the steps are stored, instead of one per step with means across repeats. */
  perRepeat?: boolean;
  /**
   * The language of a report's own tables (src/views/l10n.ts; English by default): the ranking, the
   * knees and the concurrency columns. The GuideLLM-style table keeps GuideLLM's column names, so that
   * import reads it back whatever the language.
   */
  t?: Translate;
}

/** The rows of a table: each step alone, or a repeated step's repeats together under its name. */
function rowGroups<S extends Omit<Step, 'requests'>>(steps: readonly S[], options: TableOptions): { label: string; steps: S[] }[] {
  if (options.perRepeat || !hasRepeats(steps)) return steps.map((step) => ({ label: stepLabel(step), steps: [step] }));
  return groupByName(steps).map(([name, group]) => ({ label: group.length > 1 ? `${name} (${group.length} repeats)` : stepLabel(group[0] as S), steps: group }));
}

/**
 * A figure of a row: its one step's value, or the repeats' mean ± the half-width of its 95%
 * interval (a repeat without the value is left out of it). `unit`: written after the number(s).
 */
function figureOf(values: readonly (number | null | undefined)[], unit?: string, digits = 2): string {
  const shown = (value: number | null | undefined): string => (unit === undefined ? fixed(value, digits) : withUnit(value, unit, digits));
  if (values.length === 1) return shown(values[0]);
  const interval = meanInterval(values.filter(isNumber));
  if (interval === null) return NOT_AVAILABLE;
  return interval.halfWidth === null ? shown(interval.mean) : `${fixed(interval.mean, digits)} ± ${shown(interval.halfWidth)}`;
}

/** What a table of a repeated run says under it about its ± figures. */
function repeatsNote(steps: readonly Omit<Step, 'requests'>[], options: TableOptions): string[] {
  const t = options.t ?? english;
  return !options.perRepeat && hasRepeats(steps)
    ? [t("A repeated step's figures are the mean of its repeats' values ± the half-width of its 95% Student's t interval (--per-repeat lists each repeat).")]
    : [];
}

const mean = (stats: Stats | null | undefined): number | null => stats?.mean ?? null;

/** A column of the GuideLLM-style Markdown table: its head, the unit after each value, and the value from a step's summary. */
interface HeadlineColumn {
  markdown: string;
  unit: string;
  value: (summary: StepSummary | null) => number | null;
}

const HEADLINE: Record<'requests' | 'latency' | 'ttft' | 'ttfo' | 'reasoningTokens' | 'itl' | 'output' | 'embeddings' | 'input', HeadlineColumn> = {
  requests: { markdown: 'Requests per Second', unit: 'req/sec', value: (s) => s?.requestsPerSecond ?? null },
  latency: { markdown: 'Request Latency', unit: 'sec', value: (s) => msToSec(mean(s?.latencyMs)) },
  ttft: { markdown: 'Time to First Token', unit: 'ms', value: (s) => mean(s?.ttftMs) },
  ttfo: { markdown: 'Time to First Output Token', unit: 'ms', value: (s) => (s ? mean(ttfoStatsOf(s)) : null) },
  reasoningTokens: { markdown: 'Reasoning Tokens', unit: 'tokens', value: (s) => mean(s?.reasoningTokens) ?? (s?.outputTokens ? 0 : null) },
  itl: { markdown: 'Inter Token Latency', unit: 'ms', value: (s) => mean(s?.tpotMs) },
  output: { markdown: 'Output Token Throughput', unit: 'tokens/second', value: (s) => s?.outputTokensPerSecond ?? null },
  embeddings: { markdown: 'Embeddings per Second', unit: 'embeddings/second', value: (s) => s?.embeddingsPerSecond ?? null },
  input: { markdown: 'Input Token Throughput', unit: 'tokens/second', value: (s) => s?.inputTokensPerSecond ?? null },
};

/**
 * The Markdown table's columns for these steps: GuideLLM's (with TTFO and the mean reasoning
 * tokens when a step reasoned), or, for embeddings, the figures an embeddings run has (no stream,
 * no output).
 */
function headlineColumns(doc: ResultOverview): { columns: HeadlineColumn[]; footnote: string } {
  const summaries = doc.steps.map((step) => step.summary);
  if (summaries.some((s) => s?.embeddingsPerSecond !== undefined)) {
    return { columns: [HEADLINE.requests, HEADLINE.latency, HEADLINE.embeddings, HEADLINE.input], footnote: 'Latency is the mean over successful requests. Embeddings have no stream: no TTFT, ITL or output tokens.' };
  }
  if (!summaries.some((s) => s?.ttfoMs !== undefined)) {
    return { columns: [HEADLINE.requests, HEADLINE.latency, HEADLINE.ttft, HEADLINE.itl, HEADLINE.output], footnote: ITL_FOOTNOTE };
  }
  const footnote = `Latency, TTFT, TTFO (the first answer token, reasoning left out), reasoning tokens and ITL are means over successful requests. ${ITL_FOOTNOTE}`;
  return { columns: [HEADLINE.requests, HEADLINE.latency, HEADLINE.ttft, HEADLINE.ttfo, HEADLINE.reasoningTokens, HEADLINE.itl, HEADLINE.output], footnote };
}

/** Pads each column to its widest cell: the first column left-aligned, numbers right-aligned. */
function alignColumns(rows: string[][], separator = ' | '): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(separator).trimEnd(),
  );
}

/** A cell of the table of means for a row: its one step's, or its repeats' mean ± the half-width of their 95% interval (requests: summed). */
function meansCell(column: MeansColumn, summaries: readonly (StepSummary | null)[]): string {
  const present = summaries.filter((s): s is StepSummary => s !== null);
  if (summaries.length === 1) return present[0] ? column.cell(present[0]) : NOT_AVAILABLE;
  if (column.figure === undefined) {
    return `${present.reduce((n, s) => n + s.requests.completed, 0)} / ${present.reduce((n, s) => n + s.requests.failed, 0)}`;
  }
  const { metric, value } = column.figure;
  const interval = meanInterval(present.map(value).filter(isNumber));
  if (interval === null) return NOT_AVAILABLE;
  return interval.halfWidth === null ? formatMetric(metric, interval.mean) : `${formatMetric(metric, interval.mean)} ± ${formatMetric(metric, interval.halfWidth)}`;
}

/**
 * The table of means the command line prints after a run or an import: the live panel's table
 * (src/views/result-tables.ts meansTable: with TTFO when a step reasoned), in the same names, units
 * and figures, aligned as text; a repeated step's row gives the means across its repeats.
 */
export function formatTerminalTable(doc: ResultOverview, options: TableOptions = {}): string {
  const { columns, footnote } = meansTable(doc.steps.map((step) => step.summary));
  const header = ['Benchmark', ...columns.map(({ column: c }) => (c.unit ? `${c.label} (${c.unit})` : c.label))];
  const rows = rowGroups(doc.steps, options).map(({ label, steps }) => [markedLabel(doc, label, steps), ...columns.map((c) => meansCell(c, steps.map((step) => step.summary)))]);
  const [headerLine = '', ...bodyLines] = alignColumns([header, ...rows]);
  const rule = '-'.repeat(headerLine.length);
  return [headerLine, rule, ...bodyLines, rule, footnote, ...repeatsNote(doc.steps, options), ...localCountsNotes(doc.steps, stepLabel), ...workersLines(doc), ...warningLines(doc)].join('\n') + '\n';
}

/** A row's label with the warning mark when one of its steps (one of a repeated step's repeats) has warnings. */
function markedLabel(doc: ResultOverview, label: string, steps: readonly Omit<Step, 'requests'>[]): string {
  const imported = doc.importedFrom !== undefined;
  return markedName(label, steps.flatMap((step) => stepWarnings(step, imported)));
}

/** Under a table of a run's steps: its workers, when more than one (why, in the table's language). */
function workersLines(doc: ResultOverview, t: Translate = english): string[] {
  return doc.workers && doc.workers.count > 1 ? [t('Workers: {0} ({1}).', doc.workers.count, sayWarning(doc.workers.reason, t))] : [];
}

/** The steps' warnings under a table, each marked, and the rate definition of a file written before steady windows. */
function warningLines(doc: ResultOverview, t: Translate = english): string[] {
  const imported = doc.importedFrom !== undefined;
  const rates = olderRatesNote(doc.steps, imported);
  return [
    ...(rates ? [t(rates)] : []),
    ...stepWarningLines(doc.steps.map((step) => ({ ...step, label: stepLabel(step) })), imported).map((line) => `${WARNING_MARK} ${sayWarning(line, t)}`),
  ];
}

/**
 * What a terminal shows after the step table of a run over several endpoints or of a trace: each
 * step's figures per endpoint beside its total (and what failover did), and each trace step's
 * replay (rows left out, send lateness). Empty for other runs.
 */
export function formatRunDetails(doc: ResultOverview): string {
  const lines: string[] = [];
  const trace = traceTable(doc.steps);
  if (trace !== null) {
    const header = trace.columns.map((c) => (c.unit ? `${c.label} (${c.unit})` : c.label));
    const [headerLine = '', ...body] = alignColumns([header, ...trace.rows]);
    lines.push('Trace replay (send lateness: sent minus recorded time, scaled):', headerLine, '-'.repeat(headerLine.length), ...body, ...traceNotes(doc.steps), '');
  }
  const endpoints = endpointLines(doc, (rows) => alignColumns(rows));
  if (endpoints.length > 0) lines.push(...endpoints, '');
  return lines.length === 0 ? '' : `\n${lines.join('\n')}`;
}

// A `|` inside a cell (a run named `a|b`) would split it: Markdown escapes it with a backslash.
// A cell's stacked lines (a step over its load) are one line in Markdown, joined by a comma.
const markdownRow = (cells: string[]): string => `| ${cells.map((c) => c.replace(/\|/g, '\\|').replace(/\n/g, ', ')).join(' | ')} |`;

function markdownTable(header: string[], rows: string[][]): string {
  return [markdownRow(header), markdownRow(header.map(() => '---')), ...rows.map(markdownRow)].join('\n');
}

export function formatMarkdownTable(doc: ResultOverview, options: TableOptions = {}): string {
  const { columns, footnote } = headlineColumns(doc);
  const header = ['Benchmark', ...columns.map((c) => c.markdown)];
  const rows = rowGroups(doc.steps, options).map(({ label, steps }) => [markedLabel(doc, label, steps), ...columns.map((c) => figureOf(steps.map((step) => c.value(step.summary)), c.unit))]);
  const warnings = warningLines(doc, options.t);
  return [
    markdownTable(header, rows),
    // The table keeps GuideLLM's column names (import reads them back); what is said under it is in the report's language.
    (options.t ?? english)(footnote),
    ...repeatsNote(doc.steps, options),
    ...localCountsNotes(doc.steps, stepLabel, options.t),
    ...workersLines(doc, options.t),
    ...(warnings.length > 0 ? [warnings.map((w) => `- ${w}`).join('\n')] : []),
  ].join('\n\n') + '\n';
}

/** A step's column heading in the concurrency layout: its parallel level, else its rate, else its name. */
export function loadLevelLabel(step: Omit<Step, 'requests'>): string {
  const { profile } = step;
  if (profile.kind === 'synchronous') return '1';
  if (profile.concurrency !== undefined) return String(profile.concurrency);
  if (profile.rate !== undefined) return `${profile.rate} req/s`;
  return step.name;
}

export function formatConcurrencyColumnsMarkdown(doc: ResultOverview, options: TableOptions = {}): string {
  const t = options.t ?? english;
  const columns = rowGroups(doc.steps, options).map(({ steps }) => ({ heading: steps.length > 1 ? t('{0} ({1} repeats)', loadLevelLabel(steps[0] as Omit<Step, 'requests'>), steps.length) : loadLevelLabel(steps[0] as Omit<Step, 'requests'>), summaries: steps.map((step) => step.summary) }));
  const row = (label: string, value: (s: StepSummary | null) => number | null | undefined, unit: string, digits = 2) => [t(label), ...columns.map((c) => figureOf(c.summaries.map(value), unit, digits))];
  const count = (summaries: (StepSummary | null)[], pick: (s: StepSummary) => number) => summaries.reduce((n, s) => n + (s ? pick(s) : 0), 0);
  const rows = [
    row('Time taken', (s) => s?.durationSec, 's'),
    row('QPS', (s) => s?.requestsPerSecond, 'req/s'),
    row('Average latency', (s) => msToSec(s?.latencyMs?.mean), 's', 3),
    row('Output throughput', (s) => s?.outputTokensPerSecond, 'tok/s'),
    row('Latency p50', (s) => msToSec(s?.latencyMs?.p50), 's', 3),
    row('Latency p90', (s) => msToSec(s?.latencyMs?.p90), 's', 3),
        [
      t('Failures'),
      ...columns.map((c) => {
        const summaries = c.summaries.filter((s): s is StepSummary => s !== null);
        if (summaries.length === 0) return NOT_AVAILABLE;
        // An imported step that gives rates but no request counts: its counts are unknown, not 0 of 0.
        if (summaries.every((s) => requestCountsUnknown(s.requests, [s.requestsPerSecond, s.outputTokensPerSecond]))) return t('unknown');
        return t('{0} of {1}', count(c.summaries, (s) => s.requests.failed), count(c.summaries, (s) => s.requests.total));
      }),
    ],
  ];
  return markdownTable([t('Concurrency'), ...columns.map((c) => c.heading)], rows) + '\n';
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
  for (const warning of stepWarnings(step, doc.importedFrom !== undefined)) lines.push(`${WARNING_MARK} ${warning.message}`);
  lines.push('='.repeat(VLLM_WIDTH));
  return lines.join('\n') + '\n';
}

/** A view's table (src/views/report.ts TextTable) in Markdown: each head with its unit, a cell's stacked lines on one line. */
function markdownTextTable(table: TextTable, t: Translate): string {
  return markdownTable(table.columns.map((c) => (c.unit ? `${t(c.label)} (${t(c.unit)})` : t(c.label))), table.rows);
}

/**
 * The ranking and the knee table of a many-run report in Markdown: the report view's and the HTML
 * export's tables (the same columns, names and figures), with what they say under them, then each
 * run's figures per endpoint for runs over several.
 */
export function formatRankingMarkdown(model: ReportModel, t: Translate = english): string {
  const endpoints = model.endpoints.map((run) => `\n## ${t('Per endpoint: {0}', run.name)}\n\n${markdownTextTable(run.table, t)}\n${run.notes.map((note) => `\n${note}`).join('')}\n`);
  return `${markdownTextTable(rankingTable(model, t), t)}\n\n${rankingNoiseNote(model, t)}\n\n${markdownTextTable(kneeTable(model, t), t)}\n\n${t(SERVER_MARKS_NOTE)}\n${endpoints.join('')}`;
}

/** The Markdown report of many runs: the title, the ranking and knees, then each run's tables; in `options.t`'s language. */
export function formatMarkdownReport(model: ReportModel, runs: readonly { name: string; doc: ResultOverview }[], title: string, options: TableOptions = {}): string {
  return [`# ${title}`, formatRankingMarkdown(model, options.t), ...runs.map((r) => `## ${r.name}\n\n${formatMarkdownTable(r.doc, options)}\n${formatConcurrencyColumnsMarkdown(r.doc, options)}`)].join('\n\n');
}
