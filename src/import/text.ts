/**
 * Benchmark printouts inside any text (a console log, a Markdown page of notes, pasted text):
 *  - vLLM's "Serving Benchmark Result" block (benchmark_serving.py and `vllm bench serve`, every
 *    version's lines), with the "Maximum request concurrency" / "Traffic request rate" lines
 *    printed above it;
 *  - EvalScope perf's "Benchmarking summary", as `Key: value` lines or a tabulate grid, and its
 *    "Percentile results" table;
 *  - GuideLLM's benchmark table, as its console prints it or as a Markdown table.
 * A vLLM or EvalScope block is turned into the JSON record that tool would have saved and read
 * by the same importer as its files, so a figure means the same from a file and from a log.
 * Lines naming a model, GPUs, engine or token lengths give the labels of the blocks under them;
 * consecutive blocks of one tool under one context are the steps of one run.
 */
import type { Labels } from '../format/config';
import { PERCENTILES, type ParseOutcome, type ResultDocument, type Stats, type Step, type StepProfile } from '../format/result';
import { importedResult, importedStep, importFailure, statsFrom, type ImportInput, type PartialStats } from './common';
import { EVALSCOPE_TOOL, importEvalscope, SUMMARY as EVALSCOPE_SUMMARY } from './evalscope';
import { GUIDELLM_NOTES, GUIDELLM_TOOL } from './guidellm';
import type { ImportedPart } from './index';
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

/** A block read from the text: a one-document import of it, the lines it spans and the line of each step (0-based). */
interface Block {
  doc: ResultDocument;
  firstLine: number;
  lastLine: number;
  stepLines: number[];
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
  if (outsideOurSet.length) outcome.value.importedFrom?.notes.push(`Percentiles given that LLM Bench's statistics have no field for (kept here as written): ${outsideOurSet.join('; ')}.`);
  const summary = outcome.value.steps[0]?.summary;
  if (summary && meanConcurrency !== null && Number.isFinite(meanConcurrency) && meanConcurrency >= 0) summary.achievedConcurrency = meanConcurrency;
  if (sglang && outcome.value.importedFrom) {
    outcome.value.tool = { ...outcome.value.tool, name: `${SGLANG_TOOL} (imported)` };
    outcome.value.labels = { ...outcome.value.labels, source: SGLANG_TOOL };
    outcome.value.importedFrom = {
      ...outcome.value.importedFrom,
      tool: SGLANG_TOOL,
      notes: [
        'Printed by SGLang\'s bench_serving, forked from vLLM\'s benchmark_serving: its TTFT, TPOT, ITL and E2E latency are computed as vLLM\'s (the notes below); its "Concurrency" is the mean number of requests in flight.',
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

function readEvalscopeBlock(lines: readonly string[], start: number, hints: StepHints, context: Labels, input: ImportInput): BlockOutcome {
  const record: Record<string, unknown> = {};
  const unreadable: Unreadable = [];
  let rows: Record<string, unknown>[] | undefined;
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
    const m = plain.match(KEY_VALUE);
    if (!m || !evalscopeKey(m[1] ?? '')) {
      if (m && /^(Expected number of requests|Average package)/i.test(m[1] ?? '')) {
        line++;
        continue;
      }
      break;
    }
    take(m[1] ?? '', m[2] ?? '', line);
    lastLine = line;
    line++;
  }
  const concurrencyKeys = [EVALSCOPE_SUMMARY.concurrency.legacy[0], EVALSCOPE_SUMMARY.concurrency.current[0]];
  if (hints.concurrency !== undefined && !concurrencyKeys.some((k) => k in record)) record[EVALSCOPE_SUMMARY.concurrency.legacy[0]] = hints.concurrency;
  const outcome = importEvalscope({ summary: { path: input.path, text: '', raw: record }, ...(rows ? { percentiles: rows } : {}), args: context['model'] ? { model: context['model'] } : {} });
  if (!outcome.ok) {
    return importFailure(`${input.path} line ${start + 1}: an EvalScope "Benchmarking summary" without "Time taken for tests" (or "Test Duration") and a request throughput.`);
  }
  const doc = withUnreadable(outcome.value, unreadable);
  const ours = new Set(['min', 'max', ...PERCENTILES.map((p) => `${p}%`)]);
  const outsideOurSet = (rows ?? []).filter((row) => !ours.has(String(row['Percentiles']).trim()));
  if (outsideOurSet.length) {
    const listed = outsideOurSet.map((row) => Object.entries(row).map(([k, v]) => (k === 'Percentiles' ? String(v) : `${k} ${String(v)}`)).join(' ')).join('; ');
    doc.importedFrom?.notes.push(`Percentiles given that LLM Bench's statistics have no field for (kept here as written): ${listed}.`);
  }
  if (!rows) doc.importedFrom?.notes.splice(0, doc.importedFrom.notes.length, ...doc.importedFrom.notes.filter((n) => !/benchmark_percentile\.json/.test(n)), 'No percentile table under the summary: only averages are known, percentiles show as n/a.');
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

const GUIDELLM_STRATEGY = /^(synchronous|throughput|constant|poisson|concurrent|async(?:hronous)?)(?:\s*@\s*([\d.,]+))?/i;

/** A table GuideLLM printed (or a Markdown copy of it): TTFT and ITL columns, a strategy per row. */
function looksLikeGuidellmTable(table: TextTable): boolean {
  const names = table.columns.join(' ');
  return /TTFT/i.test(names) && /ITL|TPOT/i.test(names) && table.rows.every((row) => GUIDELLM_STRATEGY.test(row.cells[0] ?? ''));
}

function guidellmProfile(cell: string): StepProfile {
  const m = cell.match(GUIDELLM_STRATEGY);
  const kind = (m?.[1] ?? '').toLowerCase();
  const number = m?.[2] ? Number(m[2].replace(/,/g, '')) : null;
  if (kind === 'synchronous') return { kind: 'synchronous' };
  if (kind === 'concurrent' && number) return { kind: 'concurrency', concurrency: Math.round(number) };
  if ((kind === 'constant' || kind === 'poisson') && number) return { kind: 'rate', rate: number, arrival: kind };
  if (kind.startsWith('async') && number) return { kind: 'rate', rate: number };
  return { kind: 'throughput' };
}

type GuidellmMetric = 'ttftMs' | 'tpotMs' | 'latencyMs';
const GUIDELLM_STAT_KEYS: [RegExp, keyof PartialStats][] = [
  [/\b(mean|avg)\b/i, 'mean'],
  [/\b(median|p50)\b/i, 'p50'],
  [/\bstd/i, 'std'],
  [/\bmin\b/i, 'min'],
  [/\bmax\b/i, 'max'],
  [/\bp75\b/i, 'p75'],
  [/\bp90\b/i, 'p90'],
  [/\bp95\b/i, 'p95'],
  [/\bp99\b/i, 'p99'],
];

/** What a GuideLLM column holds: a per-step figure, a statistic of a metric, or nothing we import. */
function guidellmColumn(name: string): { figure: 'rps' | 'concurrency' | 'otps' | 'ttps' } | { metric: GuidellmMetric; stat: keyof PartialStats; scale: number } | null {
  const scale = toMs(unitInName(name)) ?? (/latency/i.test(name) ? 1000 : 1);
  const stat = GUIDELLM_STAT_KEYS.find(([pattern]) => pattern.test(name))?.[1];
  // GuideLLM's "ITL" is our TPOT; its own "TPOT" includes the first token and is not imported.
  if (/TPOT/i.test(name)) return null;
  if (/TTFT/i.test(name)) return stat ? { metric: 'ttftMs', stat, scale } : null;
  if (/ITL/i.test(name)) return stat ? { metric: 'tpotMs', stat, scale } : null;
  if (/latency/i.test(name)) return stat ? { metric: 'latencyMs', stat, scale } : null;
  if (/out(put)?\s*tok/i.test(name)) return { figure: 'otps' };
  if (/tot(al)?\s*tok/i.test(name)) return { figure: 'ttps' };
  if (/concurrency/i.test(name)) return { figure: 'concurrency' };
  if (/per second|req(uest)?s?\s*\/\s*s|req\/sec|rps/i.test(name)) return { figure: 'rps' };
  return null;
}

/**
 * GuideLLM's console table (its first column is "Metadata Benchmark") heads request latency
 * "Req Latency (ms)" but prints seconds, as its JSON stores them (4.36 beside a TTFT of 59.8 ms).
 */
const consoleLatencyInSeconds = (table: TextTable) => /^Metadata\b/i.test(table.columns[0] ?? '') && table.columns.some((c) => /latency \(ms\)/i.test(c) && !/TTFT|ITL|TPOT/i.test(c));

function readGuidellmTable(table: TextTable, input: ImportInput, context: Labels): BlockOutcome {
  const unreadable: Unreadable = [];
  const withoutMean: string[] = [];
  const latencyInSeconds = consoleLatencyInSeconds(table);
  const columns = table.columns.map((name) => {
    const column = guidellmColumn(name);
    return column && 'metric' in column && column.metric === 'latencyMs' && latencyInSeconds ? { ...column, scale: 1000 } : column;
  });
  const steps: Step[] = table.rows.map((row) => {
    const stats: Record<GuidellmMetric, PartialStats> = { ttftMs: {}, tpotMs: {}, latencyMs: {} };
    const figures: Partial<Record<'rps' | 'concurrency' | 'otps' | 'ttps', number>> = {};
    columns.forEach((column, index) => {
      if (!column || index === 0) return;
      const cell = row.cells[index] ?? '';
      const figure = readFigure(cell);
      if (!figure || !Number.isFinite(figure.value)) {
        if (cell !== '') unreadable.push(`line ${row.line + 1}: ${table.columns[index]} "${cell}"`);
        return;
      }
      if ('figure' in column) figures[column.figure] = figure.value;
      else stats[column.metric][column.stat] = figure.value * (toMs(figure.unit) ?? column.scale);
    });
    const stat = (metric: GuidellmMetric): Stats | null => {
      const given = Object.keys(stats[metric]);
      // Our statistics hang on a mean: figures given without one are named in the notes, not dropped silently.
      if (given.length > 0 && stats[metric].mean === undefined) withoutMean.push(`line ${row.line + 1}: ${metric} ${given.join(', ')}`);
      return statsFrom(stats[metric]);
    };
    return importedStep(guidellmProfile(row.cells[0] ?? ''), {
      requestsPerSecond: figures.rps ?? null,
      outputTokensPerSecond: figures.otps ?? null,
      totalTokensPerSecond: figures.ttps ?? null,
      achievedConcurrency: figures.concurrency ?? null,
      ttftMs: stat('ttftMs'),
      tpotMs: stat('tpotMs'),
      latencyMs: stat('latencyMs'),
    });
  });
  const outcome = importedResult(
    {
      tool: GUIDELLM_TOOL,
      version: null,
      path: input.path,
      notes: [
        ...GUIDELLM_NOTES,
        'Read from a printed table: request counts and durations are not in it (0 of 0 requests); requests/s, output tokens/s and concurrency are GuideLLM\'s own (time-weighted) figures.',
        ...(withoutMean.length ? [`Statistics given without their mean are not stored (LLM Bench keeps a metric with its mean): ${withoutMean.join('; ')}.`] : []),
        ...(latencyInSeconds ? ['GuideLLM\'s console heads request latency "(ms)" but prints seconds (as its JSON stores them): read as seconds.'] : []),
      ],
      model: context['model'] ?? 'unknown',
      config: {},
    },
    steps,
  );
  if (!outcome.ok) return outcome;
  return {
    ok: true,
    value: { doc: withUnreadable(outcome.value, unreadable), firstLine: table.firstLine, lastLine: table.lastLine, stepLines: table.rows.map((row) => row.line) },
  };
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
        'Read from EvalScope\'s "Performance Test Summary Report" table: request counts and durations are not in it (0 of 0 requests); its success rate is not a count and is not imported.',
        'TPOT is (latency - TTFT) / (output tokens - 1), as ours; EvalScope\'s percentiles are nearest-rank (ours interpolate).',
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
  if (unreadable.length && doc.importedFrom) doc.importedFrom.notes.push(`Cells that are not a figure, left out (n/a): ${unreadable.join('; ')}.`);
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
            `${step.name} (line ${(stepLines[index] ?? 0) + 1}): ${name} ${key} ${value} ms is longer than the latency ${key} ${limit} ms; kept as written, check the source.`,
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

/** Every benchmark block in a text, as runs: consecutive blocks of one tool under one context are one run. */
export function importTextBlocks(input: ImportInput): ParseOutcome<ImportedPart[]> {
  const lines = withoutContainerPrefix(input.text.split(/\r?\n/));
  // Labels by heading level (1-6) and of the latest plain context line (7); later levels refine earlier ones.
  const levels: Labels[] = Array.from({ length: 8 }, () => ({}));
  let contextId = 0;
  let contextLine: number | null = null;
  let blocksSinceContext = false;
  let hints: StepHints = {};
  const parts: ImportedPart[] = [];
  const runLines = new Map<string, { first: number; last: number }>();

  // Labels that go together: a deeper level naming a model (or GPUs) replaces the whole group above it,
  // so a parent heading's quantization or GPU count does not stick to a different model or machine.
  const labels = (): Labels =>
    levels.reduce<Labels>((merged, level) => {
      const next = { ...merged };
      for (const group of LABEL_GROUPS) if (group.some((key) => key in level)) for (const key of group) delete next[key];
      return Object.assign(next, level);
    }, {});
  const add = (block: Block, tool: string) => {
    const context = labels();
    const first = contextLine ?? block.firstLine;
    const doc = block.doc;
    flagContradictions(block);
    // The model comes from the context; a run that names none has no model label.
    const model = context['model'] ?? (doc.endpoint.model !== 'unknown' ? doc.endpoint.model : null);
    const docLabels = Object.fromEntries(Object.entries(doc.labels).filter(([key]) => key !== 'model'));
    const stated: Labels = {};
    const step = doc.steps[0];
    if (doc.steps.length === 1 && step?.profile.concurrency !== undefined) stated['concurrency'] = String(step.profile.concurrency);
    if (doc.steps.length === 1 && step?.summary && step.summary.requests.total > 0) stated['requests'] = String(step.summary.requests.total);
    const group = [input.path, contextId, doc.importedFrom?.tool ?? tool].join('\u0000');
    runLines.set(group, { first: runLines.get(group)?.first ?? first + 1, last: block.lastLine + 1 });
    parts.push({
      doc: {
        ...doc,
        endpoint: { ...doc.endpoint, model: model ?? 'unknown' },
        labels: { ...docLabels, ...stated, ...context, ...(model ? { model } : {}) },
      },
      group,
    });
    blocksSinceContext = true;
    hints = {};
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (VLLM_START.test(line)) {
      const block = readVllmBlock(lines, i, hints, input);
      if (!block.ok) return block;
      add(block.value, VLLM_TOOL);
      i = block.value.lastLine;
      continue;
    }
    if (EVALSCOPE_START.test(plainText(line))) {
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
      if (looksLikeGuidellmTable(table)) {
        const block = readGuidellmTable(table, input, labels());
        if (!block.ok) return block;
        add(block.value, GUIDELLM_TOOL);
      } else if (looksLikeEvalscopeReport(table)) {
        const block = readEvalscopeReport(table, input, labels());
        if (!block.ok) return block;
        add(block.value, EVALSCOPE_TOOL);
      } else if (model) {
        // A stated model names the run as a context line does (its quantization read from the name).
        const stated = { ...readLineContext(model).run, model };
        if (blocksSinceContext || JSON.stringify(levels[7]) !== JSON.stringify(stated)) {
          levels[7] = blocksSinceContext ? stated : { ...levels[7], ...stated };
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
    const heading = line.match(/^\s*(#{1,6})\s/)?.[1]?.length;
    if (context.step.concurrency !== undefined) hints.concurrency = context.step.concurrency;
    if (context.step.requests !== undefined) hints.requests = context.step.requests;
    if (!namesRun(context) && heading === undefined) continue;
    // A line repeating the labels in force (one line per step: "Qwen2-7B, 2 x L20, concurrency 8") keeps the run.
    let newContext = true;
    if (heading !== undefined) {
      for (let level = heading; level < levels.length; level++) levels[level] = {};
      levels[heading] = context.run;
    } else {
      newContext = !blocksSinceContext || JSON.stringify(levels[7]) !== JSON.stringify(context.run);
      levels[7] = blocksSinceContext ? context.run : { ...levels[7], ...context.run };
    }
    if (newContext) {
      contextId++;
      contextLine = i;
      blocksSinceContext = false;
    }
  }
  // A run spans from its context line to its last block (1-based): known once every block is read.
  for (const part of parts) {
    const lines = part.group === null ? undefined : runLines.get(part.group);
    if (lines && part.doc.importedFrom) part.doc.importedFrom = { ...part.doc.importedFrom, lines };
  }
  if (parts.length === 0) {
    return importFailure(
      `${input.path}: no benchmark result found. In text LLM Bench reads vLLM's "Serving Benchmark Result" block, EvalScope perf's "Benchmarking summary" (with its percentile table) and GuideLLM's benchmark table (console or Markdown).`,
    );
  }
  return { ok: true, value: parts };
}
