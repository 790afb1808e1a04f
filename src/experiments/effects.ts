/**
 * One statistic per comparison (docs/experiments.md, "Effects"): a relative
 * effect r = m_v / m_c − 1 with its delta-method standard error, from which
 * both the interval and the p-value of an analysis follow, so that p < 0.05
 * exactly when the interval excludes 0. Two analyses: fixed horizon (one
 * look) and the asymptotic confidence sequence of Waudby-Smith et al. (2023)
 * as GrowthBook parameterizes it (valid at every look).
 */

import { normalCdf } from './special.ts';
import type { Moments } from './statistics.ts';

/** The two-sided 95 % normal quantile to six places (not 1.96), as docs/experiments.md states it. */
export const Z95 = 1.959964;
/** The one-sided 80 % normal quantile (power 80 %). */
const Z80 = 0.841621;
const ALPHA = 0.05;
/** The sequential tuning N*: the sample size at which the confidence sequence is narrowest relative to a fixed interval. */
const SEQUENTIAL_TUNING = 5000;

export type Analysis = 'sequential' | 'fixed';
export type Interval = [number, number];

/** An effect with its standard error, before an analysis turns it into an interval and a p-value. */
export interface Estimate {
  value: number;
  se: number;
  /** Users in both groups (the sequential analysis' n). */
  n: number;
}

export interface Inference {
  value: number;
  ci95: Interval;
  p_value: number;
}

/** ρ² of the confidence sequence for α = 0.05 and N* (GrowthBook's `sequential_rho`). */
function sequentialRho2(tuning = SEQUENTIAL_TUNING): number {
  const l = -2 * Math.log(ALPHA);
  return (l + Math.log(l + 1)) / tuning;
}

/** Interval half-width and p-value of an estimate under an analysis; null when se is 0 or not finite. */
function infer(estimate: Estimate, analysis: Analysis): { half: number; p_value: number } | null {
  const { value, se, n } = estimate;
  if (!(se > 0) || !Number.isFinite(se) || !Number.isFinite(value)) return null;
  if (analysis === 'fixed') return { half: Z95 * se, p_value: 2 * normalCdf(-Math.abs(value) / se) };
  const rho2 = sequentialRho2();
  const a = n * rho2 + 1;
  const half = se * Math.sqrt(n) * Math.sqrt((2 * a * Math.log(Math.sqrt(a) / ALPHA)) / (n * n * rho2));
  const z2 = (value * value) / (se * se);
  const p = Math.sqrt(a) * Math.exp((-rho2 * n * z2) / (2 * a));
  return { half, p_value: Math.min(1, p) };
}

/** A relative effect (lower bound never below −1, a ratio cannot fall below −100 %). */
export function relativeInference(estimate: Estimate | null, analysis: Analysis): Inference | null {
  if (estimate === null) return null;
  const result = infer(estimate, analysis);
  if (result === null) return null;
  return { value: estimate.value, ci95: [Math.max(-1, estimate.value - result.half), estimate.value + result.half], p_value: result.p_value };
}

/** A difference of means (no bound). */
export function differenceInference(estimate: Estimate | null, analysis: Analysis): Inference | null {
  if (estimate === null) return null;
  const result = infer(estimate, analysis);
  if (result === null) return null;
  return { value: estimate.value, ci95: [estimate.value - result.half, estimate.value + result.half], p_value: result.p_value };
}

/**
 * r = p_v / p_c − 1 and se² = p_v(1−p_v)/(n_v p_c²) + p_v² p_c(1−p_c)/(n_c p_c⁴):
 * the delta-method variance of the ratio of two independent proportions.
 * Null when a group is empty or the control converts nobody.
 */
export function conversionEffect(cv: number, nv: number, cc: number, nc: number): Estimate | null {
  if (nv <= 0 || nc <= 0 || cc <= 0) return null;
  const pv = cv / nv;
  const pc = cc / nc;
  const variance = (pv * (1 - pv)) / (nv * pc * pc) + (pv * pv * pc * (1 - pc)) / (nc * pc ** 4);
  return { value: pv / pc - 1, se: Math.sqrt(variance), n: nv + nc };
}

/** Sample variance (n − 1 in the denominator); null below 2 users. */
export function sampleVariance(m: Moments): number | null {
  if (m.n < 2) return null;
  const mean = m.sum / m.n;
  return Math.max(0, (m.sumOfSquares - m.n * mean * mean) / (m.n - 1));
}

/** Revenue per exposed user: r = m_v / m_c − 1, se² = s_v²/(n_v m_c²) + m_v² s_c²/(n_c m_c⁴). */
export function meanRelativeEffect(variant: Moments, control: Moments): Estimate | null {
  const sv = sampleVariance(variant);
  const sc = sampleVariance(control);
  if (sv === null || sc === null) return null;
  const mv = variant.sum / variant.n;
  const mc = control.sum / control.n;
  if (!(mc > 0)) return null;
  const variance = sv / (variant.n * mc * mc) + (mv * mv * sc) / (control.n * mc ** 4);
  return { value: mv / mc - 1, se: Math.sqrt(variance), n: variant.n + control.n };
}

/** Revenue per exposed user: m_v − m_c with se² = s_v²/n_v + s_c²/n_c. */
export function meanDifference(variant: Moments, control: Moments): Estimate | null {
  const sv = sampleVariance(variant);
  const sc = sampleVariance(control);
  if (sv === null || sc === null) return null;
  return { value: variant.sum / variant.n - control.sum / control.n, se: Math.sqrt(sv / variant.n + sc / control.n), n: variant.n + control.n };
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

/** Smallest relative lift detectable with 80 % power at two-sided 5 %: (z95 + z80)·√((1 − p_c)/p_c·(1/n_v + 1/n_c)). */
export function minimumDetectableEffect(nv: number, cc: number, nc: number): number | null {
  if (nv <= 0 || nc <= 0 || cc <= 0) return null;
  const pc = cc / nc;
  return (Z95 + Z80) * Math.sqrt(((1 - pc) / pc) * (1 / nv + 1 / nc));
}

/** Users per variant to detect a relative lift `target` over rate p_c with 80 % power at two-sided 5 %; null when p_c is 0 or p_t would exceed 1. */
export function usersNeededPerVariant(pc: number, target: number): number | null {
  const pt = pc * (1 + target);
  if (!(pc > 0) || !(pt < 1) || pt === pc || target <= -1) return null;
  return Math.ceil(((Z95 + Z80) ** 2 * (pc * (1 - pc) + pt * (1 - pt))) / (pt - pc) ** 2);
}
