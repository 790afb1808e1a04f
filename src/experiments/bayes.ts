/**
 * Bayesian readings of conversion: each variant's rate has a Beta(1 + x,
 * 1 + n − x) posterior (a uniform prior). Chance to beat the control is
 * exact (Evan Miller's closed form) while its sum is short, and numerical
 * integration beyond; chance to be best is numerical integration over a
 * grid fitted to every posterior. Both are deterministic (no Monte Carlo)
 * and cost the same at 10⁸ users as at 10³. And the expected loss of each
 * choice, from the relative effect's normal posterior.
 */
import type { Test } from './effects.ts';
import { logBeta, normalCdf, normalPdf } from './special.ts';

/** Above this many terms, the closed form gives way to integration (a term costs a log and an exp). */
const EXACT_TERMS = 50_000;
/** Grid points per posterior standard deviation (of the finer of two grids), and how many deviations each side of the mean the grid covers. */
const STEPS_PER_SD = 32;
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
 * The last sum of probabilityGreater: with two variants a results answer
 * asks for it twice (the variant's chance to beat the control, and the
 * chance to be best of the two), and it costs a log and an exp per
 * conversion of the smaller group, 25,000 of them at 10 M events (issue 32).
 */
let lastSum = { ab: Number.NaN, bb: Number.NaN, aa: Number.NaN, ba: Number.NaN, value: Number.NaN };

/**
 * P(X_b > X_a) for X_b ~ Beta(ab, bb), X_a ~ Beta(aa, ba), ab a positive
 * integer (Evan Miller, Formulas for Bayesian A/B testing, 2015). Term i is
 * B(aa+i, ba+bb) / ((bb+i)·B(1+i, bb)·B(aa, ba)); each follows from the one
 * before by a rational factor, kept in logs so that early terms too small
 * for a double do not zero the ones that matter.
 */
function probabilityGreater(ab: number, bb: number, aa: number, ba: number): number {
  const last = lastSum;
  if (ab === last.ab && bb === last.bb && aa === last.aa && ba === last.ba) return last.value;
  let logTerm = logBeta(aa, ba + bb) - logBeta(aa, ba);
  let total = Math.exp(logTerm);
  for (let i = 0; i < ab - 1; i++) {
    logTerm += Math.log(((aa + i) * (bb + i)) / ((aa + ba + bb + i) * (1 + i)));
    total += Math.exp(logTerm);
  }
  const value = Math.min(1, Math.max(0, total));
  lastSum = { ab, bb, aa, ba, value };
  return value;
}

/** Each group's chance that its rate is the largest, from (conversions, users) pairs; sums to 1. Two groups: the chance to beat, exact. */
export function chanceToBeBestOf(groups: { conversions: number; n: number }[]): number[] {
  if (groups.length === 2) {
    const [a, b] = groups as [{ conversions: number; n: number }, { conversions: number; n: number }];
    const first = chanceToBeat(a.conversions, a.n, b.conversions, b.n);
    return [first, 1 - first];
  }
  return chanceToBeBest(groups.map((group) => posterior(group.conversions, group.n)));
}

/**
 * P(X_i = max_j X_j) = ∫ f_i(x) Π_{j≠i} F_j(x) dx by the trapezoid rule on
 * the union of one grid per posterior (over ±SDS deviations), so that a
 * posterior ten thousand times narrower than another is resolved as finely,
 * with Richardson's extrapolation: the trapezoid rule's error goes as the
 * step squared, so (4·I_h − I_2h)/3 with steps of STEPS_PER_SD and half as
 * many points per deviation cancels its leading term (the coarse grid is
 * every other point of the fine one). The results are scaled to sum to
 * exactly 1.
 */
function chanceToBeBest(posteriors: Posterior[]): number[] {
  const k = posteriors.length;
  if (k === 1) return [1];
  const fine = trapezoidChances(posteriors, STEPS_PER_SD);
  const coarse = trapezoidChances(posteriors, STEPS_PER_SD / 2);
  const chances = fine.map((value, i) => Math.max(0, (4 * value - coarse[i]!) / 3));
  const total = chances.reduce((s, c) => s + c, 0);
  return chances.map((c) => c / total);
}

/**
 * The trapezoid rule on the union grid with `steps` points per standard
 * deviation. Densities are taken in logs relative to their largest grid
 * value and normalised on the grid (no Beta function of huge arguments);
 * each F_j is the running trapezoid sum of f_j.
 */
function trapezoidChances(posteriors: Posterior[], steps: number): number[] {
  const k = posteriors.length;
  const points: number[] = [];
  for (const { a, b } of posteriors) {
    const mean = a / (a + b);
    const sd = Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));
    const step = sd / steps;
    const low = Math.max(0, mean - SDS * sd);
    const high = Math.min(1, mean + SDS * sd);
    for (let j = 0; low + j * step < high; j++) points.push(low + j * step);
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

/**
 * The expected loss of shipping the variant and of keeping the control
 * (GrowthBook's risk), relative to the control: with the relative effect
 * Δ ~ N(r, s²) (a flat prior on r, s its delta-method standard error),
 * E[max(0, −Δ)] = s·φ(r/s) − r·Φ(−r/s) and E[max(0, Δ)] = s·φ(r/s) + r·Φ(r/s).
 * Null where the relative effect is (m_c ≤ 0, or no spread).
 */
export function expectedLoss(test: Test | null): { ship: number; keep_control: number } | null {
  const r = test?.relative ?? null;
  const s = test?.relativeSe ?? null;
  if (r === null || s === null || !(s > 0)) return null;
  const density = s * normalPdf(r / s);
  return { ship: Math.max(0, density - r * normalCdf(-r / s)), keep_control: Math.max(0, density + r * normalCdf(r / s)) };
}
