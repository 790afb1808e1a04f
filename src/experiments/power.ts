/**
 * The power plan of the analysis actually used (docs/reference/experiments.md,
 * "Power"): users per variant for 80 % power to detect a relative lift t on
 * the primary metric, and the smallest lift detectable with the users so
 * far. Each comparison is planned at α / m (m the comparisons in the
 * decision's family: Holm's first step, so Holm's power is at least this),
 * with the analysis' critical value at the horizon (the confidence
 * sequence's there, for the sequential analysis), the test's own variance
 * (a rate's pooled variance under the null for the threshold, each arm's own
 * under the alternative; a mean's Welch variance) and, with CUPED on, the
 * variance it removes. A sequential readout decides at the first daily
 * look that crosses (readout.ts): its power is the chance that some look up
 * to the horizon crosses, not the last alone, approximated in closed form
 * (below) from the looks the phase's traffic gives.
 */
import { ALPHA, type Analysis, criticalValue } from './effects.ts';
import { normalCdf } from './special.ts';

const POWER = 0.8;
/** Siegmund's correction for a boundary checked at discrete looks rather than continuously: ρ = −ζ(1/2)/√(2π). */
const DISCRETE_LOOKS = 0.5826;
/** Beyond this many users per variant a plan is not worth quoting. */
const MAX_USERS = 1e12;

export interface PlanInput {
  analysis: Analysis;
  /** Comparisons in the decision's family (at least 1). */
  comparisons: number;
  /** A rate (its variance follows from its mean) or a mean with its variance per user. */
  kind: 'rate' | 'mean';
  /** The control's rate or mean per exposed user. */
  mean: number;
  /** A mean's variance per user (unused for a rate). */
  variance: number;
  /** The share of the variance CUPED removes (0 when off). */
  reduction: number;
  /** Users per variant between two looks (a day's traffic); null: unknown, one look. */
  perLook: number | null;
}

/**
 * P(some look up to the horizon crosses) for the score W(I) = D·I, a
 * Brownian motion in the information I = 1/se² with drift δ, against the
 * boundary b(I) = k(I)·√I of a sequential readout, looked at `looks` times
 * at equal steps: the boundary's chord over the second half of the phase
 * (where crossings happen when the power is 80 %; within a point of a
 * simulation of 5 to 60 looks, where the tangent at the horizon is up to
 * 2 points low), raised by Siegmund's 0.5826·√(step) for discrete looks,
 * and the first passage of a Brownian motion with drift through a line
 * (Siegmund, *Sequential Analysis*, 1985, ch. 3 and 10), never below the
 * last look's own power.
 */
function sequentialPower(delta: number, information: number, boundary: (information: number) => number, looks: number): number {
  const last = normalCdf((delta * information - boundary(information)) / Math.sqrt(information));
  if (looks <= 1) return last;
  const slope = (boundary(information) - boundary(information / 2)) / (information / 2);
  const a = boundary(information) - slope * information + DISCRETE_LOOKS * Math.sqrt(information / looks);
  const drift = delta - slope;
  const root = Math.sqrt(information);
  const crossing = normalCdf((drift * information - a) / root) + Math.exp(2 * a * drift + Math.log(normalCdf((-a - drift * information) / root)));
  return Math.max(last, Math.min(1, crossing));
}

/**
 * The power to detect a lift t with nv and nc users: the difference
 * δ = t·m_c against the critical value on the null's standard error, its
 * estimate spread by the alternative's.
 */
function power(input: PlanInput, t: number, nv: number, nc: number): number {
  const { mean, reduction } = input;
  const alpha = ALPHA / Math.max(1, input.comparisons);
  const delta = Math.abs(t * mean);
  const keep = 1 - reduction;
  let seNull: number;
  let seAlternative: number;
  if (input.kind === 'rate') {
    const pt = mean * (1 + t);
    const pooled = (nv * pt + nc * mean) / (nv + nc);
    seNull = Math.sqrt(pooled * (1 - pooled) * (1 / nv + 1 / nc) * keep);
    seAlternative = Math.sqrt(((pt * (1 - pt)) / nv + (mean * (1 - mean)) / nc) * keep);
  } else {
    // A multiplicative lift scales the spread too: the variant's variance is (1 + t)² that of the control. Welch's test estimates it.
    seNull = seAlternative = Math.sqrt(input.variance * ((1 + t) ** 2 / nv + 1 / nc) * keep);
  }
  const n = nv + nc;
  if (input.analysis === 'fixed') return normalCdf((delta - criticalValue('fixed', n, alpha) * seNull) / seAlternative);
  // In information units: n grows with I, the null's standard error keeps its ratio to the alternative's.
  const information = 1 / (seAlternative * seAlternative);
  const ratio = seNull / seAlternative;
  const boundary = (at: number) => criticalValue('sequential', (n * at) / information, alpha) * ratio * Math.sqrt(at);
  const looks = input.perLook === null ? 1 : Math.max(1, Math.ceil(Math.max(nv, nc) / input.perLook));
  return sequentialPower(delta, information, boundary, looks);
}

function powered(input: PlanInput, t: number, nv: number, nc: number): boolean {
  return power(input, t, nv, nc) >= POWER;
}

/** Whether the plan has what it needs: a positive control mean, a spread, and a target that keeps a rate below 1. */
function plannable(input: PlanInput, target: number): boolean {
  if (!(input.mean > 0) || !(target > -1) || target === 0 || !(input.reduction < 1)) return false;
  if (input.kind === 'rate') return input.mean < 1 && input.mean * (1 + target) < 1;
  return input.variance > 0;
}

/** Users per variant (equal arms) for 80 % power to detect a relative lift `target`; null when it cannot be planned. */
export function usersNeededPerVariant(input: PlanInput, target: number): number | null {
  if (!plannable(input, target)) return null;
  // The smallest n that is powered: more users only grow the margin (δ√n against a critical value that grows like √ln n).
  let high = 2;
  while (!powered(input, target, high, high)) {
    high *= 2;
    if (high > MAX_USERS) return null;
  }
  let low = high / 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (powered(input, target, middle, middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** The smallest relative lift detectable with 80 % power with nv and nc users so far; null when none is. */
export function minimumDetectableEffect(input: PlanInput, nv: number, nc: number): number | null {
  if (nv < 1 || nc < 1 || !plannable(input, 1e-9)) return null;
  let high = input.kind === 'rate' ? 1 / input.mean - 1 : 1;
  if (input.kind === 'mean') {
    while (!powered(input, high, nv, nc)) {
      high *= 2;
      if (high > 1e6) return null;
    }
  } else {
    // A rate cannot exceed 1: a lift past 1/p_c − 1 is no lift at all.
    high *= 1 - 1e-12;
    if (!powered(input, high, nv, nc)) return null;
  }
  let low = 0;
  for (let i = 0; i < 60; i++) {
    const middle = (low + high) / 2;
    if (powered(input, middle, nv, nc)) high = middle;
    else low = middle;
  }
  return high;
}
