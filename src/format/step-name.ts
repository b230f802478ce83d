/**
 * What a step is called: the one naming of steps, for the engine that names them, the importers
 * that name other tools' steps, and every view, export and line of the command line that shows them.
 */
import type { StepProfile } from './result';

/**
 * The name a step goes by in results, tables and charts: `synchronous`, `concurrency@8`,
 * `poisson@2.50 req/sec`, `throughput`, `schedule`. A rate step is named for its arrival process
 * when the user chose one, else `asynchronous` (a sweep's rates, rates read from another tool); a
 * ramp step by its strategy and rates, `poisson linear ramp@1.00-8.00 req/sec`; a trace step `trace`,
 * or `trace@2x` when it is replayed at another speed than recorded.
 */
export function stepName(profile: StepProfile, ratePrefix = 'asynchronous'): string {
  switch (profile.kind) {
    case 'synchronous':
    case 'throughput':
    case 'schedule':
      return profile.kind;
    case 'concurrency':
      return `concurrency@${profile.concurrency ?? '?'}`;
    case 'trace': {
      const scale = profile.trace?.timeScale ?? 1;
      return scale === 1 ? 'trace' : `trace@${scale}x`;
    }
    case 'rate':
      if (profile.ramp) return `${ratePrefix} ${profile.ramp.strategy} ramp@${profile.ramp.startRate.toFixed(2)}-${profile.ramp.endRate.toFixed(2)} req/sec`;
      return `${ratePrefix}@${(profile.rate ?? 0).toFixed(2)} req/sec`;
  }
}

/**
 * A step's label where a person reads it: its name, with its repeat counted from 1 in a run that
 * repeats its profile ("concurrency@8 #2"); the name alone otherwise.
 */
export function stepLabel(step: { name: string; repeat?: number | undefined; sourceName?: string | undefined }): string {
  // An imported step keeps its source's own name, ours beside it.
  const name = step.sourceName && step.sourceName !== step.name ? `${step.sourceName} (${step.name})` : step.name;
  return step.repeat === undefined ? name : `${name} #${step.repeat + 1}`;
}
