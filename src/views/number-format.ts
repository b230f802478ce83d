/**
 * Numbers as every view prints them: three significant digits, or a metric's own precision
 * (src/format/metrics.ts), with thousands separators; a missing value prints as n/a.
 */
import { METRICS, type MetricKey } from '../format/metrics';
import { NOT_AVAILABLE } from '../report/units';

/**
 * One formatter per number of decimals, made once: `toLocaleString` with options builds a new
 * Intl.NumberFormat on every call, which made formatting the step table a visible part of drawing a view.
 */
const formatters = [0, 1, 2, 3].map(
  (digits) => new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }),
);

/** Three significant digits or more for large values: 0.0123, 1.23, 12.3, 1,234. */
export function formatNumber(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NOT_AVAILABLE;
  const magnitude = Math.abs(value);
  const digits = magnitude === 0 || magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  return (formatters[digits] as Intl.NumberFormat).format(value);
}

const fixedFormatters = new Map<number, Intl.NumberFormat>();

/** A metric's value at that metric's own precision (src/format/metrics.ts), with thousands separators. */
export function formatMetric(metric: MetricKey, value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return NOT_AVAILABLE;
  const digits = METRICS[metric].decimals;
  let formatter = fixedFormatters.get(digits);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    fixedFormatters.set(digits, formatter);
  }
  return formatter.format(value);
}
