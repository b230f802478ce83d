/**
 * Tables and figures as people paste them: Markdown tables (with `:---:` alignment rows, with or
 * without outer pipes, full-width `｜` from Chinese input methods), Python tabulate grids
 * (`+----+`, `+====+`), rich's box-drawn tables (`┏━┓ ┃ │ ┡━┩`, a long cell wrapped onto the
 * next line) and GuideLLM's console tables (`|`, `||` group separators, a group row above the
 * column names).
 */

/** A table found in a text: its column names (group and sub-header joined) and data rows, with their line numbers (0-based). */
export interface TextTable {
  columns: string[];
  rows: { cells: string[]; line: number }[];
  firstLine: number;
  lastLine: number;
}

const CELL_SEPARATOR = /[|│┃║｜]/;
/** A border or header rule: only drawing characters, `+`, `-`, `=`, `:` and spaces (full-width ones too). */
const RULE = /^[\s+\-=:|─━┄┈═┌┐└┘├┤┬┴┼┏┓┗┛┣┫┳┻╋┡┩╇╈╞╡╪╤╧╔╗╚╝╠╣╦╩╬╭╮╰╯│┃║｜：－]+$/;

/** No printed table row is this long; a longer line (a minified dump, a wall of bars) is not read as one. */
const MAX_TABLE_LINE = 4000;

export const isRule = (line: string): boolean => line.length <= MAX_TABLE_LINE && RULE.test(line) && /[-=─━═－]/.test(line);
export const isTableLine = (line: string): boolean => isRule(line) || (line.length <= MAX_TABLE_LINE && CELL_SEPARATOR.test(line) && line.trim().length > 1);

interface Cell {
  text: string;
  start: number;
}

/** Cells of a row with the column each starts at; the empty cells outside the outer borders are dropped. */
function cellsOf(line: string): Cell[] {
  const cells: Cell[] = [];
  let start = 0;
  for (let i = 0; i <= line.length; i++) {
    if (i === line.length || CELL_SEPARATOR.test(line[i] ?? '')) {
      cells.push({ text: line.slice(start, i).replace(/\*\*|__|`/g, '').trim(), start });
      start = i + 1;
    }
  }
  if (cells.length > 1 && cells[0]?.text === '' && /^\s*[|│┃║｜]/.test(line)) cells.shift();
  if (cells.length > 1 && cells.at(-1)?.text === '' && /[|│┃║｜]\s*$/.test(line)) cells.pop();
  return cells;
}

/**
 * Column names from the header rows. Rows of equal width are joined column by column (a header
 * wrapped over two lines); a wider last row is placed under the row above it by position: each
 * column gets the nearest group name starting at or before it (`Req Latency (ms) | mean | p99`).
 */
function columnNames(header: Cell[][]): string[] {
  const last = header.at(-1) ?? [];
  return last.map((cell, index) => {
    const parts: string[] = [];
    for (const row of header.slice(0, -1)) {
      if (row.length === last.length) parts.push(row[index]?.text ?? '');
      else {
        const group = row.filter((g) => g.text !== '' && g.start <= cell.start + 1).at(-1);
        if (group) parts.push(group.text);
      }
    }
    parts.push(cell.text);
    return parts.filter((p) => p !== '').join(' ').replace(/\s+/g, ' ').trim();
  });
}

/** The table that starts at `start` (a table line), or null when there is no data row under a header. */
export function readTable(lines: readonly string[], start: number): TextTable | null {
  let end = start;
  while (end < lines.length && isTableLine(lines[end] ?? '')) end++;
  const header: Cell[][] = [];
  const rows: TextTable['rows'] = [];
  let inBody = false;
  for (let line = start; line < end; line++) {
    const text = lines[line] ?? '';
    if (isRule(text)) {
      if (header.length > 0) inBody = true;
      continue;
    }
    const cells = cellsOf(text);
    const previous = rows.at(-1);
    // rich wraps a long cell onto the next line, whose first cell is then empty: it continues the row above.
    if (inBody && previous && /[│┃]/.test(text) && cells[0]?.text === '' && cells.some((c) => c.text !== '')) {
      cells.forEach((cell, i) => {
        if (cell.text !== '') previous.cells[i] = `${previous.cells[i] ?? ''} ${cell.text}`.trim();
      });
    } else if (inBody) rows.push({ cells: cells.map((c) => c.text), line });
    else header.push(cells);
  }
  // A table with no rule under its header (a plain `a | b` list, a rich table without header) has its first row as header.
  if (rows.length === 0 && header.length > 1) {
    for (const [i, cells] of header.splice(1).entries()) rows.push({ cells: cells.map((c) => c.text), line: start + i + 1 });
  }
  if (header.length === 0 || rows.length === 0) return null;
  return { columns: columnNames(header), rows, firstLine: start, lastLine: end - 1 };
}

/** A figure as printed, and the unit written after it, if any. */
export interface Figure {
  value: number;
  unit: string | null;
}

/**
 * `1,187.02`, `220.06 sec`, `45 ms`, `12.3 tokens/second`, `0.56 req/sec`, `3.2 秒`, `inf`, and
 * full-width digits. Null for a cell that is not one figure (`N/A`, `-`, `—`, `1O9.2`): the caller
 * flags it instead of guessing.
 */
export function readFigure(cell: string): Figure | null {
  const m = cell
    .normalize('NFKC')
    .replace(/\*\*|__|`/g, '')
    .trim()
    .match(/^([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?|[-+]?\.\d+|inf(?:inity)?)\s*([a-z%]+(?:\s*\/\s*[a-z]+)?|毫秒|秒)?$/i);
  if (!m) return null;
  const number = m[1] ?? '';
  const value = /^[-+]?inf/i.test(number) ? Number.POSITIVE_INFINITY : Number(number.replace(/,/g, ''));
  if (Number.isNaN(value)) return null;
  return { value, unit: m[2]?.toLowerCase().replace(/\s+/g, '') ?? null };
}

/** The factor from a written time unit to ms; null for a unit that is not time. */
export function toMs(unit: string | null | undefined): number | null {
  if (!unit) return null;
  if (/^(ms|msec|millisecond|毫秒)s?$/i.test(unit)) return 1;
  if (/^(s|sec|secs|second|seconds|秒)$/i.test(unit)) return 1000;
  return null;
}

/** The time unit in a column or field name: `TTFT (ms)`, `Latency (sec)`, `Req Latency (s)`, `延迟（秒）`. */
export function unitInName(name: string): string | null {
  return name.normalize('NFKC').match(/[([]\s*(ms|s|sec|secs|seconds|毫秒|秒)\s*[)\]]/i)?.[1] ?? null;
}
