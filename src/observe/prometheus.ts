/**
 * The Prometheus text exposition format (version 0.0.4, and the OpenMetrics lines servers mix in:
 * `# UNIT`, `# EOF`, exemplars): `# HELP` and `# TYPE` lines, samples with optional labels
 * (escaped `\\`, `\"`, `\n`; a trailing comma; quoted UTF-8 metric names), float values including
 * NaN and ±Inf, and optional timestamps. Pure: the scraper and the tests feed it text.
 */
import type { MetricKind } from '../format/server-metrics';

export interface PromSample {
  /** The sample's own name (`..._bucket`, `..._sum`, `..._total`). */
  name: string;
  /** The family it belongs to by its `# TYPE` line; the name itself when untyped. */
  family: string;
  kind: MetricKind;
  labels: Record<string, string>;
  /** NaN, Infinity and -Infinity as JavaScript numbers. */
  value: number;
  /**
   * The exposition's own timestamp in ms since the epoch, when it gave one: the Prometheus text
   * format writes integer milliseconds, OpenMetrics seconds (whole or with a fraction).
   */
  timestampMs: number | null;
}

export interface PromFamily {
  name: string;
  kind: MetricKind;
  help: string | null;
}

export interface PromParse {
  families: Map<string, PromFamily>;
  samples: PromSample[];
  /** Lines that are not valid exposition, 1-based, with the reason; the rest is still read. */
  problems: { line: number; reason: string }[];
}

const KINDS: Record<string, MetricKind> = { counter: 'counter', gauge: 'gauge', histogram: 'histogram', summary: 'summary', untyped: 'untyped', unknown: 'untyped', gaugehistogram: 'histogram' };
/**
 * Suffixes a family's samples may carry, by kind: the one list of them (OpenMetrics adds `_created`
 * to counters, histograms and summaries, and a gauge histogram's `_gsum` and `_gcount`).
 */
const SUFFIXES: Readonly<Record<MetricKind, readonly string[]>> = {
  counter: ['_total', '_created'],
  gauge: [],
  histogram: ['_bucket', '_sum', '_count', '_created', '_gcount', '_gsum'],
  summary: ['_sum', '_count', '_created'],
  untyped: [],
};
const ANY_SUFFIX = [...new Set(Object.values(SUFFIXES).flat())];

/** A sample name less the sample suffix it ends with, if any (`x_sum` -> `x`): its family's name when no `# TYPE` says. */
export function withoutSampleSuffix(name: string): string {
  const suffix = ANY_SUFFIX.find((s) => name.endsWith(s));
  return suffix === undefined ? name : name.slice(0, -suffix.length);
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/**
 * A sample's value as Prometheus itself reads it: Go's strconv.ParseFloat without the forms Go 1.13
 * added (Prometheus's parsers refuse any `p`, `P` or `_`). That is a decimal number with an optional
 * fraction and exponent (`1`, `-.5`, `1.`, `2.5e-3`), `Inf` or `Infinity` with an optional sign, and
 * `NaN` without one, in any case. Refused, as Prometheus refuses them: hexadecimal (`0x1F`, which Go
 * reads only as a hex float with a `p` exponent, `0x1Fp0`), digit separators (`1_000`), and a number
 * beyond the range of a double (`1e400`, Go's range error). Matching the reference reader means a
 * line we call "not Prometheus text" is one Prometheus would refuse too; no server writes the others.
 */
export function parsePromValue(text: string): number | null {
  if (/^nan$/i.test(text)) return NaN;
  const infinity = /^([+-]?)inf(?:inity)?$/i.exec(text);
  if (infinity) return infinity[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Unescapes `\\`, `\"` and `\n` in a label value (other backslashes stay as written, as Prometheus reads them). */
function unescapeLabel(raw: string): string {
  return raw.replace(/\\(.)/g, (whole, c: string) => (c === 'n' ? '\n' : c === '\\' || c === '"' ? c : whole));
}

/** `# HELP` text escapes only backslash and newline. */
function unescapeHelp(raw: string): string {
  return raw.replace(/\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Reads a double-quoted string starting at `text[at] === '"'`; returns its raw (escaped) content and the index after it. */
function quoted(text: string, at: number): { raw: string; end: number } | null {
  let i = at + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return { raw: text.slice(at + 1, i), end: i + 1 };
    else i++;
  }
  return null;
}

/** Parses `{a="1",b="2"}` from `text[at] === '{'`; a quoted entry without `=` is the metric's name (Prometheus 3). */
function labelSet(text: string, at: number): { labels: Record<string, string>; name: string | null; end: number } | string {
  const labels: Record<string, string> = {};
  let name: string | null = null;
  let i = at + 1;
  for (;;) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text[i] === '}') return { labels, name, end: i + 1 };
    let key: string;
    if (text[i] === '"') {
      const q = quoted(text, i);
      if (!q) return 'an unterminated quoted name';
      key = unescapeLabel(q.raw);
      i = q.end;
    } else {
      const m = LABEL_NAME.exec(text.slice(i));
      if (!m) return `an invalid label name at column ${i + 1}`;
      key = m[0];
      i += key.length;
    }
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text[i] === '=') {
      i++;
      while (text[i] === ' ' || text[i] === '\t') i++;
      if (text[i] !== '"') return `label ${key} has no quoted value`;
      const q = quoted(text, i);
      if (!q) return `label ${key} has an unterminated value`;
      if (key in labels) return `label ${key} appears twice`;
      labels[key] = unescapeLabel(q.raw);
      i = q.end;
    } else if (name === null && Object.keys(labels).length === 0) {
      name = key;
    } else {
      return `label ${key} has no value`;
    }
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') return `a label set not closed by } at column ${i + 1}`;
  }
}

/** The family of a sample name given the `# TYPE`s seen: the name itself, or the name less a suffix its kind allows. */
function familyOf(name: string, families: Map<string, PromFamily>): PromFamily | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  for (const [suffixKind, suffixes] of Object.entries(SUFFIXES) as [MetricKind, readonly string[]][]) {
    for (const suffix of suffixes) {
      if (!name.endsWith(suffix)) continue;
      const family = families.get(name.slice(0, -suffix.length));
      if (family && family.kind === suffixKind) return family;
    }
  }
  return undefined;
}

export interface PromParseOptions {
  /**
   * The answer's Content-Type: `application/openmetrics-text` makes it OpenMetrics (timestamps in
   * seconds) even when the page was cut before its `# EOF`. Without it, a page ending in `# EOF`
   * (which OpenMetrics requires and the Prometheus text format does not have) is OpenMetrics.
   */
  contentType?: string;
  /**
   * Reads only the samples whose name this accepts (the rest are skipped before their labels are
   * parsed, which keeps a scrape of a large exposition cheap); `# HELP`/`# TYPE` are always read.
   */
  selectSample?: (name: string, family: string) => boolean;
}

/** Whether an exposition is OpenMetrics: by its Content-Type when given, else by the `# EOF` OpenMetrics ends with. */
export function isOpenMetrics(text: string, contentType?: string): boolean {
  if (contentType !== undefined && /^\s*application\/openmetrics-text\b/i.test(contentType)) return true;
  if (contentType !== undefined && /^\s*text\/plain\b/i.test(contentType)) return false;
  return /(^|\n)# EOF\s*$/.test(text.slice(-64));
}

/** Parses an exposition; never throws: bad lines are listed in `problems` and skipped. */
export function parsePrometheusText(text: string, options: PromParseOptions = {}): PromParse {
  const families = new Map<string, PromFamily>();
  const samples: PromSample[] = [];
  const problems: { line: number; reason: string }[] = [];
  const lines = text.split('\n');
  const openMetrics = isOpenMetrics(text, options.contentType);
  // What `selectSample` said of each name: a scrape selects a few of hundreds of lines, most of them the same names with other labels.
  const selectedByName = new Map<string, boolean>();
  const selected = (name: string): boolean => {
    let decision = selectedByName.get(name);
    if (decision === undefined) {
      decision = options.selectSample!(name, familyOf(name, families)?.name ?? name);
      selectedByName.set(name, decision);
    }
    return decision;
  };
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n] as string;
    // The common case, a sample not selected, is skipped by its name before the line is copied.
    if (options.selectSample && raw.charCodeAt(0) !== 35 /* # */) {
      const plain = NAME.exec(raw);
      if (plain && (raw[plain[0].length] === '{' || raw[plain[0].length] === ' ') && !selected(plain[0])) continue;
    }
    const line = (raw.endsWith('\r') ? raw.slice(0, -1) : raw).trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s*(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line);
      if (!m) continue; // another comment, `# UNIT`, `# EOF`
      const [, keyword, rawName, rest = ''] = m as unknown as [string, string, string, string | undefined];
      const name = rawName.startsWith('"') && rawName.endsWith('"') ? unescapeLabel(rawName.slice(1, -1)) : rawName;
      const family = families.get(name) ?? { name, kind: 'untyped' as MetricKind, help: null };
      if (keyword === 'TYPE') {
        const kind = KINDS[rest.trim().toLowerCase()];
        if (kind === undefined) {
          problems.push({ line: n + 1, reason: `unknown metric type "${rest.trim()}" for ${name}` });
          continue;
        }
        family.kind = kind;
        selectedByName.clear();
      } else {
        family.help = unescapeHelp(rest);
      }
      families.set(name, family);
      continue;
    }
    let name: string;
    let i: number;
    let labels: Record<string, string> = {};
    const nameMatch = NAME.exec(line);
    if (nameMatch) {
      name = nameMatch[0];
      i = name.length;
    } else if (line[0] === '{') {
      name = '';
      i = 0;
    } else {
      problems.push({ line: n + 1, reason: `"${line.slice(0, 40)}" does not start with a metric name` });
      continue;
    }
    // The family can be known before the labels only for a plain name; a quoted one is read from the labels.
    const namedInLabels = name === '';
    if (!namedInLabels && options.selectSample && !selected(name)) continue;
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] === '{') {
      const set = labelSet(line, i);
      if (typeof set === 'string') {
        problems.push({ line: n + 1, reason: `${name || 'a sample'}: ${set}` });
        continue;
      }
      labels = set.labels;
      if (set.name !== null) {
        if (name !== '') {
          problems.push({ line: n + 1, reason: `${name} is named twice` });
          continue;
        }
        name = set.name;
      }
      i = set.end;
    }
    if (name === '') {
      problems.push({ line: n + 1, reason: 'a sample without a metric name' });
      continue;
    }
    const family = familyOf(name, families);
    if (namedInLabels && options.selectSample && !options.selectSample(name, family?.name ?? name)) continue;
    // An OpenMetrics exemplar (` # {trace_id="..."} 1.0`) follows the value; it is not part of the sample.
    const rest = line.slice(i).replace(/\s#\s.*$/, '').trim();
    const fields = rest.split(/\s+/);
    if (rest === '' || fields.length > 2) {
      problems.push({ line: n + 1, reason: `${name}: expected a value and an optional timestamp, got "${rest.slice(0, 40)}"` });
      continue;
    }
    const value = parsePromValue(fields[0] as string);
    if (value === null) {
      problems.push({ line: n + 1, reason: `${name}: "${fields[0]}" is not a number` });
      continue;
    }
    let timestampMs: number | null = null;
    if (fields[1] !== undefined) {
      const ts = parsePromValue(fields[1]);
      if (ts === null || !Number.isFinite(ts)) {
        problems.push({ line: n + 1, reason: `${name}: "${fields[1]}" is not a timestamp` });
        continue;
      }
      timestampMs = openMetrics ? ts * 1000 : ts;
    }
    samples.push({ name, family: family?.name ?? name, kind: family?.kind ?? 'untyped', labels, value, timestampMs });
  }
  return { families, samples, problems };
}
