/**
 * What every view says about a step's figures beyond the figures themselves: its warnings (stored
 * with its summary: too short, a busy server at its start, a stop guard that ended it, and any kind
 * a newer version writes), its note, and which definition its rates follow. One module, so that the
 * CLI, the live panel, the result editor, compare, the report and the exports say the same words.
 */
import type { Step, StepWarning } from '../format/result';
import { STEP_WARNING_KINDS } from '../format/result';
import { tooShortWarning } from '../results/window';

/** The mark a step with warnings carries in tables, beside its name. */
export const WARNING_MARK = '\u26a0';

type StepLike = Pick<Step, 'summary' | 'note'> & { name: string };

/**
 * A step's warnings, in the order said: those stored with its summary, then its note (a step run
 * past its duration, an open loop whose turns ran out before its schedule) as a warning of that kind. A summary written before steady windows (no
 * `rateWindow`) gets the too-short check on what it has: its first send to last completion against
 * its median latency, so that an old file's short steps are flagged too.
 */
export function stepWarnings(step: StepLike, imported = false): StepWarning[] {
  const stored = step.summary?.warnings ?? [];
  const note = step.note ? [{ kind: STEP_WARNING_KINDS.ranOtherThanPlanned, message: step.note, figures: {} }] : [];
  const summary = step.summary;
  const older =
    !imported && summary && summary.rateWindow === undefined && !stored.some((w) => w.kind === STEP_WARNING_KINDS.tooShort)
      ? tooShortWarning(summary.durationSec, summary.latencyMs?.p50, 'it ran from its first send to its last completion for')
      : null;
  return [...stored, ...note, ...(older ? [older] : [])];
}

/** Each warning of each step as a line, `step: message`. */
export function stepWarningLines(steps: readonly (StepLike & { label?: string })[], imported = false): string[] {
  return steps.flatMap((step) => stepWarnings(step, imported).map((w) => `${step.label ?? step.name}: ${w.message}`));
}

/** Joins a mark to its name in a view's table cell, so that a narrow column does not wrap the mark onto a line of its own. */
export const NO_BREAK = '\u00a0';

/** A step's name with the warning mark when it has warnings: after a space in text, after NO_BREAK in a view's table. */
export function markedName(name: string, warnings: readonly unknown[], separator = ' '): string {
  return warnings.length > 0 ? `${name}${separator}${WARNING_MARK}` : name;
}

export const SPAN_RATES_NOTE =
  "This file was written before steady windows: its rates are over each step's first send to its last completion, and a step cut by its duration left out the requests it cancelled, so its rates are low when its requests are long for the step (docs/metrics.md).";

/**
 * The note of a run whose rates follow the definition before steady windows (first send to last
 * completion): a summary without `rateWindow`. Null for a run with steady windows (the metric's
 * definition says how), an imported run (its tool's definition, said by the importer's notes), or
 * one without steps.
 */
export function olderRatesNote(steps: readonly Pick<Step, 'summary'>[], imported: boolean): string | null {
  if (imported) return null;
  const summaries = steps.flatMap((s) => (s.summary ? [s.summary] : []));
  if (summaries.length === 0 || summaries.some((s) => s.rateWindow !== undefined)) return null;
  return SPAN_RATES_NOTE;
}

/** Whether one of two runs takes its rates by the definition before steady windows and the other does not. */
export function rateDefinitionsDiffer(a: readonly Pick<Step, 'summary'>[], b: readonly Pick<Step, 'summary'>[], importedA: boolean, importedB: boolean): boolean {
  const steady = (steps: readonly Pick<Step, 'summary'>[]) => steps.some((s) => s.summary?.rateWindow !== undefined);
  return !importedA && !importedB && steady(a) !== steady(b) && a.length > 0 && b.length > 0;
}
