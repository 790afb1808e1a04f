/**
 * The special functions the experiment statistics need, in double precision:
 * log-gamma, the regularized incomplete gamma function, and from it the normal
 * and chi-square tail probabilities. Written out here because the single
 * executable carries no numeric library; each is checked against SciPy in
 * test/experiments/statistics.unit.test.ts.
 */

// Lanczos approximation, g = 7, n = 9 (Numerical Recipes / Boost's classic set): ~1e-15 relative.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** ln B(a, b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

const EPSILON = 1e-16;
const MAX_ITERATIONS = 10_000;

/** P(a, x) by its power series; converges quickly for x < a + 1. */
function lowerGammaSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    term *= x / (a + n);
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
  }
  return sum * Math.exp(-x + a * Math.log(x) - logGamma(a));
}

/** Q(a, x) by its continued fraction (modified Lentz); converges quickly for x ≥ a + 1. */
function upperGammaFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.exp(-x + a * Math.log(x) - logGamma(a)) * h;
}

/** The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a). */
function upperRegularizedGamma(a: number, x: number): number {
  if (x <= 0) return 1;
  return x < a + 1 ? 1 - lowerGammaSeries(a, x) : upperGammaFraction(a, x);
}

/** The regularized lower incomplete gamma function P(a, x). */
function lowerRegularizedGamma(a: number, x: number): number {
  if (x <= 0) return 0;
  return x < a + 1 ? lowerGammaSeries(a, x) : 1 - upperGammaFraction(a, x);
}

/** The complementary error function: erfc(x) = Q(1/2, x²) for x ≥ 0. */
function erfc(x: number): number {
  return x >= 0 ? upperRegularizedGamma(0.5, x * x) : 1 + lowerRegularizedGamma(0.5, x * x);
}

/** Φ(z), the standard normal distribution function. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** P(X ≥ x) for X chi-square distributed with `df` degrees of freedom. */
export function chiSquareSurvival(x: number, df: number): number {
  return upperRegularizedGamma(df / 2, x / 2);
}
