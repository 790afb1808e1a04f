/**
 * Bayesian readings of conversion: each variant's rate has a Beta(1 + x,
 * 1 + n − x) posterior (a uniform prior). Chance to beat the control is
 * exact (Evan Miller's closed form) while its sum is short, and numerical
 * integration beyond; chance to be best is numerical integration over a
 * grid fitted to every posterior. Both are deterministic (no Monte Carlo)
 * and cost the same at 10⁸ users as at 10³.
 */
import { logBeta } from './special.ts';

/** Above this many terms, the closed form gives way to integration (a term costs a log and an exp). */
const EXACT_TERMS = 50_000;
/** Grid points per posterior standard deviation, and how many deviations each side of the mean the grid covers. */
const STEPS_PER_SD = 100;
const SDS = 16;

interface Posterior {
  a: number;
  b: number;
}

function posterior(conversions: number, n: number): Posterior {
  return { a: 1 + conversions, b: 1 + n - conversions };
}

/**
 * P(X_v > X_c) for the posteriors of a variant and the control. Evan Miller's
 * sum runs over the side with fewer conversions (P(X_v > X_c) = 1 − P(X_c > X_v)).
 */
export function chanceToBeat(cv: number, nv: number, cc: number, nc: number): number {
  const v = posterior(cv, nv);
  const c = posterior(cc, nc);
  if (Math.min(v.a, c.a) > EXACT_TERMS) return chanceToBeBest([v, c])[0]!;
  return v.a <= c.a ? probabilityGreater(v.a, v.b, c.a, c.b) : 1 - probabilityGreater(c.a, c.b, v.a, v.b);
}

/**
 * P(X_b > X_a) for X_b ~ Beta(ab, bb), X_a ~ Beta(aa, ba), ab a positive
 * integer (Evan Miller, Formulas for Bayesian A/B testing, 2015). Term i is
 * B(aa+i, ba+bb) / ((bb+i)·B(1+i, bb)·B(aa, ba)); each follows from the one
 * before by a rational factor, kept in logs so that early terms too small
 * for a double do not zero the ones that matter.
 */
function probabilityGreater(ab: number, bb: number, aa: number, ba: number): number {
  let logTerm = logBeta(aa, ba + bb) - logBeta(aa, ba);
  let total = Math.exp(logTerm);
  for (let i = 0; i < ab - 1; i++) {
    logTerm += Math.log(((aa + i) * (bb + i)) / ((aa + ba + bb + i) * (1 + i)));
    total += Math.exp(logTerm);
  }
  return Math.min(1, Math.max(0, total));
}

/** Each group's chance that its rate is the largest, from (conversions, users) pairs; sums to 1. */
export function chanceToBeBestOf(groups: { conversions: number; n: number }[]): number[] {
  return chanceToBeBest(groups.map((group) => posterior(group.conversions, group.n)));
}

/**
 * P(X_i = max_j X_j) = ∫ f_i(x) Π_{j≠i} F_j(x) dx by the trapezoid rule on
 * the union of one grid per posterior (STEPS_PER_SD points per standard
 * deviation over ±SDS deviations), so that a posterior ten thousand times
 * narrower than another is resolved as finely. Densities are taken in logs
 * relative to their largest grid value and normalised on the grid (no Beta
 * function of huge arguments); each F_j is the running trapezoid sum of f_j.
 * The results are scaled to sum to exactly 1.
 */
function chanceToBeBest(posteriors: Posterior[]): number[] {
  const k = posteriors.length;
  if (k === 1) return [1];
  const points: number[] = [];
  for (const { a, b } of posteriors) {
    const mean = a / (a + b);
    const sd = Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));
    const step = sd / STEPS_PER_SD;
    const low = Math.max(0, mean - SDS * sd);
    const high = Math.min(1, mean + SDS * sd);
    for (let x = low; x < high; x += step) points.push(x);
    points.push(high);
  }
  const grid = Float64Array.from(points).sort();
  const m = grid.length;
  const densities = posteriors.map(({ a, b }) => {
    const log = new Float64Array(m);
    let top = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < m; i++) {
      const x = grid[i]!;
      const value = (a === 1 ? 0 : (a - 1) * Math.log(x)) + (b === 1 ? 0 : (b - 1) * Math.log1p(-x));
      log[i] = value;
      if (value > top) top = value;
    }
    for (let i = 0; i < m; i++) log[i] = Math.exp(log[i]! - top);
    return log;
  });
  const cdfs = densities.map((density) => {
    const cdf = new Float64Array(m);
    for (let i = 1; i < m; i++) cdf[i] = cdf[i - 1]! + ((grid[i]! - grid[i - 1]!) * (density[i]! + density[i - 1]!)) / 2;
    const total = cdf[m - 1]!;
    for (let i = 0; i < m; i++) {
      cdf[i] = cdf[i]! / total;
      density[i] = density[i]! / total;
    }
    return cdf;
  });
  const chances = posteriors.map((_, i) => {
    const density = densities[i]!;
    let sum = 0;
    let previous = 0;
    for (let p = 0; p < m; p++) {
      let value = density[p]!;
      for (let j = 0; j < k && value > 0; j++) if (j !== i) value *= cdfs[j]![p]!;
      if (p > 0) sum += ((grid[p]! - grid[p - 1]!) * (value + previous)) / 2;
      previous = value;
    }
    return sum;
  });
  const total = chances.reduce((s, c) => s + c, 0);
  return chances.map((c) => c / total);
}
