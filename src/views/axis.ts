/**
 * The one rule for load axes (concurrency, request rate) in every view and export: a sweep such as
 * 1/4/16/64 spans orders of magnitude, and on a linear axis its first steps overlap.
 */

import { english, type Translate } from './l10n';

/** Load values spanning more than this factor are drawn on a log axis. */
export const LOG_AXIS_SPAN = 8;

export function wantsLogAxis(values: readonly (number | null | undefined)[]): boolean {
  const xs = values.filter((x): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0);
  return xs.length >= 2 && Math.max(...xs) / Math.min(...xs) > LOG_AXIS_SPAN;
}

/** Whether a log axis labels this tick: 1, 2 and 5 times a power of ten, so labels never run together. */
export function isLogTickLabelled(value: number): boolean {
  if (!(value > 0)) return false;
  const mantissa = value / 10 ** Math.floor(Math.log10(value) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6);
}

/** An axis title that says when the axis is logarithmic (equal steps are factors, not sums): in the webviews' charts and the exported SVG. */
export function axisTitle(title: string, log: boolean, t: Translate = english): string {
  return log && title ? t('{0}, log scale', title) : title;
}
