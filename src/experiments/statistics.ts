/**
 * The statistics of experiment results, as docs/experiments.md states them.
 * Pure functions of counts and sums, so that results for a million users cost
 * only the aggregation that feeds them. Every figure that cannot be computed
 * (no users, a zero control rate, no spread) is null rather than a guess.
 */
import { type Interval, sampleVariance, Z95 } from './effects.ts';
import { chiSquareSurvival, normalCdf } from './special.ts';

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
interface SrmCheck {
  p_value: number | null;
  ok: boolean | null;
  observed: Record<string, number>;
  expected: Record<string, number>;
}

/** p below this means the split itself is broken (GrowthBook's threshold). */
const SRM_THRESHOLD = 0.001;

/** The hash buckets users are split over (src/paywalls/targeting/hash.ts). */
const BUCKETS = 10_000;

/** Shares of the 10,000 buckets that pickByWeights gives each weight: b goes to i when cum_(i−1)·10000 ≤ b·total < cum_i·10000. */
export function bucketShares(weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  let start = 0;
  return weights.map((weight) => {
    cumulative += weight;
    const end = total > 0 ? Math.min(BUCKETS, Math.ceil((cumulative * BUCKETS) / total)) : 0;
    const share = (end - start) / BUCKETS;
    start = end;
    return share;
  });
}

/**
 * Chi-square test with k − 1 degrees of freedom of `observed` users per
 * variant against each variant's `share` of the buckets (holdouts included:
 * their logging is the most fragile). Variants with no share are left out.
 */
export function sampleRatioMismatch(observed: Map<string, number>, shares: Map<string, number>): SrmCheck {
  const total = [...observed.values()].reduce((a, b) => a + b, 0);
  const observedOut: Record<string, number> = Object.create(null);
  const expectedOut: Record<string, number> = Object.create(null);
  let chi = 0;
  let groups = 0;
  for (const [id, share] of shares) {
    if (share <= 0) continue;
    groups++;
    const o = observed.get(id) ?? 0;
    const e = total * share;
    observedOut[id] = o;
    expectedOut[id] = e;
    if (e > 0) chi += ((o - e) * (o - e)) / e;
  }
  if (groups < 2 || total === 0) return { p_value: null, ok: null, observed: observedOut, expected: expectedOut };
  const pValue = chiSquareSurvival(chi, groups - 1);
  return { p_value: pValue, ok: pValue >= SRM_THRESHOLD, observed: observedOut, expected: expectedOut };
}
