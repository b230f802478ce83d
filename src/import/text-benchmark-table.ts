/**
 * Benchmark tables in users' pages, read by what their headings name (text-vocabulary.ts) rather
 * than by one tool's headers: a row per step (loads in a column or in the row names), or
 * transposed, a column per step and a row per metric (`| 指标 | 并发 1 | 并发 8 |`). GuideLLM's
 * tables are the same kind of table, with its own meanings (its "ITL" is our TPOT).
 *
 * A table is a benchmark table when its headings name at least two different performance metrics
 * (TTFT, TPOT, ITL, latency, requests/s, tokens/s), and a step of it needs a load: from a load
 * column or row, from its name, or from a line above the table (`并发 32`). Tables about the same
 * steps one after another (GuideLLM 0.1 printed four, a page may hold 提要 and 细节) are read as
 * one. Columns that name a model, engine, GPU, TP or quantization are labels: rows that differ in
 * them are runs of their own.
 */
import { fillPlaceholders } from '../format/warning-text';
import { IMPORT_NOTE_TEXT, IMPORT_READ_TEXT, IMPORT_UNIT_TEXT } from '../format/import-note-text';
import { stepName } from '../format/step-name';
import type { Labels } from '../format/config';
import { PERCENTILES, type ResultDocument, type Stats, type StepProfile } from '../format/result';
import { importedResult, importedStep, statsFrom, type PartialStats } from './common';
import { GUIDELLM_NOTES, GUIDELLM_TOOL } from './guidellm';
import { readLineContext } from './text-context';
import { readFigure, toMs, type TextTable } from './text-tables';
import { describeHeading, FIGURE_NAMES, GUIDELLM_STRATEGY, loadIn, METRIC_NAMES, readHeading, type Heading, type StatMetric, type StepFigure } from './text-vocabulary';

/** The tool recorded for a table that no tool printed (a user's own table). */
export const TABLE_TOOL = 'Benchmark table';

/** A column (or, transposed, a row) of a table and what its heading names. */
interface Field {
  heading: string;
  meaning: Heading;
  /** The first line of the table it belongs to (0-based), and whether that table is transposed: for the notes. */
  table: number;
  transposed: boolean;
}

/** A figure read from a cell: a value, or several for a percentile list, and the unit written after it. */
interface Entry {
  field: number;
  value: number | number[];
  /** A count written `186/188`: the total after the slash. */
  of?: number;
  unit: string | null;
  line: number;
}

/** One step of the table: its load, its labels and its figures. */
interface StepRow {
  name: string;
  line: number;
  labels: Labels;
  profile: StepProfile;
  /** The load came from the row's name (`synchronous`, `并发 8`): a concurrency column is then the measured one. */
  namedLoad: boolean;
  measuredConcurrency?: number;
  entries: Entry[];
}

/** A table read by its headings, before its units are settled (they may depend on a table read after it). */
export interface TableReading {
  firstLine: number;
  lastLine: number;
  fields: Field[];
  steps: StepRow[];
  /** Every row is named by a GuideLLM strategy (`synchronous`, `constant@2.50`). */
  guidellmRows: boolean;
  /** GuideLLM's console table heads request latency "(ms)" but prints seconds. */
  consoleLatencyInSeconds: boolean;
  notes: string[];
  /** Notes about one row (a cell that is not a figure, a row left out), by the labels of its run. */
  rowNotes: RowNote[];
  /** Headings of nothing we read, with why where it is known. */
  unread: string[];
}

/** A note about a row, for the run its labels put it in; `unreadable` notes are cells that are not a figure. */
interface RowNote {
  group: string;
  text: string;
  unreadable?: boolean;
}

const groupOf = (labels: Labels) => JSON.stringify(Object.entries(labels).sort());

const PERF: Record<string, string> = {
  ttftMs: 'TTFT',
  tpotMs: 'TPOT',
  itlMs: 'ITL',
  latencyMs: 'latency',
  requestsPerSecond: 'requests/s',
  outputTokensPerSecond: 'output tokens/s',
  totalTokensPerSecond: 'total tokens/s',
  throughput: 'tokens/s',
};

/** The performance metric a heading names, if any: what the benchmark-table rule counts. */
function perfMetric(meaning: Heading): string | null {
  if (!meaning) return null;
  if (meaning.kind === 'stat' || meaning.kind === 'percentiles') return PERF[meaning.metric] ?? null;
  if (meaning.kind === 'figure') return PERF[meaning.figure] ?? null;
  return null;
}

const perfMetrics = (meanings: Heading[]) => new Set(meanings.map(perfMetric).filter((m): m is string => m !== null));

/** The load stated above a table, if any (`并发 32`, vLLM's `Maximum request concurrency: 32`). */
export interface LoadHint {
  concurrency?: number;
  rate?: number | 'inf';
}

const isFigureField = (meaning: Heading) => meaning !== null && (meaning.kind === 'stat' || meaning.kind === 'percentiles' || meaning.kind === 'figure');

/**
 * The steps of a table, or null for a table none of whose headings names a figure we read
 * (a table of hardware, of accuracy scores, of anything but measurements).
 */
export function readBenchmarkTable(table: TextTable, hint: LoadHint): TableReading | null {
  const columns = table.columns.map(readHeading);
  // A row named by a load (`throughput`, `asynchronous@1.57 req/sec`) is a step, not a metric.
  const rowHeads = table.rows.map((row) => (loadIn(row.cells[0] ?? '') ? null : readHeading(row.cells[0] ?? '')));
  const transposed = perfMetrics(rowHeads).size >= 2 && perfMetrics(rowHeads).size > perfMetrics(columns).size;
  const reading: TableReading = {
    firstLine: table.firstLine,
    lastLine: table.lastLine,
    fields: [],
    steps: [],
    guidellmRows: false,
    consoleLatencyInSeconds: /^Metadata\b/i.test(table.columns[0] ?? '') && table.columns.some((c) => /latency \(ms\)/i.test(c) && !/TTFT|ITL|TPOT/i.test(c)),
    notes: [],
    rowNotes: [],
    unread: [],
  };
  // Each step as the heading names of its cells: a row, or (transposed) a column.
  interface Unit {
    name: string;
    line: number;
    cells: string[];
  }
  let headings: string[];
  let meanings: Heading[];
  let units: Unit[];
  let nameIndex: number;
  let bareNumbers: 'concurrency' | 'rate' | null = null;
  if (transposed) {
    headings = table.rows.map((row) => row.cells[0] ?? '');
    meanings = rowHeads;
    nameIndex = -1;
    units = table.columns.slice(1).map((name, j) => ({ name, line: table.firstLine, cells: table.rows.map((row) => row.cells[j + 1] ?? '') }));
    const corner = columns[0];
    bareNumbers = corner?.kind === 'load' ? corner.load : 'concurrency';
  } else {
    headings = table.columns;
    meanings = columns;
    nameIndex = columns.findIndex((m) => m?.kind === 'name');
    if (nameIndex < 0 && (columns[0] === null || columns[0]?.kind === 'bare-stat') && !table.rows.every((row) => readFigure(row.cells[0] ?? '') !== null)) nameIndex = 0;
    units = table.rows.map((row) => ({ name: nameIndex >= 0 ? (row.cells[nameIndex] ?? '') : '', line: row.line, cells: row.cells }));
  }
  if (!meanings.some(isFigureField)) return null;
  const fieldOf = new Map<number, number>();
  meanings.forEach((meaning, index) => {
    if (index === nameIndex) return;
    if (meaning === null || meaning.kind === 'bare-stat' || meaning.kind === 'name') {
      const heading = headings[index] ?? '';
      if (heading !== '') reading.unread.push(`"${heading}"${meaning?.kind === 'bare-stat' ? ' (a statistic of no named metric)' : ''}`);
      return;
    }
    fieldOf.set(index, reading.fields.length);
    reading.fields.push({ heading: headings[index] ?? '', meaning, table: table.firstLine, transposed });
  });

  const usedBareNumbers = new Set<string>();
  let hinted = false;
  const previousLabels = new Map<number, string>();
  for (const unit of units) {
    const labels: Labels = {};
    const loads: { concurrency?: number; rate?: number } = {};
    const entries: Entry[] = [];
    const unreadable: string[] = [];
    for (const [index, field] of fieldOf) {
      const meaning = reading.fields[field]?.meaning ?? null;
      let cell = (unit.cells[index] ?? '').trim();
      if (meaning?.kind === 'label') {
        // A blank label cell repeats the one above it (a merged cell, as people lay out a comparison).
        if (cell === '' && !transposed) cell = previousLabels.get(index) ?? '';
        previousLabels.set(index, cell);
        if (cell !== '') Object.assign(labels, labelsFrom(meaning.label, cell));
        continue;
      }
      if (cell === '') continue;
      if (meaning?.kind === 'load') {
        const figure = readFigure(cell);
        if (figure && Number.isFinite(figure.value) && figure.value > 0) loads[meaning.load] = figure.value;
        else unreadable.push(`line ${cellLine(unit, table, index, transposed) + 1}: ${headings[index]} "${cell}"`);
        continue;
      }
      const entry = readEntry(meaning, cell, field, cellLine(unit, table, index, transposed));
      if (entry) entries.push(entry);
      else unreadable.push(`line ${cellLine(unit, table, index, transposed) + 1}: ${headings[index]} "${cell}"`);
    }
    Object.assign(labels, nameLabels(unit.name));
    const group = groupOf(labels);
    reading.rowNotes.push(...unreadable.map((text) => ({ group, text, unreadable: true })));
    // A transposed table's bare-number column heads are loads of the kind its corner names (concurrency unless `Rate`).
    const bare = bareNumbers !== null && /^\d+(\.\d+)?$/.test(unit.name.trim()) && Number(unit.name) > 0 ? Number(unit.name) : null;
    let profile: StepProfile | null = null;
    if (bare !== null && bareNumbers === 'rate') profile = { kind: 'rate', rate: bare };
    else if (bare !== null && Number.isInteger(bare)) profile = { kind: 'concurrency', concurrency: bare };
    else profile = loadIn(unit.name);
    if (profile && bare !== null) usedBareNumbers.add(unit.name.trim());
    const namedLoad = profile !== null;
    if (!profile) profile = profileOf(loads);
    if (!profile && (hint.concurrency !== undefined || typeof hint.rate === 'number')) {
      profile = hint.concurrency !== undefined ? { kind: 'concurrency', concurrency: hint.concurrency } : { kind: 'rate', rate: hint.rate as number };
      hinted = true;
    }
    const what = unit.name !== '' ? `"${unit.name}"` : 'its row';
    if (!profile) {
      reading.rowNotes.push({ group, text: fillPlaceholders(IMPORT_NOTE_TEXT.text.rowNoLoad, [unit.line + 1, what]) });
      continue;
    }
    if (entries.length === 0) {
      reading.rowNotes.push({ group, text: fillPlaceholders(IMPORT_NOTE_TEXT.text.rowNoFigure, [unit.line + 1, stepName(profile)]) });
      continue;
    }
    reading.steps.push({ name: unit.name, line: unit.line, labels, profile, namedLoad, entries, ...(namedLoad && loads.concurrency !== undefined ? { measuredConcurrency: loads.concurrency } : {}) });
  }
  if (usedBareNumbers.size) reading.notes.push(fillPlaceholders(bareNumbers === 'rate' ? IMPORT_NOTE_TEXT.text.bareRates : IMPORT_NOTE_TEXT.text.bareConcurrencies, [[...usedBareNumbers].join(', ')]));
  if (hinted) reading.notes.push(hint.concurrency !== undefined ? fillPlaceholders(IMPORT_NOTE_TEXT.text.hintedConcurrency, [hint.concurrency]) : fillPlaceholders(IMPORT_NOTE_TEXT.text.hintedRate, [String(hint.rate)]));
  reading.guidellmRows = reading.steps.length > 0 && reading.steps.every((step) => step.namedLoad && GUIDELLM_STRATEGY.test(step.name.replace(/\*\*|`/g, '').trim()));
  return reading;
}

/** The line a cell is on: its row's, or in a transposed table the row of its metric. */
function cellLine(unit: { line: number }, table: TextTable, index: number, transposed: boolean): number {
  return transposed ? (table.rows[index]?.line ?? unit.line) : unit.line;
}

function profileOf(loads: { concurrency?: number; rate?: number }): StepProfile | null {
  const concurrency = loads.concurrency !== undefined && Number.isInteger(loads.concurrency) ? loads.concurrency : undefined;
  if (loads.rate !== undefined) return { kind: 'rate', rate: loads.rate, ...(concurrency ? { concurrency } : {}) };
  if (concurrency) return { kind: 'concurrency', concurrency };
  return null;
}

/** Labels a row or column name states (`vLLM 0.6.3`, `Qwen2-7B, 2 x A100`); a load name states none. */
function nameLabels(name: string): Labels {
  const run = readLineContext(name).run;
  delete run['inputTokens'];
  delete run['outputTokens'];
  return run;
}

/** A label cell as our labels: an engine, GPU or model name read as a context line reads it, else as written. */
function labelsFrom(label: 'model' | 'engine' | 'gpu' | 'tp' | 'quantization', cell: string): Labels {
  const text = cell.normalize('NFKC').replace(/\*\*|__|`/g, '').trim();
  const read = readLineContext(text).run;
  switch (label) {
    case 'model':
      return { model: text, ...(read['quantization'] ? { quantization: read['quantization'] } : {}) };
    case 'engine':
      return { engine: read['engine'] ?? text.toLowerCase() };
    case 'gpu':
      return read['gpu'] ? { gpu: read['gpu'], ...(read['gpus'] ? { gpus: read['gpus'] } : {}) } : /^\d+$/.test(text) ? { gpus: text } : { gpu: text };
    case 'tp':
      return /^\d+$/.test(text) ? { tp: text } : {};
    case 'quantization':
      return { quantization: text.toLowerCase() };
  }
}

/** A cell's figure for its field: one value, a percentile list (`1.90, 1.92, 1.96`), or a count out of a total (`186/188`, `2 of 188`). */
function readEntry(meaning: Heading, cell: string, field: number, line: number): Entry | null {
  if (meaning?.kind === 'percentiles') {
    const parts = cell.split(/[,;，；]\s+|[;；]/).map((part) => readFigure(part));
    if (parts.length !== meaning.percentiles.length || parts.some((p) => !p || !Number.isFinite(p.value) || p.value < 0)) return null;
    return { field, value: parts.map((p) => p?.value ?? NaN), unit: parts[0]?.unit ?? null, line };
  }
  if (meaning?.kind === 'figure' && /^requests/.test(meaning.figure)) {
    const m = cell.normalize('NFKC').match(/^(\d[\d,]*)\s*(?:\/|of)\s*(\d[\d,]*)$/i);
    if (m) return { field, value: Number(m[1]?.replace(/,/g, '')), of: Number(m[2]?.replace(/,/g, '')), unit: null, line };
    // Chinese puts the total first: `188 个中 2 个` (2 of 188), as LLM Bench's zh-cn reports write it.
    const zh = cell.normalize('NFKC').match(/^(?:共\s*)?(\d[\d,]*)\s*个?\s*中\s*(\d[\d,]*)\s*个?$/);
    if (zh) return { field, value: Number(zh[2]?.replace(/,/g, '')), of: Number(zh[1]?.replace(/,/g, '')), unit: null, line };
  }
  // No time, rate or count is below zero: `-1` is a placeholder, not a figure.
  const figure = readFigure(cell);
  if (!figure || !Number.isFinite(figure.value) || figure.value < 0) return null;
  return { field, value: figure.value, unit: figure.unit, line };
}

const stepKey = (step: StepRow) => `${groupOf(step.labels)}\u0000${stepName(step.profile)}`;

/**
 * Two tables about the same steps (the same loads, with the same labels), read as one: null when
 * they are about different steps. GuideLLM 0.1 printed its requests, tokens, percentiles and
 * means of one sweep as four tables; a page may split a table into 提要 and 细节.
 */
export function joinReadings(first: TableReading, second: TableReading): TableReading | null {
  const keys = first.steps.map(stepKey);
  const secondKeys = second.steps.map(stepKey);
  if (keys.length === 0 || keys.length !== secondKeys.length || new Set(keys).size !== keys.length || !secondKeys.every((key) => keys.includes(key))) return null;
  const offset = first.fields.length;
  const byKey = new Map(second.steps.map((step) => [stepKey(step), step]));
  return {
    firstLine: first.firstLine,
    lastLine: second.lastLine,
    fields: [...first.fields, ...second.fields],
    steps: first.steps.map((step) => {
      const other = byKey.get(stepKey(step));
      const measuredConcurrency = step.measuredConcurrency ?? other?.measuredConcurrency;
      return {
        ...step,
        namedLoad: step.namedLoad && (other?.namedLoad ?? true),
        ...(measuredConcurrency !== undefined ? { measuredConcurrency } : {}),
        entries: [...step.entries, ...(other?.entries ?? []).map((entry) => ({ ...entry, field: entry.field + offset }))],
      };
    }),
    guidellmRows: first.guidellmRows && second.guidellmRows,
    consoleLatencyInSeconds: first.consoleLatencyInSeconds || second.consoleLatencyInSeconds,
    notes: [...first.notes, ...second.notes],
    rowNotes: [...first.rowNotes, ...second.rowNotes],
    unread: [...first.unread, ...second.unread],
  };
}

/** A run of a table: its document, the lines of its steps and the labels its rows state. */
export interface TableRun {
  doc: ResultDocument;
  tool: string;
  labels: Labels;
  /** Rows that differ in their labels are runs of their own. */
  groupKey: string;
  stepLines: number[];
}

const TIME_METRICS: readonly string[] = ['ttftMs', 'tpotMs', 'itlMs', 'latencyMs'];
const STATS_KEYS = new Set(['mean', 'std', 'min', 'max', ...PERCENTILES.map((p) => `p${p}`)]);

/** The median of some numbers (NaN for none). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

const scalar = (entry: Entry | undefined) => (typeof entry?.value === 'number' ? entry.value : undefined);

/**
 * The runs of a table reading, or why it is not a benchmark table. `path` names the file in the
 * documents; the context's labels are the caller's to add.
 */
export function tableRuns(reading: TableReading, path: string): { ok: true; runs: TableRun[] } | { ok: false; reason: string } {
  const present = new Set(reading.steps.flatMap((step) => step.entries.map((entry) => entry.field)));
  const fields = reading.fields.map((field, index) => ({ ...field, index, present: present.has(index) }));
  const metricFields = (metric: StatMetric) => fields.filter((f) => (f.meaning?.kind === 'stat' || f.meaning?.kind === 'percentiles') && f.meaning.metric === metric);
  // GuideLLM's meanings hold in its tables (rows named by its strategies) and under its words
  // ("Time to First Token", "Inter Token Latency"), which LLM Bench's Markdown export prints too.
  const guidellmRows = reading.guidellmRows && metricFields('ttftMs').length > 0 && (metricFields('itlMs').length > 0 || metricFields('tpotMs').length > 0);
  const guidellmWords = fields.some((f) => /^time to first token\b/i.test(f.heading)) && fields.some((f) => /^inter[- ]?token latency\b/i.test(f.heading));
  const guidellm = guidellmRows || guidellmWords;
  const notes: string[] = [];
  // GuideLLM's "ITL" is our TPOT; its own TPOT includes the first token's wait and is not imported.
  const meaningOf = (field: Field): Heading => {
    const meaning = field.meaning;
    if (!guidellm || !meaning || (meaning.kind !== 'stat' && meaning.kind !== 'percentiles')) return meaning;
    if (meaning.metric === 'tpotMs') return null;
    if (meaning.metric === 'itlMs') return { ...meaning, metric: 'tpotMs' };
    return meaning;
  };
  const metrics = perfMetrics(fields.filter((f) => f.present).map(meaningOf));
  const at = `line ${reading.firstLine + 1}`;
  if (reading.steps.length === 0) {
    const reason = reading.rowNotes.some((n) => /states no load/.test(n.text)) ? 'no load (concurrency or rate) for its rows' : 'no row with a figure';
    return { ok: false, reason: `${at}: a table of ${[...perfMetrics(fields.map(meaningOf))].join(', ') || 'figures'} with ${reason}` };
  }
  if (metrics.size < 2) return { ok: false, reason: `${at}: a table naming ${metrics.size ? [...metrics].join(', ') : 'no performance metric'}; a benchmark table names at least two (TTFT, TPOT, ITL, latency, requests/s, tokens/s)` };

  // Units: the heading's, else the one its cells carry, else inferred (and said so).
  const unitOf = new Map<number, string | null>();
  const unitless: { field: (typeof fields)[number]; metric: string }[] = [];
  for (const field of fields) {
    const meaning = meaningOf(field);
    if (!meaning || !field.present) continue;
    const timed = (meaning.kind === 'stat' || meaning.kind === 'percentiles') && TIME_METRICS.includes(meaning.metric);
    const duration = meaning.kind === 'figure' && meaning.figure === 'durationSec';
    if (!timed && !duration) continue;
    let unit: string | null = 'unit' in meaning ? meaning.unit : null;
    if (guidellm && reading.consoleLatencyInSeconds && timed && 'metric' in meaning && meaning.metric === 'latencyMs') unit = 's';
    if (!unit) {
      const written = reading.steps.flatMap((step) => step.entries.filter((e) => e.field === field.index && toMs(e.unit) !== null).map((e) => e.unit as string));
      unit = written.length ? (toMs(written[0]) === 1 ? 'ms' : 's') : null;
    }
    if (unit) unitOf.set(field.index, toMs(unit) === 1 ? 'ms' : 's');
    else unitless.push({ field, metric: duration ? 'durationSec' : (meaning as { metric: string }).metric });
  }
  if (unitless.length) notes.push(...inferUnits(reading, unitless, unitOf, guidellm, meaningOf));
  if (guidellm && reading.consoleLatencyInSeconds) notes.push(IMPORT_NOTE_TEXT.text.guidellmConsoleSeconds);

  const throughputAssumed = new Set<string>();
  const steps = reading.steps.map((row) => {
    const outside: string[] = [];
    const withoutMean: string[] = [];
    const twice: string[] = [];
    const stats: Record<StatMetric, PartialStats> = { ttftMs: {}, tpotMs: {}, itlMs: {}, latencyMs: {}, inputTokens: {}, outputTokens: {} };
    const figures: Partial<Record<StepFigure | 'requestsOf', number>> = {};
    const set = <T extends Record<string, number | null | undefined>>(target: T, key: keyof T & string, value: number, what: string) => {
      const old = target[key];
      if (old === undefined || old === null) (target as Record<string, number>)[key] = value;
      else if (Math.abs(old - value) > 1e-9 * Math.max(1, Math.abs(old))) twice.push(`line ${row.line + 1}: ${what} ${old} and ${value}`);
    };
    for (const entry of row.entries) {
      const field = fields[entry.field];
      if (!field) continue;
      const meaning = meaningOf(field);
      if (!meaning) continue;
      if (meaning.kind === 'figure') {
        const value = scalar(entry);
        if (value === undefined) continue;
        let figure: StepFigure = meaning.figure;
        if (figure === 'throughput') {
          // A throughput of no stated kind: requests if its cells say req/s, else tokens, read as output tokens/s.
          if (/^(req|reqs|requests?)\//.test(entry.unit ?? '') || /^(rps|qps)$/.test(entry.unit ?? '')) figure = 'requestsPerSecond';
          else {
            figure = 'outputTokensPerSecond';
            throughputAssumed.add(field.heading);
          }
        }
        if (figure === 'durationSec') set(figures, figure, value * ((toMs(entry.unit) ?? toMs(unitOf.get(field.index)) ?? 1000) / 1000), 'duration');
        else set(figures, figure, value, FIGURE_NAMES[figure]);
        if (entry.of !== undefined) figures.requestsOf = entry.of;
        continue;
      }
      if (meaning.kind !== 'stat' && meaning.kind !== 'percentiles') continue;
      const timed = TIME_METRICS.includes(meaning.metric);
      const scale = (value: number) => (timed ? value * (toMs(entry.unit) ?? toMs(unitOf.get(field.index)) ?? 1) : value);
      const pairs: [string, number][] =
        meaning.kind === 'stat' ? [[meaning.stat, scalar(entry) ?? NaN]] : meaning.percentiles.map((p, i) => [p === 50 ? 'p50' : `p${p}`, (entry.value as number[])[i] ?? NaN]);
      for (const [stat, value] of pairs) {
        if (!Number.isFinite(value)) continue;
        if (STATS_KEYS.has(stat)) set(stats[meaning.metric], stat as keyof PartialStats, scale(value), `${METRIC_NAMES[meaning.metric]} ${stat}`);
        else outside.push(`line ${row.line + 1} (${stepName(row.profile)}): ${METRIC_NAMES[meaning.metric]} ${stat.replace(/^p/, '')}% ${value}`);
      }
    }
    const stat = (metric: StatMetric): Stats | null => {
      const given = Object.keys(stats[metric]);
      // Our statistics hang on a mean: figures given without one are named in the notes, not dropped silently.
      if (given.length > 0 && stats[metric].mean === undefined) withoutMean.push(`line ${row.line + 1}: ${metric} ${given.join(', ')}`);
      return statsFrom(stats[metric]);
    };
    const requests = requestCounts(figures);
    const step = importedStep(row.profile, {
      ...(requests ? { requests } : {}),
      durationSec: figures.durationSec ?? null,
      requestsPerSecond: figures.requestsPerSecond ?? null,
      outputTokensPerSecond: figures.outputTokensPerSecond ?? null,
      totalTokensPerSecond: figures.totalTokensPerSecond ?? null,
      achievedConcurrency: row.measuredConcurrency ?? null,
      ttftMs: stat('ttftMs'),
      tpotMs: stat('tpotMs'),
      itlMs: stat('itlMs'),
      latencyMs: stat('latencyMs'),
      inputTokens: stat('inputTokens'),
      outputTokens: stat('outputTokens'),
    }, [], undefined, row.namedLoad && !/^\d+(\.\d+)?$/.test(row.name.trim()) ? row.name : undefined);
    return { row, step, outside, withoutMean, twice };
  });

  // What was read and what was not, table by table.
  const tables = [...new Set(fields.map((f) => f.table))];
  const readNotes: string[] = [];
  for (const table of tables) {
    const read = fields
      .filter((f) => f.table === table && f.present)
      .map((f) => {
        const meaning = meaningOf(f);
        return meaning
          ? fillPlaceholders(IMPORT_READ_TEXT.readAs, [f.heading, describeHeading(meaning)])
          : fillPlaceholders(IMPORT_READ_TEXT.notImported, [f.heading, guidellm && /tpot/i.test(f.heading) ? IMPORT_READ_TEXT.why.guidellmTpot : IMPORT_READ_TEXT.why.noField]);
      });
    const loadsRead = fields
      .filter((f) => f.table === table && (f.meaning?.kind === 'load' || f.meaning?.kind === 'label'))
      .map((f) => fillPlaceholders(IMPORT_READ_TEXT.readAs, [f.heading, describeHeading(f.meaning)]));
    const transposed = fields.some((f) => f.table === table && f.transposed);
    readNotes.push(fillPlaceholders(transposed ? IMPORT_READ_TEXT.byRows : IMPORT_READ_TEXT.byColumns, [table + 1, [...read, ...loadsRead].join('; ')]));
  }
  notes.unshift(...readNotes);
  if (reading.unread.length) notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.text.notRead, [[...new Set(reading.unread)].join('; ')]));
  for (const heading of throughputAssumed) notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.text.throughputAssumed, [heading]));
  if (reading.steps.some((row) => row.measuredConcurrency !== undefined)) {
    notes.push(IMPORT_NOTE_TEXT.text.measuredConcurrency);
  }
  if (!steps.some(({ step }) => (step.summary?.requests.total ?? 0) > 0)) notes.push(IMPORT_NOTE_TEXT.text.noCounts);
  const seen = new Map<string, number>();
  for (const row of reading.steps) {
    const key = stepKey(row);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, row.line);
    else reading.rowNotes.push({ group: groupOf(row.labels), text: fillPlaceholders(IMPORT_NOTE_TEXT.text.rowTwice, [first + 1, row.line + 1, stepName(row.profile)]) });
  }
  notes.push(...reading.notes);

  const toolNotes = guidellmRows
    ? [
        ...GUIDELLM_NOTES,
        fields.some((f) => /TTFT|ITL|TPOT/i.test(f.heading))
          ? IMPORT_NOTE_TEXT.text.guidellmPrinted
          : IMPORT_NOTE_TEXT.text.guidellmBefore02,
      ]
    : [
        IMPORT_NOTE_TEXT.text.anyTable,
        ...(guidellm
          ? [IMPORT_NOTE_TEXT.text.guidellmWords]
          : []),
      ];
  const tool = guidellmRows ? GUIDELLM_TOOL : TABLE_TOOL;
  const groups = new Map<string, { labels: Labels; steps: (typeof steps)[number][] }>();
  for (const item of steps) {
    const key = groupOf(item.row.labels);
    const group = groups.get(key) ?? { labels: item.row.labels, steps: [] };
    group.steps.push(item);
    groups.set(key, group);
  }
  const runs: TableRun[] = [];
  for (const [groupKey, group] of groups) {
    const ofGroup = reading.rowNotes.filter((note) => note.group === groupKey);
    const unreadable = ofGroup.filter((note) => note.unreadable).map((note) => note.text);
    const listed = (what: 'outside' | 'withoutMean' | 'twice') => group.steps.flatMap((s) => s[what]).join('; ');
    const runNotes = [
      ...toolNotes,
      ...notes,
      ...(listed('outside') ? [fillPlaceholders(IMPORT_NOTE_TEXT.text.percentilesOutside, [listed('outside')])] : []),
      ...(listed('withoutMean') ? [fillPlaceholders(IMPORT_NOTE_TEXT.text.withoutMean, [listed('withoutMean')])] : []),
      ...(listed('twice') ? [fillPlaceholders(IMPORT_NOTE_TEXT.text.twice, [listed('twice')])] : []),
      ...ofGroup.filter((note) => !note.unreadable).map((note) => note.text),
      ...(unreadable.length ? [fillPlaceholders(IMPORT_NOTE_TEXT.text.unreadable, [unreadable.join('; ')])] : []),
    ];
    const outcome = importedResult({ tool, version: null, path, notes: runNotes, model: group.labels['model'] ?? 'unknown', config: {} }, group.steps.map((s) => s.step));
    if (outcome.ok) runs.push({ doc: outcome.value, tool, labels: group.labels, groupKey, stepLines: group.steps.map((s) => s.row.line) });
  }
  return { ok: true, runs };
}

/** Request counts from what a table gives (`186/188` completed, `2/188` failed, or any two of total, completed, failed); null for none. */
function requestCounts(figures: Partial<Record<string, number>>): { total: number; completed: number; failed: number } | null {
  const whole = (v: number | undefined) => (v !== undefined && Number.isInteger(v) && v >= 0 ? v : undefined);
  const completedGiven = whole(figures['requestsCompleted']);
  const failedGiven = whole(figures['requestsFailed']);
  const total = whole(figures['requestsTotal']) ?? whole(figures['requestsOf']) ?? (completedGiven !== undefined || failedGiven !== undefined ? (completedGiven ?? 0) + (failedGiven ?? 0) : undefined);
  if (total === undefined) return null;
  const completed = completedGiven ?? (failedGiven !== undefined ? total - failedGiven : total);
  const failed = failedGiven ?? total - completed;
  return completed >= 0 && failed >= 0 && completed + failed <= total ? { total, completed, failed } : null;
}

/**
 * Units for time columns that state none, said in the notes. GuideLLM prints latency in seconds and
 * the rest in ms. Elsewhere a request latency is settled by Little's law where a row gives its
 * concurrency and requests/s (concurrency = requests/s x latency in a closed loop, which tells
 * seconds from ms by a factor of 1000), else by its size (100 or more reads as ms); other unitless
 * times follow the latency's unit, or without one, read as seconds when every figure is below 1
 * (no server answers in under a millisecond) and ms otherwise. A duration is in seconds.
 */
function inferUnits(
  reading: TableReading,
  unitless: { field: { index: number; heading: string }; metric: string }[],
  unitOf: Map<number, string | null>,
  guidellm: boolean,
  meaningOf: (field: Field) => Heading,
): string[] {
  const notes: string[] = [];
  const valuesOf = (index: number) => reading.steps.flatMap((step) => step.entries.filter((e) => e.field === index).flatMap((e) => (Array.isArray(e.value) ? e.value : [e.value])));
  const decide = (index: number, unit: 's' | 'ms') => unitOf.set(index, unit);
  if (guidellm) {
    for (const { field, metric } of unitless) decide(field.index, metric === 'latencyMs' || metric === 'durationSec' ? 's' : 'ms');
    notes.push(fillPlaceholders(IMPORT_NOTE_TEXT.text.guidellmUnitless, [unitless.map((u) => `"${u.field.heading}"`).join(', ')]));
    return notes;
  }
  let latencyUnit: 's' | 'ms' | null = null;
  for (const { field } of unitless.filter((u) => u.metric === 'latencyMs')) {
    const ratios: number[] = [];
    for (const step of reading.steps) {
      const latency = step.entries.find((e) => e.field === field.index);
      const rps = step.entries.find((e) => {
        const meaning = reading.fields[e.field] ? meaningOf(reading.fields[e.field] as Field) : null;
        return meaning?.kind === 'figure' && (meaning.figure === 'requestsPerSecond' || (meaning.figure === 'throughput' && /^(req|rps|qps)/.test(e.unit ?? '')));
      });
      const c = step.profile.kind === 'concurrency' ? step.profile.concurrency : undefined;
      const l = scalar(latency);
      const r = scalar(rps);
      if (c && l && r && l > 0 && r > 0) ratios.push(c / (r * l));
    }
    const ratio = median(ratios);
    let unit: 's' | 'ms';
    let why: string;
    if (ratios.length && ratio >= 1 / 3 && ratio <= 3) {
      unit = 's';
      why = fillPlaceholders(IMPORT_UNIT_TEXT.why.littleSeconds, [ratio.toFixed(2)]);
    } else if (ratios.length && ratio * 1000 >= 1 / 3 && ratio * 1000 <= 3) {
      unit = 'ms';
      why = fillPlaceholders(IMPORT_UNIT_TEXT.why.littleMs, [(ratio * 1000).toFixed(2)]);
    } else {
      unit = median(valuesOf(field.index)) >= 100 ? 'ms' : 's';
      why = ratios.length ? fillPlaceholders(IMPORT_UNIT_TEXT.why.bySizeNeither, [ratio.toFixed(4)]) : IMPORT_UNIT_TEXT.why.bySize;
    }
    decide(field.index, unit);
    latencyUnit ??= unit;
    notes.push(fillPlaceholders(IMPORT_UNIT_TEXT.noUnit[unit], [field.heading, why]));
  }
  for (const { field, metric } of unitless.filter((u) => u.metric !== 'latencyMs')) {
    let unit: 's' | 'ms';
    let why: string;
    if (metric === 'durationSec') {
      unit = 's';
      why = IMPORT_UNIT_TEXT.why.duration;
    } else if (latencyUnit) {
      unit = latencyUnit;
      why = IMPORT_UNIT_TEXT.why.asLatency;
    } else {
      const values = valuesOf(field.index);
      unit = values.length && values.every((v) => v < 1) ? 's' : 'ms';
      why = IMPORT_UNIT_TEXT.why.bySize;
    }
    decide(field.index, unit);
    notes.push(fillPlaceholders(IMPORT_UNIT_TEXT.noUnit[unit], [field.heading, why]));
  }
  return notes;
}

