/**
 * Seeded randomness for schedules, synthetic prompts and the simulator: the same seed gives the
 * same run. Math.random cannot be seeded, so a small generator (SplitMix32) is used instead.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** Exponential with the given mean. */
  exponential(mean: number): number;
  /** Gamma with shape k and scale theta (Marsaglia-Tsang), mean k * theta. */
  gamma(shape: number, scale: number): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
  const normal = (): number => {
    const u = 1 - next(); // (0, 1]: log(0) would be -Infinity
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  const gamma = (shape: number, scale: number): number => {
    if (shape < 1) {
      // Boost: Gamma(k) = Gamma(k + 1) * U^(1/k)
      return gamma(shape + 1, scale) * Math.pow(1 - next(), 1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = normal();
      const v0 = 1 + c * x;
      if (v0 <= 0) continue;
      const v = v0 * v0 * v0;
      const u = 1 - next();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v * scale;
    }
  };
  return {
    next,
    normal,
    exponential: (mean) => -Math.log(1 - next()) * mean,
    gamma,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}
