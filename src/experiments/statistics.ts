/**
 * The statistics of experiment results, as docs/experiments.md states them.
 * Pure functions of counts and sums, so that results for a million users cost
 * only the aggregation that feeds them. Every figure that cannot be computed
 * (no users, a zero control rate, no spread) is null rather than a guess.
 */
import { chiSquareSurvival, logBeta, normalCdf } from './special.ts';

/** The two-sided 95 % normal quantile the issue fixes (not 1.96). */
export const Z95 = 1.959964;

export type Interval = [number, number];

/** Wilson score interval of a proportion of `conversions` in `n`. */
export function wilsonInterval(conversions: number, n: number, z = Z95): Interval | null {
  if (n <= 0) return null;
  const p = conversions / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return [centre - half, centre + half];
}

/** Two-sided p-value of the pooled two-proportion z-test of a variant against the control. */
export function twoProportionPValue(cv: number, nv: number, cc: number, nc: number): number | null {
  if (nv <= 0 || nc <= 0) return null;
  const pooled = (cv + cc) / (nv + nc);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / nv + 1 / nc));
  if (se === 0) return null;
  const z = (cv / nv - cc / nc) / se;
  return 2 * normalCdf(-Math.abs(z));
}

/** Relative uplift p_v / p_c − 1 with its delta-method 95 % interval. */
export function relativeUplift(cv: number, nv: number, cc: number, nc: number): { relative: number; ci95: Interval } | null {
  if (nv <= 0 || nc <= 0 || cc === 0) return null;
  const pv = cv / nv;
  const pc = cc / nc;
  const relative = pv / pc - 1;
  const variance = (pv * (1 - pv)) / (nv * pc * pc) + (pv * pv * pc * (1 - pc)) / (nc * pc ** 4);
  const half = Z95 * Math.sqrt(variance);
  return { relative, ci95: [relative - half, relative + half] };
}

/**
 * P(X_v > X_c) for independent Beta(1 + conversions, 1 + non-conversions)
 * posteriors, exactly: Evan Miller's closed form sums one term per success of
 * one side, so the sum runs over the side with fewer (its α is an integer),
 * using P(X_v > X_c) = 1 − P(X_c > X_v).
 */
export function chanceToBeat(cv: number, nv: number, cc: number, nc: number): number {
  const av = 1 + cv;
  const bv = 1 + nv - cv;
  const ac = 1 + cc;
  const bc = 1 + nc - cc;
  return av <= ac ? probabilityGreater(av, bv, ac, bc) : 1 - probabilityGreater(ac, bc, av, bv);
}

/**
 * P(X_b > X_a) for X_b ~ Beta(ab, bb), X_a ~ Beta(aa, ba), ab a positive
 * integer. Term i is B(aa+i, ba+bb) / ((bb+i)·B(1+i, bb)·B(aa, ba)); each term
 * follows from the one before by a rational factor, kept in logs so that
 * early terms too small for a double do not zero the ones that matter.
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

/** Per-user figures of one group: count, sum and sum of squares of the per-user values (zeros included). */
export interface Moments {
  n: number;
  sum: number;
  sumOfSquares: number;
}

/** Mean with its normal 95 % interval (mean ± z·s/√n, s the sample standard deviation). */
export function meanInterval(m: Moments): { mean: number; ci95: Interval | null } | null {
  if (m.n <= 0) return null;
  const mean = m.sum / m.n;
  const variance = sampleVariance(m);
  if (variance === null) return { mean, ci95: null };
  const half = (Z95 * Math.sqrt(variance)) / Math.sqrt(m.n);
  return { mean, ci95: [mean - half, mean + half] };
}

function sampleVariance(m: Moments): number | null {
  if (m.n < 2) return null;
  const mean = m.sum / m.n;
  return Math.max(0, (m.sumOfSquares - m.n * mean * mean) / (m.n - 1));
}

/** Φ((m_v − m_c) / √(s_v²/n_v + s_c²/n_c)): the chance that the variant's mean beats the control's. */
export function meanChanceToBeat(variant: Moments, control: Moments): number | null {
  const vv = sampleVariance(variant);
  const vc = sampleVariance(control);
  if (vv === null || vc === null) return null;
  const se = Math.sqrt(vv / variant.n + vc / control.n);
  if (se === 0) return null;
  return normalCdf((variant.sum / variant.n - control.sum / control.n) / se);
}

/** Sample-ratio-mismatch check: chi-square goodness of fit of observed counts against weights. */
export interface SrmCheck {
  p_value: number | null;
  ok: boolean | null;
  observed: Record<string, number>;
  expected: Record<string, number>;
}

/** p below this means the split itself is broken (GrowthBook's and the threshold). */
export const SRM_THRESHOLD = 0.001;

/**
 * Chi-square test with k − 1 degrees of freedom of `observed` users per
 * variant against `weights` renormalised over the variants given (callers
 * leave holdout and zero-weight variants out).
 */
export function sampleRatioMismatch(observed: Map<string, number>, weights: Map<string, number>): SrmCheck {
  const total = [...observed.values()].reduce((a, b) => a + b, 0);
  const weightTotal = [...weights.values()].reduce((a, b) => a + b, 0);
  const observedOut: Record<string, number> = Object.create(null);
  const expectedOut: Record<string, number> = Object.create(null);
  let chi = 0;
  for (const [id, weight] of weights) {
    const o = observed.get(id) ?? 0;
    const e = weightTotal > 0 ? (total * weight) / weightTotal : 0;
    observedOut[id] = o;
    expectedOut[id] = e;
    if (e > 0) chi += ((o - e) * (o - e)) / e;
  }
  if (weights.size < 2 || total === 0) return { p_value: null, ok: null, observed: observedOut, expected: expectedOut };
  const pValue = chiSquareSurvival(chi, weights.size - 1);
  return { p_value: pValue, ok: pValue >= SRM_THRESHOLD, observed: observedOut, expected: expectedOut };
}
