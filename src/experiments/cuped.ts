/**
 * Per-user moments of a metric y with a pre-exposure covariate x, as
 * centred sums (never raw sums of squares: a near-constant revenue keeps its
 * exact spread), and CUPED on them (Deng, Xu, Kohavi and Walker, *Improving
 * the sensitivity of online controlled experiments by utilizing
 * pre-experiment data*, WSDM 2013; GrowthBook's regression adjustment):
 * y − θ·(x − x̄) with θ = cov(x, y) / var(x) estimated on every arm pooled.
 */
import type { Arm } from './effects.ts';

/** n users; the means of y and x; m2y, m2x the sums of squared deviations from them; c the sum of cross deviations. */
export interface Paired {
  n: number;
  meanY: number;
  m2y: number;
  meanX: number;
  m2x: number;
  c: number;
}

export const EMPTY_PAIRED: Paired = { n: 0, meanY: 0, m2y: 0, meanX: 0, m2x: 0, c: 0 };

/** The moments of two groups together (Chan, Golub and LeVeque's pairwise update): exact when either is empty. */
export function combine(a: Paired, b: Paired): Paired {
  if (a.n === 0) return b;
  if (b.n === 0) return a;
  const n = a.n + b.n;
  const dy = b.meanY - a.meanY;
  const dx = b.meanX - a.meanX;
  const w = (a.n * b.n) / n;
  return {
    n,
    meanY: a.meanY + (dy * b.n) / n,
    m2y: a.m2y + b.m2y + dy * dy * w,
    meanX: a.meanX + (dx * b.n) / n,
    m2x: a.m2x + b.m2x + dx * dx * w,
    c: a.c + b.c + dx * dy * w,
  };
}

/** A rate: `users` of `n` did it (y), `history` had a pre-exposure purchase (x), `both` did both. */
export function rateMoments(users: number, n: number, history = 0, both = 0): Paired {
  if (n === 0) return EMPTY_PAIRED;
  return { n, meanY: users / n, m2y: (users * (n - users)) / n, meanX: history / n, m2x: (history * (n - history)) / n, c: both - (history * users) / n };
}

export interface Adjustment {
  theta: number;
  /** The pooled x̄ adjusted means are centred on. */
  meanX: number;
  /** 1 − var(y − θx) / var(y) = corr(x, y)² on the pooled arms: the share of the variance CUPED removes. */
  reduction: number;
}

export const NO_ADJUSTMENT: Adjustment = { theta: 0, meanX: 0, reduction: 0 };

/** θ and the variance reduction, from every arm pooled; none when x or y has no spread. */
export function pooledAdjustment(arms: Paired[]): Adjustment {
  const all = arms.reduce(combine, EMPTY_PAIRED);
  if (!(all.m2x > 0) || !(all.m2y > 0)) return { ...NO_ADJUSTMENT, meanX: all.meanX };
  return { theta: all.c / all.m2x, meanX: all.meanX, reduction: Math.min(1, (all.c * all.c) / (all.m2x * all.m2y)) };
}

/** Σ (y − θx − mean)² of a group: what remains of m2y after the adjustment. */
function adjustedM2(p: Paired, theta: number): number {
  return Math.max(0, p.m2y + theta * theta * p.m2x - 2 * theta * p.c);
}

/** The adjusted mean of an arm: ȳ − θ·(x̄ − x̄ of every arm). */
function adjustedMean(p: Paired, adjustment: Adjustment): number {
  return p.meanY - adjustment.theta * (p.meanX - adjustment.meanX);
}

/**
 * A rate's two arms for the pooled test: each its adjusted mean, both the
 * variance per user of the two arms pooled (under the null of no
 * difference they share one), so that an arm with no event still has a test.
 */
export function pooledArms(v: Paired, c: Paired, adjustment: Adjustment): [Arm, Arm] {
  const both = combine(v, c);
  const variance = both.n > 0 ? adjustedM2(both, adjustment.theta) / both.n : 0;
  return [
    { n: v.n, mean: adjustedMean(v, adjustment), variance },
    { n: c.n, mean: adjustedMean(c, adjustment), variance },
  ];
}

/** A mean's arm for the unpooled (Welch) test: its adjusted mean and sample variance; null below 2 users. */
export function meanArm(p: Paired, adjustment: Adjustment): Arm | null {
  if (p.n < 2) return null;
  return { n: p.n, mean: adjustedMean(p, adjustment), variance: adjustedM2(p, adjustment.theta) / (p.n - 1) };
}
