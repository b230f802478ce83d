/**
 * Benchmark printouts inside any text (a console log, a Markdown page of notes, pasted text):
 *  - vLLM's "Serving Benchmark Result" block (benchmark_serving.py and `vllm bench serve`, every
 *    version's lines), with the "Maximum request concurrency" / "Traffic request rate" lines
 *    printed above it;
 *  - EvalScope perf's "Benchmarking summary", as `Key: value` lines (with the older printout's
 *    "Percentile of ..." lines) or a tabulate grid, and its "Percentile results" table;
 *  - benchmark tables, read by what their headings name (text-benchmark-table.ts): GuideLLM's as
 *    its console prints them (rich panels included) or copied into Markdown, and users' own, in
 *    English or Chinese, transposed or not.
 * A vLLM or EvalScope block is turned into the JSON record that tool would have saved and read
 * by the same importer as its files, so a figure means the same from a file and from a log.
 * Lines naming a model, GPUs, engine or token lengths give the labels of the blocks under them;
 * consecutive blocks of one tool under one context are the steps of one run.
 */
import { fillPlaceholders } from '../format/warning-text';
import { IMPORT_NOTE_TEXT } from '../format/import-note-text';
import type { Labels } from '../format/config';
import { PERCENTILES, type ParseOutcome, type ResultDocument, type StepProfile } from '../format/result';
import { importedResult, importedStep, importFailure, statsFrom, type ImportInput, type PartialStats } from './common';
import { EVALSCOPE_TOOL, importEvalscope, SUMMARY as EVALSCOPE_SUMMARY } from './evalscope';
import type { ImportedPart } from './index';
import { joinReadings, readBenchmarkTable, tableRuns, type TableReading } from './text-benchmark-table';
import { namesRun, plainText, readLineContext } from './text-context';
import { isTableLine, readFigure, readTable, toMs, unitInName, type TextTable } from './text-tables';
import { importVllm, VLLM_TOOL } from './vllm';

/** What the lines above a block said about its load. */
interface StepHints {
  concurrency?: number;
  requests?: number;
  rate?: number | 'inf';
  burstiness?: number;
}

/**
 * A block read from the text: a one-document import of it, the lines it spans and the line of each
 * step (0-based); a table's rows may state labels, and rows that differ in them are runs apart.
 */
interface Block {
  doc: ResultDocument;
  firstLine: number;
  lastLine: number;
  stepLines: number[];
  labels?: Labels;
  groupKey?: string;
}

type BlockOutcome = ParseOutcome<Block>;

const LABEL_GROUPS = [['model', 'quantization'], ['gpus', 'gpu', 'tp']];

const VLLM_START = /=+\s*Serving Benchmark Result\s*=+/i;
const EVALSCOPE_START = /Benchmarking summary\s*:?\s*$/i;

/** vLLM block lines to the keys of its `--save-result` JSON. */
const VLLM_FIELDS: [RegExp, string][] = [
  [/^Successful requests$/i, 'completed'],
  [/^Failed requests$/i, 'failed'],
  [/^Max(imum)? request concurrency$/i, 'max_concurrency'],
  [/^Traffic request rate$/i, 'request_rate'],
  [/^Request rate configured/i, 'request_rate'],
  [/^Benchmark duration/i, 'duration'],
  [/^Total input tokens$/i, 'total_input_tokens'],
  [/^Total generated tokens$/i, 'total_output_tokens'],
  [/^Request throughput/i, 'request_throughput'],
  [/^Request goodput/i, 'request_goodput'],
  [/^Output token throughput/i, 'output_throughput'],
  [/^Peak output token throughput/i, 'max_output_tokens_per_s'],
  [/^Total token throughput/i, 'total_token_throughput'],
];
const VLLM_STAT = /^(Mean|Median|Std|Min|Max|P\d+(?:\.\d+)?)\s+(TTFT|TPOT|ITL|E2EL|E2E Latency)\b/i;

/**
 * SGLang's bench_serving, forked from vLLM's benchmark_serving, prints the same titled block with
 * lines of its own: its client backend, retokenized output, mean concurrency, "E2E Latency".
 */
export const SGLANG_TOOL = 'SGLang bench_serving';
const SGLANG_LINE = /^(Backend|Total generated tokens \(retokenized\)|Concurrency|(Mean|Median|P\d+) E2E Latency \(ms\))$/i;

/** A `Label: value` line; the label keeps its unit in parentheses. */
const KEY_VALUE = /^\s*([^:：]+?)\s*[:：]\s*(.*?)\s*$/;

/** Cells the importer could not read as a number: kept out of the figures and named in the notes. */
type Unreadable = string[];

function vllmValue(key: string, label: string, raw: string, unreadable: Unreadable, lineNo: number): number | string | undefined {
  if (key === 'request_rate' && /^inf/i.test(raw.trim())) return 'inf';
  // No concurrency limit is printed as None (vLLM) or unlimited.
  if (key === 'max_concurrency' && /^(none|unlimited|inf)$/i.test(raw.trim())) return undefined;
  const figure = readFigure(raw);
  if (!figure || !Number.isFinite(figure.value)) {
    unreadable.push(`line ${lineNo + 1}: "${label}: ${raw}"`);
    return undefined;
  }
  return figure.value;
}

/** The vLLM block from its "Serving Benchmark Result" line to the closing `=====` line. */
function readVllmBlock(lines: readonly string[], start: number, hints: StepHints, input: ImportInput): BlockOutcome {
  const record: Record<string, unknown> = {};
  const unreadable: Unreadable = [];
  const outsideOurSet: string[] = [];
  let sglang = false;
  let meanConcurrency: number | null = null;
  // What stands before the block's title (a log line's prefix, a comment `# `) stands before each
  // of its lines: it is cut off, so it is not read as part of a label.
  const title = lines[start] ?? '';
  const prefix = title.slice(0, title.search(VLLM_START));
  let end = start + 1;
  let closed = false;
  for (; end < lines.length; end++) {
    const line = lines[end] ?? '';
    const text = plainText(prefix && line.startsWith(prefix) ? line.slice(prefix.length) : line).replace(/^#\s*/, '');
    if (/^=+$/.test(text)) {
      closed = true;
      break;
    }
    if (/^-+.*-+$/.test(text)) continue;
    const m = text.match(KEY_VALUE);
    if (!m) break;
    const [, label = '', raw = ''] = m;
    if (SGLANG_LINE.test(label)) sglang = true;
    if (/^Concurrency$/i.test(label)) meanConcurrency = readFigure(raw)?.value ?? null;
    const stat = label.match(VLLM_STAT);
    if (stat) {
      const scale = toMs(unitInName(label)) ?? 1;
      const value = vllmValue('', label, raw, unreadable, end);
      const name = (stat[1] ?? '').toLowerCase();
      const percentile = name.startsWith('p') ? Number(name.slice(1)) : null;
      if (typeof value !== 'number') continue;
      if (percentile !== null && !(PERCENTILES as readonly number[]).includes(percentile)) outsideOurSet.push(`${label} ${raw.trim()}`);
      else record[`${name}_${(stat[2] ?? '').toLowerCase().replace('e2e latency', 'e2el')}_ms`] = value * scale;
      continue;
    }
    const field = VLLM_FIELDS.find(([pattern]) => pattern.test(label))?.[1];
    if (!field) continue;
    const value = vllmValue(field, label, raw, unreadable, end);
    if (value !== undefined) record[field] = field === 'duration' ? (value as number) * ((toMs(unitInName(label)) ?? 1000) / 1000) : value;
  }
  record['max_concurrency'] ??= hints.concurrency;
  record['request_rate'] ??= hints.rate;
  record['burstiness'] ??= hints.burstiness;
  record['num_prompts'] ??= hints.requests;
  const outcome = importVllm({ path: input.path, text: '' }, record);
  if (!outcome.ok) return importFailure(`${input.path} line ${start + 1}: a vLLM "Serving Benchmark Result" block without TTFT, TPOT, ITL or E2EL statistics.`);
  if (outsideOurSet.length) outcome.value.importedFrom?.notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.text.percentilesOutside, [outsideOurSet.join('; ')]));
  const summary = outcome.value.steps[0]?.summary;
  if (summary && meanConcurrency !== null && Number.isFinite(meanConcurrency) && meanConcurrency >= 0) summary.achievedConcurrency = meanConcurrency;
  if (sglang && outcome.value.importedFrom) {
    outcome.value.tool = { ...outcome.value.tool, name: `${SGLANG_TOOL} (imported)` };
    outcome.value.labels = { ...outcome.value.labels, source: SGLANG_TOOL };
    outcome.value.importedFrom = {
      ...outcome.value.importedFrom,
      tool: SGLANG_TOOL,
      notes: [
        IMPORT_NOTE_TEXT.text.sglang,
        ...outcome.value.importedFrom.notes,
      ],
    };
  }
  // A block cut before its closing ===== line ends at its last figure.
  const lastLine = closed ? end : end - 1;
  return { ok: true, value: { doc: withUnreadable(outcome.value, unreadable), firstLine: start, lastLine, stepLines: [start] } };
}

/** EvalScope summary names as printed: with their unit, without it (older line form), and older spellings. */
const EVALSCOPE_ALIASES: Record<string, string> = {
  'average qps': 'Request throughput (req/s)',
  'throughput(average output tokens per second)': 'Output token throughput (tok/s)',
};

/** The JSON key a printed EvalScope name stands for, and the unit that key is in. */
function evalscopeKey(printed: string): { key: string; unit: string | null } | null {
  const wanted = printed.trim().toLowerCase();
  const alias = EVALSCOPE_ALIASES[wanted];
  if (alias) return { key: alias, unit: unitInName(alias) };
  for (const { legacy, current } of Object.values(EVALSCOPE_SUMMARY)) {
    for (const [key] of [legacy, current]) {
      const bare = key.replace(/\s*\([^)]*\)\s*$/, '').toLowerCase();
      if (key.toLowerCase() === wanted || bare === wanted) return { key, unit: unitInName(key) };
    }
  }
  return null;
}

/** A printed EvalScope value in the unit of its JSON key (the older line form prints "10.7 seconds"). */
function evalscopeValue(raw: string, keyUnit: string | null, printedName: string): number | null {
  const figure = readFigure(raw);
  if (!figure || !Number.isFinite(figure.value)) return null;
  const from = toMs(figure.unit) ?? toMs(unitInName(printedName));
  const to = toMs(keyUnit);
  return from !== null && to !== null ? (figure.value * from) / to : figure.value;
}

/**
 * EvalScope before its November 2024 rewrite (evalscope/perf/http_client.py) printed the summary
 * as lines, then each percentile as an indented `p50: 3.2461` line (seconds) under
 * "Percentile of time to first token:" and "Percentile of request latency:".
 */
const EVALSCOPE_PERCENTILE_TITLE = /^Percentile of (time to first token|request latency)\s*:?\s*$/i;
const EVALSCOPE_PACKAGES = 'Average package per request';

function readEvalscopeBlock(lines: readonly string[], start: number, hints: StepHints, context: Labels, input: ImportInput): BlockOutcome {
  const record: Record<string, unknown> = {};
  const unreadable: Unreadable = [];
  let rows: Record<string, unknown>[] | undefined;
  // The older printout's percentile lines, as the rows of a benchmark_percentile.json.
  const printedPercentiles = new Map<string, Record<string, unknown>>();
  let percentileColumn: string | null = null;
  let printedAsLines = false;
  let line = start + 1;
  // The block ends at its last figure, not at the blank lines after it.
  let lastLine = start;
  const take = (name: string, raw: string, at: number) => {
    const target = evalscopeKey(name);
    if (!target) return;
    const value = evalscopeValue(raw, target.unit, name);
    if (value === null) unreadable.push(`line ${at + 1}: "${name}: ${raw}"`);
    else record[target.key] = value;
  };
  while (line < lines.length) {
    const text = lines[line] ?? '';
    if (isTableLine(text)) {
      const table = readTable(lines, line);
      if (!table) break;
      const percentileColumn = table.columns.findIndex((c) => /^Percentiles?$/i.test(c));
      if (percentileColumn >= 0) rows = percentileRows(table, percentileColumn, unreadable);
      else for (const row of table.rows) take(row.cells[0] ?? '', row.cells[1] ?? '', row.line);
      // A grid's header row is a figure too when the grid has no Key/Value header ("| Time taken ... | 10.7 |").
      if (percentileColumn < 0 && table.columns.length === 2 && !/^key$/i.test(table.columns[0] ?? '')) take(table.columns[0] ?? '', table.columns[1] ?? '', table.firstLine);
      lastLine = table.lastLine;
      line = table.lastLine + 1;
      continue;
    }
    const plain = plainText(text);
    if (plain === '' || /Percentile results\s*:?$/i.test(plain)) {
      line++;
      continue;
    }
    const title = plain.match(EVALSCOPE_PERCENTILE_TITLE);
    const percentile = percentileColumn ? plain.match(/^p(\d{1,2})\s*:\s*(.*)$/i) : null;
    if (title || percentile || /^Too little data to calculate quantiles/i.test(plain)) {
      if (title) percentileColumn = /first token/i.test(title[1] ?? '') ? 'TTFT (s)' : 'Latency (s)';
      else if (percentile && percentileColumn) {
        const figure = readFigure(percentile[2] ?? '');
        const label = `${percentile[1]}%`;
        const row = printedPercentiles.get(label) ?? { Percentiles: label };
        if (figure && Number.isFinite(figure.value)) row[percentileColumn] = figure.value;
        else unreadable.push(`line ${line + 1}: "${plain}"`);
        printedPercentiles.set(label, row);
      }
      lastLine = line;
      line++;
      continue;
    }
    const m = plain.match(KEY_VALUE);
    if (m && new RegExp(`^${EVALSCOPE_PACKAGES}$`, 'i').test(m[1] ?? '')) {
      const figure = readFigure(m[2] ?? '');
      if (figure && Number.isFinite(figure.value)) record[EVALSCOPE_PACKAGES] = figure.value;
      lastLine = line;
      line++;
      continue;
    }
    if (!m || !evalscopeKey(m[1] ?? '')) {
      if (m && /^(Expected number of requests|Average package latency)/i.test(m[1] ?? '')) {
        line++;
        continue;
      }
      break;
    }
    take(m[1] ?? '', m[2] ?? '', line);
    printedAsLines = true;
    lastLine = line;
    line++;
  }
  if (!rows && printedPercentiles.size) rows = [...printedPercentiles.values()];
  // The line printout's "Average time per output token" is the test's duration / all output tokens
  // (http_client.py: total_time / n_total_completion_tokens), 1 / output tokens/s: no TPOT.
  const tpotKey = EVALSCOPE_SUMMARY.tpot.legacy[0];
  const printedTpot = printedAsLines && tpotKey in record;
  if (printedTpot) delete record[tpotKey];
  const concurrencyKeys = [EVALSCOPE_SUMMARY.concurrency.legacy[0], EVALSCOPE_SUMMARY.concurrency.current[0]];
  if (hints.concurrency !== undefined && !concurrencyKeys.some((k) => k in record)) record[EVALSCOPE_SUMMARY.concurrency.legacy[0]] = hints.concurrency;
  const outcome = importEvalscope({ summary: { path: input.path, text: '', raw: record }, ...(rows ? { percentiles: rows } : {}), args: context['model'] ? { model: context['model'] } : {} });
  if (!outcome.ok) {
    return importFailure(`${input.path} line ${start + 1}: an EvalScope "Benchmarking summary" without "Time taken for tests" (or "Test Duration") and a request throughput.`);
  }
  const doc = withUnreadable(outcome.value, unreadable);
  if (printedTpot) {
    doc.importedFrom?.notes.push(
      IMPORT_NOTE_TEXT.text.evalscopePrintedTpot,
    );
  }
  const ours = new Set(['min', 'max', ...PERCENTILES.map((p) => `${p}%`)]);
  const outsideOurSet = (rows ?? []).filter((row) => !ours.has(String(row['Percentiles']).trim()));
  if (outsideOurSet.length) {
    const listed = outsideOurSet.map((row) => Object.entries(row).map(([k, v]) => (k === 'Percentiles' ? String(v) : `${k} ${String(v)}`)).join(' ')).join('; ');
    doc.importedFrom?.notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.text.percentilesOutside, [listed]));
  }
  if (!rows) doc.importedFrom?.notes.splice(0, doc.importedFrom.notes.length, ...doc.importedFrom.notes.filter((n) => !/benchmark_percentile\.json/.test(n)), IMPORT_NOTE_TEXT.text.noPercentileTable);
  return { ok: true, value: { doc, firstLine: start, lastLine, stepLines: [start] } };
}

/** EvalScope's percentile table as the rows of its benchmark_percentile.json. */
function percentileRows(table: TextTable, percentileColumn: number, unreadable: Unreadable): Record<string, unknown>[] {
  return table.rows.map((row) => {
    const entry: Record<string, unknown> = { Percentiles: row.cells[percentileColumn] };
    table.columns.forEach((column, index) => {
      if (index === percentileColumn) return;
      const cell = row.cells[index] ?? '';
      const figure = readFigure(cell);
      if (figure && Number.isFinite(figure.value)) entry[column] = figure.value;
      else if (cell !== '') unreadable.push(`line ${row.line + 1}: ${column} "${cell}"`);
    });
    return entry;
  });
}

/**
 * EvalScope's "Performance Test Summary Report" (rich_display.py): a "Detailed Performance
 * Metrics" table with a row per concurrency: Conc. | Rate | RPS | Avg Lat.(s) | P99 Lat.(s) |
 * Avg TTFT(s) | P99 TTFT(s) | Avg TPOT(s) | P99 TPOT(s) | Gen. toks/s | Success Rate.
 */
const looksLikeEvalscopeReport = (table: TextTable) => /^Conc\.?$/i.test(table.columns[0] ?? '') && table.columns.some((c) => /^RPS$/i.test(c)) && table.columns.some((c) => /TTFT/i.test(c));

const EVALSCOPE_REPORT_STATS: [RegExp, 'latencyMs' | 'ttftMs' | 'tpotMs', 'mean' | 'p99'][] = [
  [/^Avg Lat/i, 'latencyMs', 'mean'],
  [/^P99 Lat/i, 'latencyMs', 'p99'],
  [/^Avg TTFT/i, 'ttftMs', 'mean'],
  [/^P99 TTFT/i, 'ttftMs', 'p99'],
  [/^Avg TPOT/i, 'tpotMs', 'mean'],
  [/^P99 TPOT/i, 'tpotMs', 'p99'],
];

function readEvalscopeReport(table: TextTable, input: ImportInput, context: Labels): BlockOutcome {
  const unreadable: Unreadable = [];
  const column = (pattern: RegExp) => table.columns.findIndex((c) => pattern.test(c));
  const steps = table.rows.map((row) => {
    const figure = (index: number): number | null => {
      const cell = row.cells[index] ?? '';
      const read = index < 0 ? null : readFigure(cell);
      if (index >= 0 && cell !== '' && (!read || Number.isNaN(read.value)) && !/^INF$/i.test(cell)) unreadable.push(`line ${row.line + 1}: ${table.columns[index]} "${cell}"`);
      return read && Number.isFinite(read.value) ? read.value : null;
    };
    const concurrency = figure(0);
    const rate = figure(column(/^Rate$/i));
    const cap = concurrency !== null && Number.isInteger(concurrency) && concurrency > 0 ? { concurrency } : {};
    const profile: StepProfile = rate !== null && rate > 0 ? { kind: 'rate', rate, arrival: 'poisson', ...cap } : 'concurrency' in cap ? { kind: 'concurrency', ...cap } : { kind: 'throughput' };
    const stats: Record<'latencyMs' | 'ttftMs' | 'tpotMs', PartialStats> = { latencyMs: {}, ttftMs: {}, tpotMs: {} };
    table.columns.forEach((name, index) => {
      const target = EVALSCOPE_REPORT_STATS.find(([pattern]) => pattern.test(name));
      const value = target ? figure(index) : null;
      if (target && value !== null) stats[target[1]][target[2]] = value * (toMs(unitInName(name)) ?? 1000);
    });
    return importedStep(profile, {
      requestsPerSecond: figure(column(/^RPS$/i)),
      outputTokensPerSecond: figure(column(/toks?\/s/i)),
      latencyMs: statsFrom(stats.latencyMs),
      ttftMs: statsFrom(stats.ttftMs),
      tpotMs: statsFrom(stats.tpotMs),
    });
  });
  const outcome = importedResult(
    {
      tool: EVALSCOPE_TOOL,
      version: null,
      path: input.path,
      notes: [
        IMPORT_NOTE_TEXT.text.evalscopeTable,
        IMPORT_NOTE_TEXT.text.evalscopeTableDefinitions,
      ],
      model: context['model'] ?? 'unknown',
      config: {},
    },
    steps,
  );
  if (!outcome.ok) return outcome;
  return { ok: true, value: { doc: withUnreadable(outcome.value, unreadable), firstLine: table.firstLine, lastLine: table.lastLine, stepLines: table.rows.map((r) => r.line) } };
}

/** EvalScope's "Basic Information" table states the model in a `Model` row. */
function statedModel(table: TextTable): string | null {
  const rows = [table.columns, ...table.rows.map((r) => r.cells)];
  const model = rows.find((cells) => cells.length === 2 && /^Model$/i.test(cells[0] ?? ''))?.[1]?.trim();
  return model || null;
}

function withUnreadable(doc: ResultDocument, unreadable: Unreadable): ResultDocument {
  if (unreadable.length && doc.importedFrom) doc.importedFrom.notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.text.unreadable, [unreadable.join('; ')]));
  return doc;
}

/**
 * Figures that contradict each other in the source (a TTFT or TPOT longer than the whole request)
 * are kept as written and named in the notes: a pasted table's typo is the user's to fix.
 */
function flagContradictions({ doc, stepLines }: Block): void {
  for (const [index, step] of doc.steps.entries()) {
    const latency = step.summary?.latencyMs;
    if (!latency) continue;
    for (const [name, stats] of [['TTFT', step.summary?.ttftMs], ['TPOT', step.summary?.tpotMs]] as const) {
      for (const key of ['mean', 'p50', 'p99'] as const) {
        const value = stats?.[key];
        const limit = latency[key];
        if (typeof value === 'number' && typeof limit === 'number' && value > limit) {
          doc.importedFrom?.notes.push(
            fillPlaceholders(IMPORT_NOTE_TEXT.text.contradiction, [step.name, (stepLines[index] ?? 0) + 1, name, key, value, limit]),
          );
        }
      }
    }
  }
}

/** Lines that set the next block's load: vLLM's own lines above its block, or a note such as `并发 32`. */
function readStepHints(line: string, hints: StepHints): boolean {
  const m = plainText(line).match(KEY_VALUE);
  const label = m?.[1] ?? '';
  const value = m?.[2] ?? '';
  if (/^(Traffic request rate|Request rate)$/i.test(label)) {
    hints.rate = /^inf/i.test(value) ? 'inf' : (readFigure(value)?.value ?? hints.rate);
    return true;
  }
  if (/^Burstiness factor$/i.test(label)) {
    const figure = readFigure(value.replace(/\s*\(.*\)$/, ''));
    if (figure) hints.burstiness = figure.value;
    return true;
  }
  if (/^Maximum request concurrency$/i.test(label)) {
    const figure = readFigure(value);
    if (figure && Number.isInteger(figure.value)) hints.concurrency = figure.value;
    return true;
  }
  return false;
}

/**
 * `docker compose logs` puts `service-1  | ` before every line, which would make every line a
 * table row: when most lines carry the same such prefix, it is cut off them all.
 */
function withoutContainerPrefix(lines: string[]): string[] {
  const filled = lines.filter((line) => line.trim() !== '');
  const prefix = filled[0]?.match(/^[\w.-]+\s*\|\s?/)?.[0];
  if (!prefix || filled.filter((line) => line.startsWith(prefix)).length < filled.length * 0.8) return lines;
  return lines.map((line) => (line.startsWith(prefix) ? line.slice(prefix.length) : line));
}

/**
 * rich draws a panel (`╭─ title ─╮`, `│ line │`, `╰───╯`) around GuideLLM 0.1's report, two deep:
 * its borders are cut off the lines inside, so that the tables in it read as tables. The borders
 * are found by their characters, not their columns: a pasted copy often has its spaces collapsed.
 */
function withoutPanelBorders(lines: string[]): string[] {
  let out = lines;
  for (let depth = 0; depth < 4; depth++) {
    let changed = false;
    const next = [...out];
    for (let i = 0; i < next.length; i++) {
      const title = (next[i] ?? '').match(/^\s*╭─+\s*(.*?)\s*─*╮\s*$/);
      if (!title) continue;
      let end = i + 1;
      while (end < next.length && /^\s*│/.test(next[end] ?? '')) end++;
      if (!/^\s*╰─*╯\s*$/.test(next[end] ?? '')) continue;
      next[i] = title[1] ?? '';
      for (let j = i + 1; j < end; j++) next[j] = (next[j] ?? '').replace(/^\s*│ ?/, '').replace(/\s*│\s*$/, '');
      next[end] = '';
      changed = true;
      i = end;
    }
    out = next;
    if (!changed) break;
  }
  return out;
}

/** Where a block's labels come from: the context in force when it was read. */
interface ContextSnapshot {
  labels: Labels;
  contextId: number;
  contextLine: number | null;
}

/** Every benchmark block in a text, as runs: consecutive blocks of one tool under one context are one run. */
export function importTextBlocks(input: ImportInput): ParseOutcome<ImportedPart[]> {
  const lines = withoutPanelBorders(withoutContainerPrefix(input.text.split(/\r?\n/)));
  // Labels by heading level (1-6), and of the latest plain context line under each heading depth (0 before
  // any heading); deeper ones refine those above. A context line that no block followed yet stays in
  // force under the subheadings below it ("测试环境：2 x A800" above "## 结果"); one that blocks
  // followed described those blocks, and the next heading ends it.
  const levels: Labels[] = Array.from({ length: 7 }, () => ({}));
  const lineLabels: Labels[] = Array.from({ length: 7 }, () => ({}));
  const lineUsed: boolean[] = Array.from({ length: 7 }, () => false);
  let depth = 0;
  let contextId = 0;
  let contextLine: number | null = null;
  let blocksSinceContext = false;
  let hints: StepHints = {};
  const parts: ImportedPart[] = [];
  const runLines = new Map<string, { first: number; last: number }>();
  // A table waits until the text moves on: the next table may be about the same steps (and join it).
  type Pending = { reading: TableReading; context: ContextSnapshot } | null;
  let pending = null as Pending;
  const tablesNotRead: string[] = [];
  // Inside a fenced code block a `# ...` line is a comment, not a heading (`# 数据` above plotting code).
  let inFence = false;

  // Labels that go together: a deeper level naming a model (or GPUs) replaces the whole group above it,
  // so a parent heading's quantization or GPU count does not stick to a different model or machine.
  const refine = (merged: Labels, level: Labels): Labels => {
    const next = { ...merged };
    for (const group of LABEL_GROUPS) if (group.some((key) => key in level)) for (const key of group) delete next[key];
    return Object.assign(next, level);
  };
  const labels = (): Labels => levels.reduce<Labels>((merged, level, d) => refine(refine(merged, level), lineLabels[d] ?? {}), {});
  const snapshot = (): ContextSnapshot => ({ labels: labels(), contextId, contextLine });
  const add = (block: Block, tool: string, at: ContextSnapshot = snapshot()) => {
    // A table row's own labels (its engine, GPU, model) refine the context's.
    const context = refine(at.labels, block.labels ?? {});
    const first = at.contextLine ?? block.firstLine;
    const doc = block.doc;
    flagContradictions(block);
    // The model comes from the context; a run that names none has no model label.
    const model = context['model'] ?? (doc.endpoint.model !== 'unknown' ? doc.endpoint.model : null);
    const docLabels = Object.fromEntries(Object.entries(doc.labels).filter(([key]) => key !== 'model'));
    const stated: Labels = {};
    const step = doc.steps[0];
    if (doc.steps.length === 1 && step?.profile.concurrency !== undefined) stated['concurrency'] = String(step.profile.concurrency);
    if (doc.steps.length === 1 && step?.summary && step.summary.requests.total > 0) stated['requests'] = String(step.summary.requests.total);
    const group = [input.path, at.contextId, doc.importedFrom?.tool ?? tool, block.groupKey ?? ''].join('\u0000');
    runLines.set(group, { first: runLines.get(group)?.first ?? first + 1, last: Math.max(runLines.get(group)?.last ?? 0, block.lastLine + 1) });
    parts.push({
      doc: {
        ...doc,
        endpoint: { ...doc.endpoint, model: model ?? 'unknown' },
        labels: { ...docLabels, ...stated, ...context, ...(model ? { model } : {}) },
      },
      group,
    });
    if (at.contextId === contextId) blocksSinceContext = true;
    lineUsed.fill(true);
    hints = {};
  };
  const flush = () => {
    if (!pending) return;
    const { reading, context } = pending;
    pending = null;
    const read = tableRuns(reading, input.path);
    if (!read.ok) {
      tablesNotRead.push(read.reason);
      return;
    }
    for (const run of read.runs) {
      const lines = { firstLine: reading.firstLine, lastLine: reading.lastLine, stepLines: run.stepLines };
      add({ doc: run.doc, ...lines, labels: run.labels, groupKey: run.groupKey }, run.tool, context);
    }
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (VLLM_START.test(line)) {
      flush();
      const block = readVllmBlock(lines, i, hints, input);
      if (!block.ok) return block;
      add(block.value, VLLM_TOOL);
      i = block.value.lastLine;
      continue;
    }
    if (EVALSCOPE_START.test(plainText(line))) {
      flush();
      const block = readEvalscopeBlock(lines, i, hints, labels(), input);
      if (!block.ok) return block;
      add(block.value, EVALSCOPE_TOOL);
      i = block.value.lastLine;
      continue;
    }
    // A line with a bar that starts no table (`bench-1  | Starting benchmark for <model>`) is read as any other line.
    const table = isTableLine(line) ? readTable(lines, i) : null;
    if (table) {
      const model = statedModel(table);
      const reading = looksLikeEvalscopeReport(table) ? null : readBenchmarkTable(table, hints);
      if (looksLikeEvalscopeReport(table)) {
        flush();
        const block = readEvalscopeReport(table, input, labels());
        if (!block.ok) return block;
        add(block.value, EVALSCOPE_TOOL);
      } else if (reading) {
        const waiting = pending;
        const joined: TableReading | null = waiting ? joinReadings(waiting.reading, reading) : null;
        if (waiting && joined) pending = { reading: joined, context: waiting.context };
        else {
          flush();
          pending = { reading, context: snapshot() };
        }
        hints = {};
      } else if (model) {
        flush();
        // A stated model names the run as a context line does (its quantization read from the name).
        const stated = { ...readLineContext(model).run, model };
        if (blocksSinceContext || JSON.stringify(lineLabels[depth]) !== JSON.stringify(stated)) {
          lineLabels[depth] = blocksSinceContext ? stated : { ...lineLabels[depth], ...stated };
          lineUsed[depth] = false;
          contextId++;
          contextLine = i;
          blocksSinceContext = false;
        }
      }
      i = table.lastLine;
      continue;
    }
    if (readStepHints(line, hints)) continue;
    const context = readLineContext(line);
    const heading = inFence ? undefined : line.match(/^\s*(#{1,6})\s/)?.[1]?.length;
    if (context.step.concurrency !== undefined) hints.concurrency = context.step.concurrency;
    if (context.step.requests !== undefined) hints.requests = context.step.requests;
    if (!namesRun(context) && heading === undefined) continue;
    // A heading that names nothing (提要, 细节, "Results") keeps a waiting table open: the next may join it.
    if (namesRun(context)) flush();
    // A line repeating the labels in force (one line per step: "Qwen2-7B, 2 x L20, concurrency 8") keeps the run.
    let newContext = true;
    if (heading !== undefined) {
      for (let level = heading; level < levels.length; level++) levels[level] = {};
      levels[heading] = context.run;
      for (let d = 0; d < lineLabels.length; d++) {
        if (d < heading && !lineUsed[d]) continue;
        lineLabels[d] = {};
        lineUsed[d] = false;
      }
      depth = heading;
    } else {
      newContext = !blocksSinceContext || JSON.stringify(lineLabels[depth]) !== JSON.stringify(context.run);
      lineLabels[depth] = blocksSinceContext ? context.run : { ...lineLabels[depth], ...context.run };
      lineUsed[depth] = false;
    }
    if (newContext) {
      contextId++;
      contextLine = i;
      blocksSinceContext = false;
    }
  }
  flush();
  // A run spans from its context line to its last block (1-based): known once every block is read.
  for (const part of parts) {
    const lines = part.group === null ? undefined : runLines.get(part.group);
    if (lines && part.doc.importedFrom) part.doc.importedFrom = { ...part.doc.importedFrom, lines };
    // A table of figures that was not read is named wherever the text's runs are shown.
    if (tablesNotRead.length && part.doc.importedFrom) {
      part.doc.importedFrom = { ...part.doc.importedFrom, notes: [...part.doc.importedFrom.notes, fillPlaceholders(IMPORT_NOTE_TEXT.text.tablesNotRead, [input.path, tablesNotRead.join('; ')])] };
    }
  }
  if (parts.length === 0) {
    return importFailure(
      `${input.path}: no benchmark result found. In text LLM Bench reads vLLM's "Serving Benchmark Result" block, EvalScope perf's "Benchmarking summary" (with its percentiles) and tables of figures whose column (or row) names say at least two metrics (TTFT, TPOT, ITL, latency, requests/s, tokens/s, in English or Chinese) with a load (concurrency or rate) per step.${
        tablesNotRead.length ? ` Tables found but not read: ${tablesNotRead.join('; ')}.` : ''
      }`,
    );
  }
  return { ok: true, value: parts };
}
