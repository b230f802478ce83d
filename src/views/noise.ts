/**
 * Whether B's figure differs from A's beyond noise: the one decision behind compare's delta table,
 * the report's shared ranks and every export that shows them. Which rule decides depends on what
 * the figure has, and the answer says which one did (`DeltaCell.rule`), for the views to word:
 *
 * - `bootstrap`: per-request samples on both sides (TTFT, TPOT, latency, the chunk gaps of ITL):
 *   the 95% interval of the change of the p50 or p99 by a seeded bootstrap over both steps'
 *   samples; within noise when it spans zero.
 * - `repeat-intervals`: both runs repeated their profile, so each figure is a mean across repeats
 *   with its 95% Student's t interval (src/views/repeats.ts); within noise when the two overlap.
 * - `repeat-interval-single`: one run repeated its profile and the other did not: the repeated
 *   figure's interval against the single value, within noise when the value lies inside it.
 * - `small-change`: one value a side (requests and tokens per second, failures; or too few samples
 *   or repeats for an interval): a change under NO_INTERVAL_NOISE_PERCENT is noise.
 *
 * Pure: unit tested.
 */
import { createRandom } from '../workload/random';
import { quantileOfSorted } from '../results/stats';
import type { DeltaCell, NoiseRule } from '../format/messages/result';
import { METRICS, type MetricKey } from '../format/metrics';
import { formatMetric, formatPercentChange } from './number-format';
import type { MeanInterval } from './repeats';
import { english, type Translate } from './l10n';

/** Figures without an interval: a smaller change than this (percent) is not called better or worse. */
export const NO_INTERVAL_NOISE_PERCENT = 5;
const CONFIDENCE = 0.95;
const RESAMPLES = 1000;
/** Bootstrap resamples at most this many samples per side: the interval barely narrows past it. */
const MAX_SAMPLES = 2000;

/** Every `step`-th value, so that a big step costs what MAX_SAMPLES does. */
function thinned(values: readonly number[]): number[] {
  if (values.length <= MAX_SAMPLES) return [...values];
  const step = values.length / MAX_SAMPLES;
  return Array.from({ length: MAX_SAMPLES }, (_, i) => values[Math.floor(i * step)] as number);
}

/**
 * The 95% interval of quantile(b) - quantile(a) by the percentile bootstrap: resample each side with
 * replacement, take the difference of the q-quantiles, keep the middle 95%. Null with fewer than 5
 * samples a side. For a tail quantile of few samples the interval is wide, as it should be.
 */
export function quantileDifferenceInterval(a: readonly number[], b: readonly number[], q = 0.5, seed = 1): [number, number] | null {
  if (a.length < 5 || b.length < 5) return null;
  const random = createRandom(seed);
  const sides = [thinned(a), thinned(b)];
  const buffers = sides.map((side) => new Float64Array(side.length));
  const differences = new Float64Array(RESAMPLES);
  for (let i = 0; i < RESAMPLES; i++) {
    const quantiles = sides.map((side, s) => {
      const buffer = buffers[s] as Float64Array;
      for (let j = 0; j < side.length; j++) buffer[j] = side[random.int(0, side.length - 1)] as number;
      return quantileOfSorted(buffer.sort(), q);
    });
    differences[i] = (quantiles[1] as number) - (quantiles[0] as number);
  }
  differences.sort();
  const tail = (1 - CONFIDENCE) / 2;
  return [differences[Math.floor(tail * (RESAMPLES - 1))] as number, differences[Math.ceil((1 - tail) * (RESAMPLES - 1))] as number];
}

/**
 * The interval of b - a implied by both runs' intervals across repeats: from b's low end minus a's
 * high end to b's high end minus a's low end. It spans zero exactly when the two intervals overlap.
 * Null when either side has no interval (a single repeat).
 */
export function overlapDifference(a: MeanInterval, b: MeanInterval): [number, number] | null {
  if (a.halfWidth === null || b.halfWidth === null) return null;
  return [b.mean - b.halfWidth - (a.mean + a.halfWidth), b.mean + b.halfWidth - (a.mean - a.halfWidth)];
}

/** What a figure has beyond its two values: each side's samples, or each side's interval across repeats. */
export type NoiseEvidence =
  | { samples: { a: readonly number[]; b: readonly number[]; quantile: number; seed: number } }
  | { repeats: { a: MeanInterval; b: MeanInterval } }
  /** One side repeated its profile, the other has a single value: that side's interval has no width (halfWidth 0). */
  | { repeatedAgainstSingle: { a: MeanInterval; b: MeanInterval } };

/**
 * The change of `metric` (its `statistic`, for a per-request one) from a to b, called better or
 * worse only when it is not noise, with the rule that decided (see the module comment): the
 * evidence's own rule when it yields an interval, else the small-change rule.
 */
export function judgeChange(
  metric: MetricKey,
  a: number | null | undefined,
  b: number | null | undefined,
  evidence?: NoiseEvidence | null,
  statistic?: 'p50' | 'p99',
): DeltaCell {
  const av = typeof a === 'number' && Number.isFinite(a) ? a : null;
  const bv = typeof b === 'number' && Number.isFinite(b) ? b : null;
  const cell = (judged: Pick<DeltaCell, 'percent' | 'interval' | 'verdict' | 'rule'>): DeltaCell => ({ metric, ...(statistic ? { statistic } : {}), a: av, b: bv, ...judged });
  if (av === null || bv === null) return cell({ percent: null, verdict: 'unknown', rule: null });
  const percent = av === 0 ? (bv === 0 ? 0 : null) : ((bv - av) / Math.abs(av)) * 100;
  const improved = METRICS[metric].better === 'higher' ? bv > av : bv < av;
  const judged = evidence ? intervalOf(evidence) : null;
  // The repeat rule's cell keeps both runs' intervals: the view shows them, which is why it decided as it did.
  const halfWidths = evidence && 'repeats' in evidence ? { halfWidths: [evidence.repeats.a.halfWidth, evidence.repeats.b.halfWidth] as [number | null, number | null] } : {};
  if (judged) {
    const [low, high] = judged.interval;
    const spansZero = low <= 0 && high >= 0;
    return cell({
      percent,
      // In percent of A, as the change is shown; a change from 0 has no percent.
      ...(av === 0 ? {} : { interval: [(low / Math.abs(av)) * 100, (high / Math.abs(av)) * 100] as [number, number] }),
      verdict: spansZero || bv === av ? 'same' : improved ? 'better' : 'worse',
      rule: judged.rule,
      ...halfWidths,
    });
  }
  const change = percent ?? Math.sign(bv - av) * Infinity;
  return cell({ percent, verdict: Math.abs(change) < NO_INTERVAL_NOISE_PERCENT ? 'same' : improved ? 'better' : 'worse', rule: 'small-change', ...halfWidths });
}

function intervalOf(evidence: NoiseEvidence): { interval: [number, number]; rule: NoiseRule } | null {
  if ('samples' in evidence) {
    const { a, b, quantile, seed } = evidence.samples;
    const interval = quantileDifferenceInterval(a, b, quantile, seed);
    return interval ? { interval, rule: 'bootstrap' } : null;
  }
  if ('repeatedAgainstSingle' in evidence) {
    // The single value has no width: the difference spans zero when it lies inside the repeated side's interval.
    const interval = overlapDifference(evidence.repeatedAgainstSingle.a, evidence.repeatedAgainstSingle.b);
    return interval ? { interval, rule: 'repeat-interval-single' } : null;
  }
  const interval = overlapDifference(evidence.repeats.a, evidence.repeats.b);
  return interval ? { interval, rule: 'repeat-intervals' } : null;
}

/** Each rule in a sentence, for the note under a table whose verdicts it decided. */
export const NOISE_RULE_TEXT: Record<NoiseRule, string> = {
  bootstrap: `Latency, TTFT, TPOT and ITL: the change of the p50 or p99, with its ${CONFIDENCE * 100}% interval from a bootstrap over the requests; "within noise" when the interval spans zero.`,
  'repeat-intervals': `A figure of runs that both repeated their profile is the mean across repeats with its ${CONFIDENCE * 100}% Student's t interval; a difference is "within noise" when the two runs' intervals overlap.`,
  'repeat-interval-single': `Where one run repeated its profile and the other did not, the repeated run's figure is its mean across repeats with its ${CONFIDENCE * 100}% Student's t interval, and the other run's single value is "within noise" when it lies inside that interval.`,
  'small-change': `Without an interval (one value a side: requests/s, tokens/s, failures; or too few requests or repeats for one), a change under ${NO_INTERVAL_NOISE_PERCENT}% counts as noise.`,
};

const RULE_ORDER: NoiseRule[] = ['repeat-intervals', 'repeat-interval-single', 'bootstrap', 'small-change'];

/** The sentences of the rules that decided these cells, in a fixed order. */
export function noiseRulesText(rules: Iterable<NoiseRule | null>, t: Translate = english): string {
  const used = new Set(rules);
  return RULE_ORDER.filter((rule) => used.has(rule)).map((rule) => t(NOISE_RULE_TEXT[rule])).join(' ');
}

const VERDICT_WORDS: Record<DeltaCell['verdict'], string> = { better: 'better', worse: 'worse', same: 'within noise', unknown: 'not comparable' };

/** "-20% to +600%": the interval of a change in percent, when the cell has one. */
const rangeText = (cell: DeltaCell, t: Translate): string | null => (cell.interval ? t('{0} to {1}', formatPercentChange(cell.interval[0]), formatPercentChange(cell.interval[1])) : null);

const PERCENT = CONFIDENCE * 100;

/** A cell's verdict with the rule that decided it, in the display language: "within noise: the runs' 95% intervals across repeats overlap (...)". */
export function verdictDetail(cell: DeltaCell, t: Translate = english): string {
  const verdict = t(VERDICT_WORDS[cell.verdict]);
  if (cell.rule !== null && cell.a === cell.b) return t('{0}: no change', verdict);
  const range = rangeText(cell, t);
  const same = cell.verdict === 'same';
  const within = (text: string) => (range ? t('{0} (the change lies within {1})', text, range) : text);
  switch (cell.rule) {
    case 'bootstrap':
      if (range) return same ? t('{0}: the {1}% bootstrap interval of the change, {2}, spans zero', verdict, PERCENT, range) : t('{0}: the {1}% bootstrap interval of the change, {2}, clears zero', verdict, PERCENT, range);
      return same ? t('{0}: the {1}% bootstrap interval of the change spans zero', verdict, PERCENT) : t('{0}: the {1}% bootstrap interval of the change clears zero', verdict, PERCENT);
    case 'repeat-intervals':
      return within(same ? t("{0}: the two runs' {1}% intervals across repeats overlap", verdict, PERCENT) : t("{0}: the two runs' {1}% intervals across repeats do not overlap", verdict, PERCENT));
    case 'repeat-interval-single':
      return within(
        same
          ? t("{0}: the single run's value lies inside the repeated run's {1}% interval across repeats", verdict, PERCENT)
          : t("{0}: the single run's value lies outside the repeated run's {1}% interval across repeats", verdict, PERCENT),
      );
    case 'small-change':
      return same ? t('{0}: under {1}% apart, with one value a side and no interval', verdict, NO_INTERVAL_NOISE_PERCENT) : t('{0}: at least {1}% apart, with one value a side and no interval', verdict, NO_INTERVAL_NOISE_PERCENT);
    default:
      return verdict;
  }
}

/**
 * Why a cell's verdict is what it is, short enough to stand under its value, in the display
 * language: the interval that decided it (the bootstrap's, or both runs' across repeats), or the
 * small-change rule's threshold. "95% interval -20% to +600% spans 0", "A 48.3 ± 3.1, B 52.0 ± 4.0: overlap", "under 5%, no interval".
 */
export function verdictReason(cell: DeltaCell, t: Translate = english): string {
  if (cell.rule === null || cell.verdict === 'unknown') return '';
  if (cell.a === cell.b) return t('no change');
  const range = rangeText(cell, t);
  const same = cell.verdict === 'same';
  switch (cell.rule) {
    case 'bootstrap':
      if (range) return same ? t('{0}% interval {1} spans 0', PERCENT, range) : t('{0}% interval {1} clears 0', PERCENT, range);
      return same ? t('{0}% interval spans 0', PERCENT) : t('{0}% interval clears 0', PERCENT);
    case 'repeat-intervals':
    case 'repeat-interval-single': {
      const side = (tag: string, value: number | null, half: number | null | undefined) => `${tag} ${formatMetric(cell.metric, value)}${half === null || half === undefined ? '' : ` \u00b1 ${formatMetric(cell.metric, half)}`}`;
      const [ha, hb] = cell.halfWidths ?? [null, null];
      const sides = [side('A', cell.a, ha), side('B', cell.b, hb)] as const;
      // One run repeated: the other's single value lies inside its interval, or outside.
      if (cell.rule === 'repeat-intervals') return same ? t('{0}, {1}: overlap', ...sides) : t('{0}, {1}: apart', ...sides);
      return same ? t('{0}, {1}: inside', ...sides) : t('{0}, {1}: outside', ...sides);
    }
    case 'small-change':
      return same ? t('under {0}%, no interval', NO_INTERVAL_NOISE_PERCENT) : t('over {0}%, no interval', NO_INTERVAL_NOISE_PERCENT);
  }
}
