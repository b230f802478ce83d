/**
 * Which combination to try next. `tpe` (docs/tuning.md "The search"): the first few trials spread
 * over each range (Latin-hypercube-like); then a line search bisecting the untried gaps next to the
 * scores within noise of the best, along each ordered parameter; then a tree-structured Parzen
 * estimator: the tried combinations are split into the best quarter and the rest; for each
 * parameter a density of the good ones, l(x), and of the others, g(x), is built (kernels on [0, 1]
 * for ordered values, smoothed counts for categories), and of candidates drawn from l the one with
 * the highest l(x) / g(x) is tried. Combinations refused by the constraints are never proposed by
 * it, and none is proposed twice. `random` draws evenly (refusals included): the baseline.
 * Each proposal draws from a generator seeded with the seed and the number of trials so far, so a
 * resumed tune proposes what an uninterrupted one would have.
 */
import type { Params, ParamValue, SearchConfig } from '../format/tune';
import { createRandom, type Random } from '../workload/random';
import { categories, drawParams, isCategorical, paramsKey, spaceSize, toUnit, fromUnit, type Space } from './space';

/** A tried combination and how good it was: null when it scored nothing (refused, failed, every step missed the SLOs). */
export interface Observation {
  params: Params;
  score: number | null;
}

/** Share of scored trials taken as "good". */
const GOOD_SHARE = 0.25;
/** Candidates drawn from l(x) per proposal. */
const CANDIDATES = 48;
/** Draws before giving up finding an untried, allowed combination. */
const MAX_DRAWS = 2000;
/** Scores within this share of the best are ties: a benchmark's figures repeat within a few percent. */
const TIE_SHARE = 0.03;
/** The line search stops refining an ordered parameter's gaps narrower than this share of its range. */
const MIN_GAP = 1 / 16;
/** Candidates drawn for each of the first trials. */
const START_CANDIDATES = 64;

/**
 * Choices with at most this many values (and every bool) have each value tried in the first trials.
 * A longer choice of numbers is ordered: the start spreads it over its strata like a range and the
 * line search bisects it, where trying every value first would spend the budget before any search.
 */
export const COVERED_CHOICE_VALUES = 8;

/** A parameter whose every value the first trials try: a bool, or a choice of at most COVERED_CHOICE_VALUES values. */
const coveredValues = (spec: Space[string]): readonly ParamValue[] | null =>
  spec.type === 'bool' ? [false, true] : spec.type === 'choice' && spec.values.length <= COVERED_CHOICE_VALUES ? spec.values : null;

/** The first trials: one more than there are parameters, at least 3, and enough to try each value of every covered choice. */
export function startupTrials(space: Space): number {
  const widest = Math.max(0, ...Object.values(space).map((spec) => coveredValues(spec)?.length ?? 0));
  return Math.max(3, Object.keys(space).length + 1, widest);
}

export interface Search {
  /** The next combination, or undefined when every combination the constraints allow has been tried. */
  propose(history: readonly Observation[]): Params | undefined;
}

export function createSearch(space: Space, config: SearchConfig, allowed: (params: Params) => boolean): Search {
  const size = spaceSize(space);
  const untriedAllowed = (tried: Set<string>) => (params: Params) => !tried.has(paramsKey(params)) && allowed(params);

  const drawUntried = (random: Random, accept: (p: Params) => boolean): Params | undefined => {
    for (let i = 0; i < MAX_DRAWS; i++) {
      const params = drawParams(space, random);
      if (accept(params)) return params;
    }
    return undefined;
  };

  return {
    propose(history) {
      const random = createRandom(config.seed * 1_000_003 + history.length);
      const tried = new Set(history.map((o) => paramsKey(o.params)));
      if (tried.size >= size) return undefined;
      if (config.strategy === 'random') return drawUntried(random, (p) => !tried.has(paramsKey(p)));
      const accept = untriedAllowed(tried);
      const scored = history.filter((o) => o.score !== null);
      if (history.length < startupTrials(space) || scored.length === 0) {
        return spaceFillingDraw(space, config.seed, history, random, accept) ?? drawUntried(random, accept);
      }
      const proposal = lineSearchProposal(space, history, accept) ?? tpeProposal(space, history, random, accept);
      return proposal ?? drawUntried(random, accept);
    },
  };
}

/**
 * The first trials. Ordered ranges (ints, long numeric choices) are Latin-hypercube-like: each
 * parameter's [0, 1] is cut into as many strata as there are first trials, and trial i takes
 * stratum perm(i) of each (a permutation per parameter, fixed by the seed), at a random point
 * within it, so that the first few trials cover each range from end to end. Bools and short
 * choices take, in each trial, a value tried least so far. Where the constraints refuse that
 * combination, candidates are drawn again (other points of the strata, then anywhere for the
 * ranges and other least-tried values) and the allowed one that tries the most values never tried
 * wins: a value the rules allow only with some values of another parameter (-np 8 with the largest
 * contexts) is still tried before the search exploits anything.
 */
function spaceFillingDraw(space: Space, seed: number, history: readonly Observation[], random: Random, accept: (p: Params) => boolean): Params | undefined {
  const strata = startupTrials(space);
  const index = history.length;
  const layout = createRandom(seed * 7_919 + 17);
  const entries = Object.entries(space);
  const permutations = entries.map(() => shuffled(strata, layout));
  const tried = entries.map(([name, spec]) => {
    const values = coveredValues(spec);
    return values ? new Map(values.map((v) => [v, history.filter((o) => o.params[name] === v).length])) : null;
  });
  let chosen: { params: Params; fresh: number } | undefined;
  for (let attempt = 0; attempt < START_CANDIDATES; attempt++) {
    const params: Params = {};
    let fresh = 0;
    entries.forEach(([name, spec], p) => {
      const counts = tried[p];
      if (counts) {
        const least = Math.min(...counts.values());
        // A least-tried value, by preference the one of this trial's stratum. Later candidates leave
        // half the parameters free to take any value, so that a value the rules allow only with some
        // values of another parameter finds them.
        const free = attempt >= START_CANDIDATES / 2 && random.next() < 0.5;
        const pool = free ? [...counts.keys()] : [...counts].filter(([, n]) => n === least).map(([v]) => v);
        const preferred = fromUnit(spec, (permutations[p]![index % strata]! + 0.5) / strata);
        const value = attempt === 0 && pool.includes(preferred) ? preferred : pool[random.int(0, pool.length - 1)]!;
        params[name] = value;
        if (counts.get(value) === 0) fresh++;
      } else {
        const unit = attempt < START_CANDIDATES / 2 ? (permutations[p]![index % strata]! + random.next()) / strata : random.next();
        params[name] = fromUnit(spec, unit);
      }
    });
    if (!accept(params) || (chosen && chosen.fresh >= fresh)) continue;
    chosen = { params, fresh };
    if (fresh === tried.filter((counts) => counts && [...counts.values()].includes(0)).length) break;
  }
  return chosen?.params;
}

function shuffled(n: number, random: Random): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = random.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * A line search from the ties with the best: for each trial within TIE_SHARE of the best score and
 * each ordered parameter, the untried gap on either side of its value (between it and the nearest
 * value tried along that parameter, or the end of the range) is bisected. On a plateau of ties this
 * explores the plateau's edges, where an optimum before a knee hides, instead of ranking noise;
 * once the gaps around the ties are narrower than MIN_GAP, TPE proposes.
 */
function lineSearchProposal(space: Space, history: readonly Observation[], accept: (p: Params) => boolean): Params | undefined {
  const scores = history.flatMap((o) => (o.score === null ? [] : [o.score]));
  const best = Math.max(...scores);
  const ties = history.filter((o) => o.score !== null && o.score >= best - TIE_SHARE * Math.abs(best));
  // Edges of the ties first (the gap's far end scored worse, or was never tried: the score changes
  // there), then gaps between two ties; the widest first within each.
  let chosen: { params: Params; priority: number } | undefined;
  for (const [name, spec] of Object.entries(space)) {
    if (isCategorical(spec)) continue;
    const triedUnits = history.map((o) => toUnit(spec, o.params[name]!));
    const tieUnits = new Set(ties.map((o) => toUnit(spec, o.params[name]!)));
    for (const tie of ties) {
      const at = toUnit(spec, tie.params[name]!);
      const below = Math.max(...triedUnits.filter((u) => u < at));
      const above = Math.min(...triedUnits.filter((u) => u > at));
      // An end of the range nobody tried is a gap too: its own value is a candidate.
      for (const [edge, end] of [[below, 0], [above, 1]] as const) {
        const bound = Number.isFinite(edge) ? edge : end;
        const gap = Math.abs(at - bound);
        const priority = gap + (tieUnits.has(bound) ? 0 : 1);
        if (gap < MIN_GAP || (chosen && priority <= chosen.priority)) continue;
        let value = fromUnit(spec, (at + bound) / 2);
        if (value === tie.params[name] && !Number.isFinite(edge)) value = fromUnit(spec, end);
        if (value === tie.params[name] || triedUnits.includes(toUnit(spec, value))) continue;
        const params = { ...tie.params, [name]: value };
        if (accept(params)) chosen = { params, priority };
      }
    }
  }
  return chosen?.params;
}

function tpeProposal(space: Space, history: readonly Observation[], random: Random, accept: (p: Params) => boolean): Params | undefined {
  const ranked = [...history].sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity));
  const scoredCount = history.filter((o) => o.score !== null).length;
  const goodCount = Math.max(1, Math.min(scoredCount, Math.ceil(GOOD_SHARE * history.length)));
  const good = ranked.slice(0, goodCount).map((o) => o.params);
  const bad = ranked.slice(goodCount).map((o) => o.params);
  const models = Object.entries(space).map(([name, spec]) => ({
    name,
    good: densityOf(spec, good.map((p) => p[name]!)),
    bad: densityOf(spec, bad.map((p) => p[name]!)),
  }));

  let best: { params: Params; ratio: number } | undefined;
  for (let i = 0; i < CANDIDATES; i++) {
    const params: Params = {};
    let ratio = 0;
    for (const model of models) {
      const value = model.good.draw(random);
      params[model.name] = value;
      ratio += Math.log(model.good.pdf(value)) - Math.log(model.bad.pdf(value));
    }
    if (!accept(params)) continue;
    if (!best || ratio > best.ratio) best = { params, ratio };
  }
  return best?.params;
}

interface Density {
  draw(random: Random): Params[string];
  pdf(value: Params[string]): number;
}

type Spec = Space[string];

/** A parameter's density over the values seen, mixed with an even prior (weight of one observation) so that nothing is ruled out. */
function densityOf(spec: Spec, values: Params[string][]): Density {
  if (isCategorical(spec)) {
    const options = categories(spec);
    const weights = options.map((option) => 1 / options.length + values.filter((v) => v === option).length);
    const total = weights.reduce((a, b) => a + b, 0);
    return {
      draw: (random) => {
        let u = random.next() * total;
        for (let i = 0; i < options.length; i++) {
          u -= weights[i]!;
          if (u < 0) return options[i]!;
        }
        return options.at(-1)!;
      },
      pdf: (value) => weights[options.indexOf(value)]! / total,
    };
  }
  // Ordered values: Gaussian kernels on [0, 1], narrower as observations accumulate (Scott's rule's n^-1/5).
  const centres = values.map((v) => toUnit(spec, v));
  const width = Math.max(0.05, 0.3 * Math.pow(Math.max(1, centres.length), -0.2));
  const components = centres.length + 1;
  return {
    draw: (random) => {
      const pick = random.int(0, components - 1);
      const unit = pick === centres.length ? random.next() : centres[pick]! + width * random.normal();
      return fromUnit(spec, unit);
    },
    pdf: (value) => {
      const x = toUnit(spec, value);
      const kernels = centres.reduce((sum, c) => sum + Math.exp(-0.5 * ((x - c) / width) ** 2) / (width * Math.sqrt(2 * Math.PI)), 0);
      return (1 + kernels) / components;
    },
  };
}
