/**
 * How every figure prints, in one place: the views, the webviews, the exports and the command line
 * format numbers only through these functions, one per kind of figure, each with its unit's rule.
 * A missing or non-finite value prints as `n/a`: nothing shows a number the measurement (or the
 * imported file) did not have.
 *
 * - a metric's value (src/format/metrics.ts): `formatMetric`, at that metric's own precision;
 * - a figure without a metric of its own (an SLO limit, a load found by a search): `formatNumber`;
 * - a change in percent (compare's delta table): `formatPercentChange`;
 * - seconds of run time: `formatSeconds`, `formatElapsed`; a file's size: `formatFileSize`; a chart's axis tick: `formatTick`;
 * - a cell of the tables laid out as other tools print theirs (GuideLLM's table in the terminal,
 *   the live panel and Markdown; vLLM's "Serving Benchmark Result" block; EvalScope's columns) and
 *   of the exports and ranking in that style (the HTML report's tables, the report's ranking and
 *   knees): `fixed` and `withUnit`, a fixed number of decimals without thousands separators.
 */
import { METRICS, type MetricKey } from '../format/metrics';

export const NOT_AVAILABLE = 'n/a';

export function isNumber(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

const decimalFormatters = new Map<number, Intl.NumberFormat>();

/**
 * A number with `digits` decimals and thousands separators. One formatter per number of decimals,
 * made once: `toLocaleString` with options builds a new Intl.NumberFormat on every call, which made
 * formatting the step table a visible part of drawing a view.
 */
function withSeparators(value: number, digits: number): string {
  let formatter = decimalFormatters.get(digits);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    decimalFormatters.set(digits, formatter);
  }
  return formatter.format(value);
}

/** Three significant digits or more for large values: 0.0123, 1.23, 12.3, 1,234. */
export function formatNumber(value: number | null | undefined): string {
  if (!isNumber(value)) return NOT_AVAILABLE;
  const magnitude = Math.abs(value);
  return withSeparators(value, magnitude === 0 || magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3);
}

/** A metric's value at that metric's own precision (src/format/metrics.ts), with thousands separators. */
export function formatMetric(metric: MetricKey, value: number | null | undefined): string {
  return isNumber(value) ? withSeparators(value, METRICS[metric].decimals) : NOT_AVAILABLE;
}

/** A change in percent, signed: "+12%", "-2.5%", "0.0%" (whole percents from 10 up). */
export function formatPercentChange(value: number | null | undefined): string {
  if (!isNumber(value)) return NOT_AVAILABLE;
  const rounded = Math.abs(value) >= 10 ? value.toFixed(0) : value.toFixed(1);
  return `${value > 0 ? '+' : ''}${rounded}%`;
}

/** Seconds of run time, "12.3 s" (`digits` decimals). */
export function formatSeconds(value: number | null | undefined, digits = 1): string {
  return isNumber(value) ? `${value.toFixed(digits)} s` : NOT_AVAILABLE;
}

/** A step's time so far, of its planned duration when it has one: "12.3 / 60 s", "12.3 s". */
export function formatElapsed(elapsedSec: number, plannedSec: number | null): string {
  return plannedSec === null ? formatSeconds(elapsedSec) : `${elapsedSec.toFixed(1)} / ${plannedSec} s`;
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
