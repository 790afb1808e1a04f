/**
 * The statistics of experiment results, as docs/reference/experiments.md states them.
 * Pure functions of counts and centred moments, so that results for a million
 * users cost only the aggregation that feeds them. Every figure that cannot be computed
 * (no users, a zero control rate, no spread) is null rather than a guess.
 */
import type { Paired } from './cuped.ts';
import { type Interval, Z95 } from './effects.ts';
import { normalCdf } from './special.ts';

/** Wilson score interval of a proportion of `conversions` in `n`, kept inside [0, 1] (rounding can put a bound a hair outside). */
export function wilsonInterval(conversions: number, n: number, z = Z95): Interval | null {
  if (n <= 0) return null;
  const p = conversions / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At 0 (n) conversions the lower (upper) bound is 0 (1) exactly: the formula's terms cancel, up to rounding either way.
  return [conversions === 0 ? 0 : Math.max(0, centre - half), conversions === n ? 1 : Math.min(1, centre + half)];
}

/** Sample variance of y (n − 1 in the denominator); null below 2 users. */
function sampleVariance(m: Paired): number | null {
  return m.n < 2 ? null : m.m2y / (m.n - 1);
}

/** Mean of y with its normal 95 % interval (mean ± z·s/√n, s the sample standard deviation). */
export function meanInterval(m: Paired): Interval | null {
  const variance = sampleVariance(m);
  if (variance === null) return null;
  const half = (Z95 * Math.sqrt(variance)) / Math.sqrt(m.n);
  return [m.meanY - half, m.meanY + half];
}

/** Φ((m_v − m_c) / √(s_v²/n_v + s_c²/n_c)): the chance that the variant's mean beats the control's. */
export function meanChanceToBeat(variant: Paired, control: Paired): number | null {
  const vv = sampleVariance(variant);
  const vc = sampleVariance(control);
  if (vv === null || vc === null) return null;
  const se = Math.sqrt(vv / variant.n + vc / control.n);
  if (se === 0) return null;
  return normalCdf((variant.meanY - control.meanY) / se);
}
