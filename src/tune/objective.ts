/**
 * A trial's score from its benchmark: per step, the SLO figures and whether each is within its
 * limit (a figure equal to its limit meets it); the objective is the best figure among the steps
 * that meet every SLO (the server's best operating point within the SLOs), null when none does.
 * A benchmark that repeats its profile (`repeat`) is scored per step name by the mean across its
 * repeats, of the objective and of each SLO figure alike: the luckiest repeat would reward noise.
 */
import { sloFigure, type Objective, type SloMap, type TrialSlo } from '../format/tune';
import type { StepSummary } from '../format/result';
import type { RunOverview } from '../load/worker-host';
import { groupByName } from '../results/stats';

export interface Score {
  objective: number | null;
  slo: TrialSlo;
  load: { kind: 'rate' | 'concurrency'; value: number } | null;
}

/** Each SLO key's value in a step's summary (`ttftMs.p99` -> summary.ttftMs.p99). */
export function sloFigures(summary: StepSummary, slo: SloMap): Record<string, number | null> {
  return Object.fromEntries(Object.keys(slo).map((key) => [key, sloFigure(summary, key)]));
}

/** Met when every figure is measured and within its limit: at most the limit, the limit itself included. */
export const sloMet = (figures: Record<string, number | null>, slo: SloMap): boolean =>
  Object.entries(slo).every(([key, limit]) => figures[key] !== null && figures[key] !== undefined && (figures[key] as number) <= limit);

/** The mean of values all measured; null when any is not (a figure missing from one repeat is not measured). */
function meanOf(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return (values as number[]).reduce((sum, v) => sum + v, 0) / values.length;
}

export function scoreRun(run: RunOverview, objective: Extract<Objective, { maximize: unknown }>): Score {
  let best: Score | undefined;
  let fallback: { score: Score; value: number } | undefined;
  for (const [, repeats] of groupByName(run.steps)) {
    const measured = repeats.flatMap((step) => (step.summary && step.summary.requests.completed > 0 ? [step.summary] : []));
    const step = repeats[0];
    if (!step || measured.length === 0) continue;
    const perRepeat = measured.map((summary) => sloFigures(summary, objective.slo));
    const figures = Object.fromEntries(Object.keys(objective.slo).map((key) => [key, meanOf(perRepeat.map((f) => f[key] ?? null))]));
    const met = sloMet(figures, objective.slo);
    const value = meanOf(measured.map((summary) => summary[objective.maximize] ?? null));
    const load =
      step.profile.concurrency !== undefined
        ? { kind: 'concurrency' as const, value: step.profile.concurrency }
        : step.profile.rate !== undefined
          ? { kind: 'rate' as const, value: step.profile.rate }
          : null;
    const score: Score = { objective: met ? value : null, slo: { met, figures }, load };
    if (met && value !== null && (best?.objective ?? -Infinity) < value) best = score;
    if (!fallback || (value ?? -Infinity) > fallback.value) fallback = { score: { ...score, objective: null }, value: value ?? -Infinity };
  }
  return best ?? fallback?.score ?? { objective: null, slo: { met: false, figures: Object.fromEntries(Object.keys(objective.slo).map((k) => [k, null])) }, load: null };
}
