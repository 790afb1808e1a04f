/**
 * One test per comparison (docs/reference/experiments.md, "One test per comparison"): the difference
 * of two means, m_v − m_c, over its standard error, under one of two
 * analyses: fixed horizon (one look) or the asymptotic confidence sequence of
 * Waudby-Smith et al. (2023) as GrowthBook parameterizes it (valid at every
 * look). The test is the same whichever arm is ahead, so an A/A test errs as
 * often in each direction. The relative effect m_v / m_c − 1 gets Fieller's
 * interval: the ratios ρ that the same test, with the same critical value,
 * does not reject (m_v − ρ·m_c against its standard error), so that
 * p < 0.05 exactly when both intervals exclude 0.
 */

import { normalCdf, normalQuantile } from './special.ts';

export const ALPHA = 0.05;
/** The two-sided 95 % normal quantile, Φ⁻¹(0.975) = 1.959964 (to six places). */
export const Z95 = normalQuantile(1 - ALPHA / 2);
/** The sequential tuning N*: the sample size at which the confidence sequence is narrowest relative to a fixed interval. */
const SEQUENTIAL_TUNING = 5000;

export type Analysis = 'sequential' | 'fixed';
export type Interval = [number, number];

/** One arm as a test reads it: users, the mean of the per-user values and their variance per user. */
export interface Arm {
  n: number;
  mean: number;
  variance: number;
}

/** A comparison of a variant with the control. */
export interface Test {
  difference: number;
  /** Standard error of the difference. */
  se: number;
  p_value: number;
  /** The analysis' critical value at these sizes: p < α exactly when |difference| > critical·se. */
  critical: number;
  ci95: Interval;
  /** m_v / m_c − 1; null when m_c ≤ 0. */
  relative: number | null;
  /** Fieller's interval of the relative effect; null when it is unbounded (m_c is not itself distinguishable from 0). */
  relativeCi: Interval | null;
  /** The first-order (delta-method) standard error of the relative effect: what the expected loss integrates over. */
  relativeSe: number | null;
}

/** ρ² of the confidence sequence for α = 0.05 and N* (GrowthBook's `sequential_rho`). */
const RHO2 = (-2 * Math.log(ALPHA) + Math.log(-2 * Math.log(ALPHA) + 1)) / SEQUENTIAL_TUNING;

/**
 * The critical value of a two-sided test at level α with `n` users in both
 * groups: fixed, Φ⁻¹(1 − α/2); sequential, the boundary of the confidence
 * sequence (tuned at α = 0.05), √(2a·ln(√a/α) / (n·ρ²)) with a = n·ρ² + 1.
 */
export function criticalValue(analysis: Analysis, n: number, alpha = ALPHA): number {
  if (analysis === 'fixed') return alpha === ALPHA ? Z95 : normalQuantile(1 - alpha / 2);
  const a = n * RHO2 + 1;
  return Math.sqrt((2 * a * Math.log(Math.sqrt(a) / alpha)) / (n * RHO2));
}

/** The two-sided p-value of z at n users: below α exactly when |z| exceeds criticalValue(analysis, n, α). */
function pValue(analysis: Analysis, z: number, n: number): number {
  if (analysis === 'fixed') return 2 * normalCdf(-Math.abs(z));
  const a = n * RHO2 + 1;
  return Math.min(1, Math.sqrt(a) * Math.exp((-RHO2 * n * z * z) / (2 * a)));
}

/**
 * Fieller's interval of ρ = m_v / m_c at critical value k: the ρ with
 * (m_v − ρ·m_c)² ≤ k²·(V_v + ρ²·V_c), V the variances of the two means.
 * Bounded when m_c² > k²·V_c; as a relative effect, ρ − 1 (never below −1
 * for means that cannot be negative).
 */
function fieller(mv: number, vv: number, mc: number, vc: number, k: number, floor: number): Interval | null {
  const a = mc * mc - k * k * vc;
  if (!(a > 0)) return null;
  const b = mv * mc;
  const root = Math.sqrt(k * k * (mv * mv * vc + a * vv));
  return [Math.max(floor, (b - root) / a - 1), (b + root) / a - 1];
}

/**
 * The test of a variant against the control. Null when the difference has
 * no spread (both arms constant: 0 % or 100 % in both) or an arm has no user.
 * `nonNegative`: the per-user values cannot be negative (rates), so neither
 * can the ratio: the relative interval stops at −1.
 */
export function compareArms(v: Arm, c: Arm, analysis: Analysis, nonNegative = true): Test | null {
  if (v.n < 1 || c.n < 1) return null;
  const vv = v.variance / v.n;
  const vc = c.variance / c.n;
  const se = Math.sqrt(vv + vc);
  const difference = v.mean - c.mean;
  if (!(se > 0) || !Number.isFinite(se) || !Number.isFinite(difference)) return null;
  const n = v.n + c.n;
  const critical = criticalValue(analysis, n);
  const positive = c.mean > 0;
  return {
    difference,
    se,
    p_value: pValue(analysis, difference / se, n),
    critical,
    ci95: [difference - critical * se, difference + critical * se],
    relative: positive ? v.mean / c.mean - 1 : null,
    relativeCi: positive ? fieller(v.mean, vv, c.mean, vc, critical, nonNegative ? -1 : Number.NEGATIVE_INFINITY) : null,
    relativeSe: positive ? Math.sqrt(vv / (c.mean * c.mean) + (v.mean * v.mean * vc) / c.mean ** 4) : null,
  };
}

/**
 * The one-sided p-value that the variant is worse (`worse` is the sign of a
 * harmful difference): fixed, Φ of the signed z; sequential, half the
 * two-sided p-value when the difference points that way (one side of the
 * confidence sequence at 2α), else one minus it.
 */
export function oneSidedWorse(test: Test, worse: 1 | -1, analysis: Analysis, n: number): number {
  const z = (worse * test.difference) / test.se;
  if (analysis === 'fixed') return normalCdf(-z);
  const half = pValue(analysis, z, n) / 2;
  return z > 0 ? half : 1 - half;
}

/**
 * Holm–Bonferroni adjusted p-values (Holm 1979): sorted ascending, the i-th
 * smallest (from 0) becomes max over j ≤ i of min(1, (k − j)·p_(j)). Nulls
 * are not in the family and stay null.
 */
export function holm(pValues: (number | null)[]): (number | null)[] {
  const order = pValues.flatMap((p, i) => (p === null ? [] : [i])).sort((a, b) => pValues[a]! - pValues[b]!);
  const k = order.length;
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (k - rank) * pValues[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}
