/**
 * How every figure prints, in one place: the views, the webviews, the exports and the command line
 * format numbers only through these functions, one per kind of figure, each with its unit's rule.
 * A missing or non-finite value prints as `n/a`: nothing shows a number the measurement (or the
 * imported file) did not have.
 *
 * - a metric's value (src/format/metrics.ts): `formatMetric`, at that metric's own precision;
 * - a figure without a metric of its own (an SLO limit, a load found by a search): `formatNumber`;
 * - a count of things (requests waiting, preemptions): `formatCount`;
 * - a change in percent (compare's delta table): `formatPercentChange`;
 * - seconds of run time: `formatSeconds`, `formatElapsed`; a length of time in words: `formatDuration`;
 *   a moment in the reader's time zone: `formatLocalTime`; a file's size: `formatFileSize`; a chart's axis tick: `formatTick`;
 * - a cell of the tables laid out as other tools print theirs (GuideLLM's table in the terminal,
 *   the live panel and Markdown; vLLM's "Serving Benchmark Result" block; EvalScope's columns) and
 *   of the exports and ranking in that style (the HTML report's tables, the report's ranking and
 *   knees): `fixed` and `withUnit`, a fixed number of decimals without thousands separators.
 */
import { METRICS, type MetricKey } from '../format/metrics';
import { english, type Translate } from './l10n';

export const NOT_AVAILABLE = 'n/a';

export function isNumber(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The locale figures and moments are written in: en-US, unless a page drawing in another display
 * language says its own (webview/shared/l10n.ts). The host, the command line and the exports never
 * set it, so that files, logs and what other tools read stay as they are.
 */
let displayLocale = 'en-US';

const englishLocale = (locale: string): boolean => /^en(-us)?$/i.test(locale);

/** Figures and moments from now on in `locale` (a BCP 47 tag: 'zh-cn', 'de'); English for 'en', or a tag Intl does not know. */
export function setDisplayLocale(locale: string): void {
  let known = 'en-US';
  try {
    if (!englishLocale(locale)) known = Intl.NumberFormat.supportedLocalesOf([locale])[0] ?? 'en-US';
  } catch {
    // A malformed tag: English.
  }
  displayLocale = known;
}

/**
 * `build`'s figures in `locale`, the locale restored after (a throw included): the host formats the
 * view models it sends a page (their notes, a run's workers) in the page's display locale this way,
 * by the same path as the page, and everything else it writes stays en-US.
 */
export function inDisplayLocale<T>(locale: string, build: () => T): T {
  const before = displayLocale;
  setDisplayLocale(locale);
  try {
    return build();
  } finally {
    displayLocale = before;
  }
}

const decimalFormatters = new Map<string, Intl.NumberFormat>();

/**
 * A number with `digits` decimals and thousands separators. One formatter per number of decimals,
 * made once: `toLocaleString` with options builds a new Intl.NumberFormat on every call, which made
 * formatting the step table a visible part of drawing a view.
 */
function withSeparators(value: number, digits: number): string {
  const key = `${displayLocale}|${digits}`;
  let formatter = decimalFormatters.get(key);
  if (!formatter) {
    formatter = new Intl.NumberFormat(displayLocale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    decimalFormatters.set(key, formatter);
  }
  return formatter.format(value);
}

/** Three significant digits or more for large values: 0.0123, 1.23, 12.3, 1,234. */
export function formatNumber(value: number | null | undefined): string {
  if (!isNumber(value)) return NOT_AVAILABLE;
  const magnitude = Math.abs(value);
  return withSeparators(value, magnitude === 0 || magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3);
}

/** A count of things (requests, scrapes), whole, with thousands separators. */
export function formatCount(value: number | null | undefined): string {
  return isNumber(value) ? withSeparators(value, 0) : NOT_AVAILABLE;
}

/** A metric's value at that metric's own precision (src/format/metrics.ts), with thousands separators. */
export function formatMetric(metric: MetricKey, value: number | null | undefined): string {
  return isNumber(value) ? withSeparators(value, METRICS[metric].decimals) : NOT_AVAILABLE;
}

/**
 * A change in percent, signed: "+12%", "-2.5%", "+1,250%" (whole percents from 10 up). A change
 * that rounds to nothing is "0.0%", unsigned: "-0.0%" read as a loss where there was none.
 */
export function formatPercentChange(value: number | null | undefined): string {
  if (!isNumber(value)) return NOT_AVAILABLE;
  const digits = Math.abs(Number(value.toFixed(1))) >= 10 ? 0 : 1;
  const rounded = roundedUnsignedZero(value, digits);
  if (rounded === 0) return `${(0).toFixed(digits)}%`;
  return `${rounded > 0 ? '+' : ''}${withSeparators(rounded, digits)}%`;
}

/**
 * `value` rounded to `digits` decimals, and a value that rounds to nothing as plain 0: printed,
 * "-0.00" would say a side (a loss, a lead) where there is none.
 */
export function roundedUnsignedZero(value: number, digits: number): number {
  const rounded = Number(value.toFixed(digits));
  return rounded === 0 ? 0 : rounded;
}

/** Seconds of run time, "12.3 s" (`digits` decimals), the unit in the display language ("12.3 秒"). */
export function formatSeconds(value: number | null | undefined, digits = 1, t: Translate = english): string {
  return isNumber(value) ? t('{0} s', value.toFixed(digits)) : NOT_AVAILABLE;
}

/** A step's time so far, of its planned duration when it has one: "12.3 / 60 s", "12.3 s" (through `t`: "12.3 / 60 秒"). */
export function formatElapsed(elapsedSec: number, plannedSec: number | null, t: Translate = english): string {
  return plannedSec === null ? formatSeconds(elapsedSec, 1, t) : t('{0} / {1} s', elapsedSec.toFixed(1), plannedSec);
}

/** A length of time in words, to the second under an hour: "43 s", "3 min 10 s", "1 h 5 min" (in the display language through `t`: "3 分 10 秒"). */
export function formatDuration(seconds: number, t: Translate = english): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t('{0} s', s);
  if (s < 3600) return s % 60 ? t('{0} min {1} s', Math.floor(s / 60), s % 60) : t('{0} min', Math.floor(s / 60));
  const minutes = Math.round(s / 60);
  return minutes % 60 ? t('{0} h {1} min', Math.floor(minutes / 60), minutes % 60) : t('{0} h', Math.floor(minutes / 60));
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * A moment as the reader's wall-clock time, with its offset from UTC: "2026-11-26 11:12:03
 * UTC+1". Result files keep UTC ISO strings ("2026-11-26T10:12:03.000Z"), which read an hour or
 * more off in most places. `offsetMinutes` (east of UTC) defaults to this machine's zone at that
 * moment; an unreadable time prints as it is.
 */
export function formatLocalTime(iso: string, offsetMinutes?: number): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const offset = offsetMinutes ?? -new Date(ms).getTimezoneOffset();
  const local = new Date(ms + offset * 60_000);
  const zone = offset === 0 ? 'UTC' : `UTC${offset > 0 ? '+' : '-'}${Math.floor(Math.abs(offset) / 60)}${Math.abs(offset) % 60 ? `:${two(Math.abs(offset) % 60)}` : ''}`;
  if (displayLocale !== 'en-US') return `${localDateTime(local)} ${zone}`;
  const date = `${local.getUTCFullYear()}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())}`;
  const time = `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
  return `${date} ${time} ${zone}`;
}

const dateTimeFormatters = new Map<string, Intl.DateTimeFormat>();

/** A wall-clock moment (a Date shifted to the reader's zone, read as UTC) in the display locale's order and separators. */
function localDateTime(local: Date): string {
  let formatter = dateTimeFormatters.get(displayLocale);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(displayLocale, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
    dateTimeFormatters.set(displayLocale, formatter);
  }
  return formatter.format(local);
}

/** "812 bytes", "3.6 MB": a file's size. */
export function formatFileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value >= 10 ? 0 : 1)} ${units[unit]}`;
}

/** An axis tick: whole numbers with separators from 1,000 up, else up to four significant digits (0.005, 2.5, 12.5). */
export function formatTick(value: number): string {
  return Math.abs(value) >= 1000 ? withSeparators(value, 0) : String(Number(value.toPrecision(4)));
}

/** Other tools' layouts: `digits` decimals, no separators. */
export function fixed(value: number | null | undefined, digits = 2): string {
  return isNumber(value) ? value.toFixed(digits) : NOT_AVAILABLE;
}

/** `fixed` plus a unit after a space, or just `n/a` (a unit without a number reads as a value). */
export function withUnit(value: number | null | undefined, unit: string, digits = 2): string {
  return isNumber(value) ? `${value.toFixed(digits)} ${unit}` : NOT_AVAILABLE;
}

export function msToSec(value: number | null | undefined): number | null {
  return isNumber(value) ? value / 1000 : null;
}
