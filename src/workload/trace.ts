/**
 * Production traces read row by row (issue 22): Mooncake JSONL, Azure LLM inference CSV (2023 and
 * 2024), BurstGPT CSV, and any JSONL or CSV whose columns the config names (src/format/trace.ts).
 * The file is streamed in chunks and each row becomes an entry as it is read: a trace of millions of
 * rows is never held whole, as text or as rows. Rows are replayed in file order, so their times must
 * not go backwards. A bad row stops the reading with its file, line and what is wrong, or, when the
 * source asks to skip bad rows, is counted by reason.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { TraceColumns, TraceFormat, TraceSource, TraceTimeUnit } from '../format/trace';
import { BadInputError, printable, quote } from '../format/errors';
import { fillPlaceholders, TRACE_LEFT_OUT_TEXT } from '../format/warning-text';

/** One request of the trace, as it is to be replayed. */
export interface TraceEntry {
  /** Its place among the entries of this reading, from 0. */
  index: number;
  /** Its line in the file, from 1. */
  line: number;
  /** When to send it: ms after the first entry's send, the time scale applied. */
  atMs: number;
  /** When it was recorded: ms after the trace's first row, as in the file (no scale). */
  recordedMs: number;
  inputTokens: number;
  outputTokens: number;
  /** The prompt's blocks (Mooncake's hash_ids): requests that share an id share that block. */
  hashIds?: readonly number[];
}

/** Why a row cannot be replayed. */
export type BadRowReason = 'unparsable' | 'missing-field' | 'bad-time' | 'time-backwards' | 'bad-length' | 'bad-hash-ids';

const REASON_WORDS: Readonly<Record<BadRowReason, string>> = TRACE_LEFT_OUT_TEXT.why;

export interface LineCount {
  count: number;
  /** The first line it happened at. */
  firstLine: number;
}

/** What a reading of the trace found; complete once its entries have all been taken. */
export interface TraceStats {
  format: TraceFormat;
  /** Data rows read (not the header, not blank lines). */
  rows: number;
  /** Entries given out. */
  entries: number;
  /** Bad rows skipped (skipBadRows), by reason. */
  skipped: Partial<Record<BadRowReason, LineCount>>;
  /** BurstGPT rows with 0 response tokens: requests that failed when recorded, left out. */
  failedRequests: LineCount | null;
  /** Rows before the window's start, left out. */
  beforeWindow: number;
  /** Why reading stopped before the file's end, if it did. */
  stoppedAt: 'window-end' | 'max-requests' | null;
  /** Recorded times (ms after the trace's first row) of the first and last rows read with a time. */
  recordedSpanMs: { first: number; last: number } | null;
}

export interface TraceReader {
  readonly path: string;
  readonly format: TraceFormat;
  /**
   * The entries, read from the file as they are taken. Each call reads the file again from its
   * start. Rejects with a TraceError at a bad row (unless skipped), and at the end when no entry
   * was given (an empty file, every row skipped, or a window with no rows).
   */
  entries(): AsyncGenerator<TraceEntry, void, undefined>;
  /** Of the latest reading (a new one starts with each call to entries()). */
  readonly stats: TraceStats;
}

/** A trace that cannot be read as given: the message names the file, the line and what to do. */
export class TraceError extends BadInputError {
  constructor(message: string) {
    super(printable(message));
  }
}

/** The advice a bad row's message ends with. */
export const SKIP_BAD_ROWS_ADVICE = 'Fix or remove the row, or skip such rows and count them (--skip-bad-rows on the command line, skipBadRows in the trace config).';

/** Longer lines are refused: no trace format has rows this long, and it bounds what one line holds. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Opens a trace: checks that the file can be read and tells or checks its format from its first
 * line. Rejects with a TraceError that says what is wrong.
 */
export async function openTrace(source: TraceSource): Promise<TraceReader> {
  const { path } = source;
  try {
    if ((await stat(path)).isDirectory()) throw new TraceError(`Trace file ${path} is a folder, not a file. Give a trace file (.jsonl or .csv).`);
  } catch (error) {
    if (error instanceof TraceError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new TraceError(`Trace file ${path} ${code === 'ENOENT' ? 'was not found' : `could not be read (${code ?? String(error)})`}.`);
  }
  let format: TraceFormat | undefined;
  for await (const { line, number } of fileLines(path)) {
    if (line.trim().length === 0) continue;
    format = startRows(source, line, number).format;
    break;
  }
  if (format === undefined) throw new TraceError(`Trace file ${path} is empty: it has no rows to replay.`);
  const known: TraceFormat = format;
  let stats = emptyStats(known);
  return {
    path,
    format: known,
    get stats() {
      return stats;
    },
    entries() {
      stats = emptyStats(known);
      return readEntries(source, stats);
    },
  };
}

/** What skipped and failed rows a reading left out, in a sentence for the run's log; null when none. */
export function describeLeftOut(path: string, stats: TraceStats): string | null {
  const text = TRACE_LEFT_OUT_TEXT;
  const skipped = Object.entries(stats.skipped) as [BadRowReason, LineCount][];
  const parts = skipped.map(([reason, c]) => fillPlaceholders(c.count === 1 ? text.reasonOne : text.reason, [c.count, REASON_WORDS[reason], c.firstLine]));
  const bad = skipped.reduce((n, [, c]) => n + c.count, 0);
  const sentences: string[] = [];
  if (parts.length > 0) sentences.push(fillPlaceholders(bad === 1 ? text.skippedOne : text.skipped, [bad, parts.reduce((joined, part) => fillPlaceholders(text.reasons, [joined, part]))]));
  const failed = stats.failedRequests;
  if (failed) sentences.push(fillPlaceholders(failed.count === 1 ? text.failedOne : text.failed, [failed.count, failed.firstLine]));
  return sentences.length === 0 ? null : fillPlaceholders(text.file, [path, sentences.reduce((joined, sentence) => fillPlaceholders(text.sentences, [joined, sentence]))]);
}

function emptyStats(format: TraceFormat): TraceStats {
  return { format, rows: 0, entries: 0, skipped: {}, failedRequests: null, beforeWindow: 0, stoppedAt: null, recordedSpanMs: null };
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The file's lines with their numbers (from 1), read in chunks; `\r\n` endings and a leading BOM are dropped. */
async function* fileLines(path: string): AsyncGenerator<{ line: string; number: number }, void, undefined> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  let rest = '';
  let number = 0;
  const take = (raw: string): { line: string; number: number } => {
    number++;
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (number === 1 && line.startsWith('\uFEFF')) line = line.slice(1);
    return { line, number };
  };
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = rest + chunk;
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        yield take(text.slice(start, end));
        start = end + 1;
      }
      rest = text.slice(start);
      if (rest.length > MAX_LINE_CHARS) throw new TraceError(`Trace file ${path} line ${number + 1} is longer than ${MAX_LINE_CHARS / 1024 / 1024} MiB: this is not a trace of one request per line.`);
    }
  } catch (error) {
    if (error instanceof TraceError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new TraceError(`Trace file ${path} could not be read${number > 0 ? ` after line ${number}` : ''} (${code ?? (error as Error).message}).`);
  } finally {
    stream.destroy();
  }
  if (rest.length > 0) yield take(rest);
}

/** A row read from the file: its time in the file's own clock (ms), its lengths and blocks. */
interface Row {
  timeMs: number;
  inputTokens: number;
  outputTokens: number;
  hashIds?: number[];
}

/** A row that cannot be replayed; `failed` marks BurstGPT's recorded failures, which are not errors. */
interface BadRow {
  reason: BadRowReason | 'failed';
  problem: string;
}

interface RowReader {
  format: TraceFormat;
  /** The first line is a header, read by startRows. */
  headerRead: boolean;
  read(line: string): Row | BadRow;
}

async function* readEntries(source: TraceSource, stats: TraceStats): AsyncGenerator<TraceEntry, void, undefined> {
  const { path, timeScale, window, maxRequests, skipBadRows } = source;
  const startMs = (window?.startSec ?? 0) * 1000;
  const endMs = window?.endSec === undefined ? Infinity : window.endSec * 1000;
  let reader: RowReader | undefined;
  let originMs: number | undefined;
  let previous: { timeMs: number; line: number } | undefined;
  let firstSentMs: number | undefined;
  const count = (table: Partial<Record<string, LineCount>>, key: string, line: number): void => {
    const c = table[key];
    if (c) c.count++;
    else table[key] = { count: 1, firstLine: line };
  };
  const bad = (line: number, reason: BadRowReason, problem: string): void => {
    if (!skipBadRows) throw new TraceError(`Trace file ${path} line ${line}: ${problem}. ${SKIP_BAD_ROWS_ADVICE}`);
    count(stats.skipped, reason, line);
  };
  for await (const { line: text, number } of fileLines(path)) {
    if (text.trim().length === 0) continue;
    if (reader === undefined) {
      reader = startRows(source, text, number);
      if (reader.headerRead) continue;
    }
    stats.rows++;
    const row = reader.read(text);
    if ('reason' in row) {
      if (row.reason === 'failed') {
        stats.failedRequests ??= { count: 0, firstLine: number };
        stats.failedRequests.count++;
      } else bad(number, row.reason, row.problem);
      continue;
    }
    if (previous !== undefined && row.timeMs < previous.timeMs) {
      bad(number, 'time-backwards', `its time is ${formatMs(previous.timeMs - row.timeMs)} before that of line ${previous.line}; rows are replayed in file order, so times must not go backwards (sort the file by time)`);
      continue;
    }
    previous = { timeMs: row.timeMs, line: number };
    originMs ??= row.timeMs;
    const recordedMs = row.timeMs - originMs;
    stats.recordedSpanMs = { first: stats.recordedSpanMs?.first ?? recordedMs, last: recordedMs };
    if (recordedMs < startMs) {
      stats.beforeWindow++;
      continue;
    }
    if (recordedMs >= endMs) {
      stats.stoppedAt = 'window-end';
      break;
    }
    firstSentMs ??= recordedMs;
    const entry: TraceEntry = {
      index: stats.entries,
      line: number,
      atMs: (recordedMs - firstSentMs) / timeScale,
      recordedMs,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      ...(row.hashIds !== undefined && row.hashIds.length > 0 ? { hashIds: row.hashIds } : {}),
    };
    stats.entries++;
    yield entry;
    if (maxRequests !== undefined && stats.entries >= maxRequests) {
      stats.stoppedAt = 'max-requests';
      break;
    }
  }
  if (stats.entries === 0) throw new TraceError(nothingToReplay(source, stats));
}

/** Why a reading gave no entry, worded for the user. */
function nothingToReplay(source: TraceSource, stats: TraceStats): string {
  const { path, window } = source;
  if (stats.rows === 0) return `Trace file ${path} has no rows to replay: it has ${stats.format === 'azure' || stats.format === 'burstgpt' ? 'only its header' : 'no data rows'}.`;
  const span = stats.recordedSpanMs;
  const leftOut = describeLeftOut(path, stats) ?? '';
  if (window !== undefined && span !== null && (stats.beforeWindow > 0 || stats.stoppedAt === 'window-end')) {
    const slice = window.endSec === undefined ? `from ${window.startSec} s on` : `from ${window.startSec} s to ${window.endSec} s`;
    return `Trace file ${path} has no rows ${slice} after its first row: the rows read run from 0 s to ${formatSeconds(span.last)}. Choose a window inside the trace. ${leftOut}`.trim();
  }
  return `Trace file ${path} has no rows to replay: ${stats.rows} ${stats.rows === 1 ? 'row was' : 'rows were'} read and none could be replayed. ${leftOut}`.trim();
}

const formatSeconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;
const formatMs = (ms: number): string => (ms >= 1000 ? formatSeconds(ms) : `${Number(ms.toFixed(3))} ms`);

// ---------------------------------------------------------------------------------------------
// Formats

/** The columns of the publishers' CSV formats, and the unit of their time column. */
const AZURE: TraceColumns = { time: 'TIMESTAMP', timeUnit: 'datetime', inputTokens: 'ContextTokens', outputTokens: 'GeneratedTokens' };
const BURSTGPT: TraceColumns = { time: 'Timestamp', timeUnit: 's', inputTokens: 'Request tokens', outputTokens: 'Response tokens' };
const MOONCAKE: TraceColumns = { time: 'timestamp', timeUnit: 'ms', inputTokens: 'input_length', outputTokens: 'output_length', hashIds: 'hash_ids' };

const FORMAT_HELP =
  'Known formats: mooncake (JSONL with timestamp, input_length, output_length, hash_ids), azure (CSV with TIMESTAMP, ContextTokens, GeneratedTokens), ' +
  'burstgpt (CSV with Timestamp, Model, Request tokens, Response tokens, Total tokens, Log Type); for another file, name its columns ' +
  '(trace config: format "columns" and columns {time, timeUnit, inputTokens, outputTokens, hashIds?}).';

/**
 * Reads the first non-blank line: tells the format (or checks the one given) and, for a CSV file,
 * maps the header's columns. Throws a TraceError naming what is missing.
 */
function startRows(source: TraceSource, line: string, number: number): RowReader {
  const { path } = source;
  const jsonl = line.trimStart().startsWith('{');
  const given = source.format ?? (source.columns !== undefined ? 'columns' : undefined);
  if (jsonl) {
    const first = parseJsonObject(line);
    if (typeof first === 'string') throw new TraceError(`Trace file ${path} line ${number}: ${first}. ${FORMAT_HELP}`);
    const fields = Object.keys(first);
    const format = given ?? (hasAll(fields, MOONCAKE, false) ? 'mooncake' : undefined);
    if (format === undefined) throw new TraceError(`Trace file ${path}: its first row (line ${number}) has the fields ${listNames(fields)}, which are not a Mooncake trace's. ${FORMAT_HELP}`);
    if (format === 'azure' || format === 'burstgpt') throw new TraceError(`Trace file ${path} is JSONL (line ${number} is a JSON object), but the format given is ${format}, whose files are CSV. ${FORMAT_HELP}`);
    // The first row is data: where the format was given, a field it lacks makes it a bad row.
    return { format, headerRead: false, read: jsonRowReader(format === 'mooncake' ? MOONCAKE : (source.columns as TraceColumns)) };
  }
  const header = parseCsvLine(line);
  if (header === null) throw new TraceError(`Trace file ${path} line ${number}: the header has a quote that is not closed. ${FORMAT_HELP}`);
  const names = header.map((h) => h.trim());
  const format = given ?? (hasAll(names, AZURE, true) ? 'azure' : hasAll(names, BURSTGPT, true) ? 'burstgpt' : undefined);
  if (format === undefined) {
    throw new TraceError(`Trace file ${path}: its first line (line ${number}) is neither a JSON object nor a known CSV header (it has ${listNames(names)}). ${FORMAT_HELP}`);
  }
  if (format === 'mooncake') throw new TraceError(`Trace file ${path}: the format given is mooncake (JSONL), but line ${number} is not a JSON object. ${FORMAT_HELP}`);
  const columns = format === 'azure' ? AZURE : format === 'burstgpt' ? BURSTGPT : (source.columns as TraceColumns);
  const missing = missingColumns(names, columns);
  if (missing.length > 0) throw new TraceError(`Trace file ${path}: its header (line ${number}) has no column ${listNames(missing)} (it has ${listNames(names)}). ${FORMAT_HELP}`);
  return { format, headerRead: true, read: csvRowReader(names, columns, format === 'burstgpt') };
}

const listNames = (names: readonly string[]): string => (names.length === 0 ? 'none' : names.map((n) => JSON.stringify(n)).join(', '));

/** Where `name` is among `names`: the exact name, else the same name in another case. */
function findName(names: readonly string[], name: string): number {
  const exact = names.indexOf(name);
  if (exact !== -1) return exact;
  const lower = name.toLowerCase();
  return names.findIndex((n) => n.toLowerCase() === lower);
}

const requiredNames = (columns: TraceColumns, withHashIds: boolean): string[] => [columns.time, columns.inputTokens, columns.outputTokens, ...(withHashIds && columns.hashIds !== undefined ? [columns.hashIds] : [])];

/** Whether `names` hold the format's required columns (Mooncake's hash_ids are optional). */
function hasAll(names: readonly string[], columns: TraceColumns, withHashIds: boolean): boolean {
  return requiredNames(columns, withHashIds).every((n) => findName(names, n) !== -1);
}

function missingColumns(names: readonly string[], columns: TraceColumns): string[] {
  return requiredNames(columns, true).filter((n) => findName(names, n) === -1);
}

/** A JSON object, or what is wrong with the line. */
function parseJsonObject(line: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `is not JSON (${(error as Error).message}): ${quote(line)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `is not a JSON object: ${quote(line)}`;
  return value as Record<string, unknown>;
}

function jsonRowReader(columns: TraceColumns): RowReader['read'] {
  return (line) => {
    const object = parseJsonObject(line);
    if (typeof object === 'string') return { reason: 'unparsable', problem: object };
    const keys = Object.keys(object);
    const field = (name: string): unknown => {
      const at = name in object ? name : keys[findName(keys, name)];
      return at === undefined ? undefined : object[at];
    };
    const time = field(columns.time);
    const input = field(columns.inputTokens);
    const output = field(columns.outputTokens);
    for (const [name, value] of [[columns.time, time], [columns.inputTokens, input], [columns.outputTokens, output]] as const) {
      if (value === undefined || value === null || value === '') return { reason: 'missing-field', problem: `it has no "${name}" (its fields: ${keys.join(', ') || 'none'})` };
    }
    return toRow(columns, time, input, output, columns.hashIds === undefined ? undefined : field(columns.hashIds), false);
  };
}

function csvRowReader(header: readonly string[], columns: TraceColumns, zeroOutputFailed: boolean): RowReader['read'] {
  const at = (name: string): number => findName(header, name);
  const [time, input, output] = [at(columns.time), at(columns.inputTokens), at(columns.outputTokens)];
  const hashIds = columns.hashIds === undefined ? -1 : at(columns.hashIds);
  return (line) => {
    const fields = parseCsvLine(line);
    if (fields === null) return { reason: 'unparsable', problem: `it has a quote that is not closed: ${quote(line)}` };
    for (const [name, index] of [[columns.time, time], [columns.inputTokens, input], [columns.outputTokens, output]] as const) {
      const value = fields[index];
      if (value === undefined || value.trim() === '') {
        return { reason: 'missing-field', problem: `its "${name}" (field ${index + 1}) is ${value === undefined ? `missing: the row has ${fields.length} fields, the header ${header.length}` : 'empty'}` };
      }
    }
    return toRow(columns, fields[time], fields[input], fields[output], hashIds === -1 ? undefined : fields[hashIds], zeroOutputFailed);
  };
}

function toRow(columns: TraceColumns, time: unknown, input: unknown, output: unknown, hashIds: unknown, zeroOutputFailed: boolean): Row | BadRow {
  const timeMs = toMs(time, columns.timeUnit);
  if (timeMs === undefined) return { reason: 'bad-time', problem: `its "${columns.time}" ${show(time)} is not ${TIME_WORDS[columns.timeUnit]}` };
  const inputTokens = toCount(input);
  if (inputTokens === undefined || inputTokens < 1) return { reason: 'bad-length', problem: `its "${columns.inputTokens}" is ${show(input)}: input tokens are a whole number of at least 1` };
  const outputTokens = toCount(output);
  if (outputTokens === 0 && zeroOutputFailed) return { reason: 'failed', problem: 'a failed request' };
  if (outputTokens === undefined || outputTokens < 1) return { reason: 'bad-length', problem: `its "${columns.outputTokens}" is ${show(output)}: output tokens are a whole number of at least 1` };
  if (hashIds === undefined || hashIds === null || hashIds === '') return { timeMs, inputTokens, outputTokens };
  const ids = toHashIds(hashIds);
  if (ids === undefined) return { reason: 'bad-hash-ids', problem: `its "${columns.hashIds}" ${show(hashIds)} is not a list of whole numbers of 0 or more` };
  return { timeMs, inputTokens, outputTokens, hashIds: ids };
}

const show = (value: unknown): string => quote(typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value)));

const TIME_WORDS: Readonly<Record<TraceTimeUnit, string>> = {
  s: 'a number of seconds',
  ms: 'a number of milliseconds',
  us: 'a number of microseconds',
  datetime: 'a date and time such as 2023-11-16 18:17:03.9799600 or 2024-05-10 00:00:00.009930+00:00',
};

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A finite number from a JSON number or a numeric string. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A whole number (12 and 12.0, not 12.5), negative ones included for the caller to refuse. */
function toCount(value: unknown): number | undefined {
  const n = toNumber(value);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

const MS_PER_UNIT: Readonly<Record<Exclude<TraceTimeUnit, 'datetime'>, number>> = { s: 1000, ms: 1, us: 0.001 };

function toMs(value: unknown, unit: TraceTimeUnit): number | undefined {
  if (unit === 'datetime') return typeof value === 'string' ? parseDateTime(value) : undefined;
  const n = toNumber(value);
  return n === undefined ? undefined : n * MS_PER_UNIT[unit];
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?\s*(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;

/**
 * Milliseconds since the epoch of a date and time as the Azure traces write it: 2023's
 * `2023-11-16 18:17:03.9799600` (seven decimals, no zone) and 2024's `2024-05-10 00:00:00.009930+00:00`
 * (some rows without decimals, as the dataset's notebook notes); ISO 8601 with `T` and `Z` too.
 * Without a zone the time is read as UTC. Fractions finer than a millisecond are kept.
 */
export function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text.trim());
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const whole = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(whole).getUTCDate() !== day) return undefined; // 2023-02-30
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  return whole + fraction - offsetMinutes * 60_000;
}

/** Hash ids: a JSON array of whole numbers, or (in a CSV cell) such numbers in brackets or split by spaces, commas or semicolons. */
function toHashIds(value: unknown): number[] | undefined {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') {
    const inner = value.trim().replace(/^\[(.*)\]$/s, '$1').trim();
    items = inner === '' ? [] : inner.split(/[\s,;]+/);
  } else return undefined;
  const ids: number[] = [];
  for (const item of items) {
    const id = toCount(item);
    if (id === undefined || id < 0) return undefined;
    ids.push(id);
  }
  return ids;
}

/**
 * The fields of one CSV line (RFC 4180: a field in double quotes may hold commas, `""` is a quote);
 * null when a quote is not closed (trace files have no line breaks inside fields).
 */
export function parseCsvLine(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const close = line.indexOf('"', i);
        if (close === -1) return null;
        value += line.slice(i, close);
        if (line[close + 1] === '"') {
          value += '"';
          i = close + 2;
        } else {
          i = close + 1;
          break;
        }
      }
      const comma = line.indexOf(',', i);
      fields.push(value + (comma === -1 ? line.slice(i) : line.slice(i, comma)));
      if (comma === -1) return fields;
      i = comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      if (comma === -1) {
        fields.push(line.slice(i));
        return fields;
      }
      fields.push(line.slice(i, comma));
      i = comma + 1;
    }
  }
}
