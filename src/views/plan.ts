/**
 * A run's plan in one line, before it starts: its steps, its requests (warm-up apart) and what can
 * be said of its duration beforehand. Closed-loop steps last as long as the server takes, which
 * only a measurement says (the live panel estimates the rest from the first step); open-loop steps
 * last their schedule; a duration limit bounds every step. Pure: unit tested.
 */
import { LimitsConfigSchema, ProfileConfigSchema, stepRequests, type RunConfigInput } from '../format/config';
import { formatDuration } from './number-format';
import { english, type Translate } from './l10n';

export interface RunPlanSummary {
  steps: number;
  /** Measured requests over every step; null when a duration alone ends some step. */
  requests: number | null;
  warmup: number;
  /** The open-loop steps' schedules, seconds: the least the run takes. */
  leastSec: number;
  /** Every step at its duration limit: the most it takes; null without one. */
  mostSec: number | null;
  /** Whether some step lasts as long as the server takes (closed loop, no duration limit). */
  serverPaced: boolean;
}

/** The plan of a run configuration's profile and limits; null when they do not parse (the run's own checks will say why). */
export function planOf(config: Pick<RunConfigInput, 'profile' | 'limits' | 'repeat'>): RunPlanSummary | null {
  const profile = ProfileConfigSchema.safeParse(config.profile ?? { kind: 'synchronous' });
  const limits = LimitsConfigSchema.safeParse(config.limits ?? {});
  if (!profile.success || !limits.success) return null;
  const p = profile.data;
  const l = limits.data;
  const repeats = config.repeat?.count ?? 1;
  // Each step: its concurrency (closed loop) or rate (open loop).
  const steps: { concurrency?: number; rate?: number; ramp?: { startRate: number; endRate: number } }[] =
    p.kind === 'concurrency'
      ? p.levels.map((concurrency) => ({ concurrency }))
      : p.kind === 'rate'
        ? p.ramp
          ? [{ ramp: p.ramp }]
          : (p.rates ?? []).map((rate) => ({ rate }))
        : p.kind === 'sweep'
          ? [{ concurrency: 1 }, { concurrency: 256 }, ...Array.from({ length: p.rateCount }, () => ({}))]
          : [{ concurrency: p.kind === 'synchronous' ? 1 : undefined }];
  const counts = steps.map((step) => stepRequests(l, step.concurrency));
  const requests = counts.every((n) => n !== null) ? counts.reduce<number>((sum, n) => sum + (n ?? 0), 0) * repeats : null;
  const leastSec =
    steps.reduce((sum, step, i) => {
      const sends = counts[i] === null ? null : (counts[i] as number) + l.warmup;
      if (sends === null) return sum + (l.durationSec ?? 0);
      if (step.rate) return sum + Math.min(sends / step.rate, l.durationSec ?? Infinity);
      if (step.ramp) return sum + Math.min(sends / ((step.ramp.startRate + step.ramp.endRate) / 2), l.durationSec ?? Infinity);
      return sum;
    }, 0) * repeats;
  return {
    steps: steps.length * repeats,
    requests,
    warmup: l.warmup * steps.length * repeats,
    leastSec,
    mostSec: l.durationSec === undefined ? null : l.durationSec * steps.length * repeats + (config.repeat?.pauseSec ?? 0) * (repeats - 1),
    serverPaced: l.durationSec === undefined && steps.some((step) => !step.rate && !step.ramp),
  };
}

/**
 * "Plan: 7 steps, 884 requests (+14 warm-up); time: as long as the server takes, at least 1 min".
 * Short enough for one line of the palette (600 px), whose end VS Code would cut: the time is said
 * last. How long the server takes, the live panel estimates once the first requests are answered.
 * In the display language through `t` (the palette's), English without.
 */
export function planText(plan: RunPlanSummary, t: Translate = english): string {
  const count = (n: number): string => n.toLocaleString('en-US');
  const requests = plan.requests === null ? t('requests as the duration allows') : plan.requests === 1 ? t('{0} request', count(1)) : t('{0} requests', count(plan.requests));
  const warmup = plan.warmup > 0 ? t(' (+{0} warm-up)', count(plan.warmup)) : '';
  const time =
    plan.mostSec !== null
      ? t('at most about {0}', formatDuration(plan.mostSec, t))
      : plan.serverPaced
        ? plan.leastSec > 0
          ? t('as long as the server takes, at least {0}', formatDuration(plan.leastSec, t))
          : t('as long as the server takes')
        : t("about {0} (the rates' schedules)", formatDuration(plan.leastSec, t));
  return plan.steps === 1 ? t('Plan: 1 step, {0}{1}; time: {2}', requests, warmup, time) : t('Plan: {0} steps, {1}{2}; time: {3}', plan.steps, requests, warmup, time);
}
