/**
 * A trial's score from its benchmark: per step, the SLO figures and whether each is within its
 * limit; the objective is the best figure among the steps that meet every SLO (the server's best
 * operating point within the SLOs), null when none does.
 */
import { sloFigure, type Objective, type SloMap, type TrialSlo } from '../format/tune';
import type { StepSummary } from '../format/result';
import type { RunOverview } from '../load/worker-host';

export interface Score {
  objective: number | null;
  slo: TrialSlo;
  load: { kind: 'rate' | 'concurrency'; value: number } | null;
}

/** Each SLO key's value in a step's summary (`ttftMs.p99` -> summary.ttftMs.p99). */
export function sloFigures(summary: StepSummary, slo: SloMap): Record<string, number | null> {
  return Object.fromEntries(Object.keys(slo).map((key) => [key, sloFigure(summary, key)]));
}

/** Met when every figure is measured and within its limit. */
export const sloMet = (figures: Record<string, number | null>, slo: SloMap): boolean =>
  Object.entries(slo).every(([key, limit]) => figures[key] !== null && figures[key] !== undefined && (figures[key] as number) <= limit);

export function scoreRun(run: RunOverview, objective: Extract<Objective, { maximize: unknown }>): Score {
  let best: Score | undefined;
  let fallback: { score: Score; value: number } | undefined;
  for (const step of run.steps) {
    if (!step.summary || step.summary.requests.completed === 0) continue;
    const figures = sloFigures(step.summary, objective.slo);
    const met = sloMet(figures, objective.slo);
    const value = step.summary[objective.maximize] ?? null;
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
