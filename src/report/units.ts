/**
 * Number formatting shared by every export. A missing or non-finite value prints as `n/a`:
 * a table never shows a number the measurement (or the imported file) did not have.
 */
export const NOT_AVAILABLE = 'n/a';

export function isNumber(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

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
