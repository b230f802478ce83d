/**
 * Which token counts are the server's own and which are ours: a step's `tokenSources`
 * (src/results/stats.ts) in words, so that the command line, the result view and every export say
 * the same thing when a count is estimated (docs/metrics.md, "Token counts and where they come
 * from"). Output tokens per second, total tokens per second and TPOT are computed from these
 * counts: an estimate of 4 characters a token can be far from the model's tokenizer.
 */
import type { SourceCounts, Step, StepSummary } from '../format/result';
import { english, type Translate } from './l10n';

/** Shares (0 to 1) of a step's completed requests whose count was estimated, or counted by the local tokenizer. */
export interface CountShares {
  estimated: number;
  tokenizer: number;
}

/** The shares of one side's counts; null when the step recorded none (an older or imported file, or no completed request). */
export function countShares(sources: SourceCounts | undefined): CountShares | null {
  if (sources === undefined) return null;
  const total = (sources.usage ?? 0) + (sources.tokenizer ?? 0) + (sources.estimate ?? 0) + (sources.chunks ?? 0);
  if (total === 0) return null;
  return { estimated: ((sources.estimate ?? 0) + (sources.chunks ?? 0)) / total, tokenizer: (sources.tokenizer ?? 0) / total };
}

/** A share as a whole percent; a share above zero never reads 0%. */
export function sharePercent(share: number): string {
  const percent = Math.round(share * 100);
  return percent === 0 && share > 0 ? '<1%' : `${percent}%`;
}

/**
 * "output tokens 100% estimated, input tokens 100% counted by the local tokenizer": the step's
 * counts that are not the server's, with their shares; null when every count is the server's
 * (or the summary does not say).
 */
export function localCountsText(summary: Pick<StepSummary, 'tokenSources'>, t: Translate = english): string | null {
  const parts: string[] = [];
  for (const side of ['output', 'input'] as const) {
    const shares = countShares(summary.tokenSources?.[side]);
    if (shares === null) continue;
    if (shares.estimated > 0) parts.push(side === 'output' ? t('output tokens {0} estimated', sharePercent(shares.estimated)) : t('input tokens {0} estimated', sharePercent(shares.estimated)));
    if (shares.tokenizer > 0) parts.push(side === 'output' ? t('output tokens {0} counted by the local tokenizer', sharePercent(shares.tokenizer)) : t('input tokens {0} counted by the local tokenizer', sharePercent(shares.tokenizer)));
  }
  return parts.length === 0 ? null : parts.join(', ');
}

/** What rests on the counts, said once under a table or in a list of notes. */
export const LOCAL_COUNTS_CONSEQUENCE =
  'Output tok/s, total tok/s and TPOT rest on these counts. An estimate is 4 characters a token, often far from the model\'s tokenizer; turn the server\'s usage on (or give --tokenizer) for counts to trust.';

/**
 * One note for a run whose steps hold counts that are not the server's, naming each such step
 * with its shares; none when every count is the server's.
 */
export function localCountsNotes(steps: readonly Pick<Step, 'name' | 'repeat' | 'summary'>[], label: (step: Pick<Step, 'name' | 'repeat'>) => string, t: Translate = english): string[] {
  const listed = steps.flatMap((step) => {
    const text = step.summary ? localCountsText(step.summary, t) : null;
    return text === null ? [] : [`${label(step)}: ${text}`];
  });
  return listed.length === 0 ? [] : [t('Token counts not reported by the server: {0}. {1}', listed.join('; '), t(LOCAL_COUNTS_CONSEQUENCE))];
}
