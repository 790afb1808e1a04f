/**
 * The special functions the experiment statistics need, in double precision:
 * log-gamma and log-beta, the regularized incomplete gamma function, and from
 * it the normal distribution function; the normal density and quantile. Written out here because the single
 * executable carries no numeric library; each is checked against SciPy in
 * test/experiments/statistics.unit.test.ts.
 */

// Lanczos approximation, g = 7, n = 9 (Numerical Recipes / Boost's classic set): ~1e-15 relative.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Stirling's remainder ln Γ(x) − ((x − ½)·ln x − x + ½·ln 2π), for x ≥ 10 (error below 1e-16). */
function stirlingRemainder(x: number): number {
  const x2 = x * x;
  return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * x2)) / x2) / x2) / x;
}

/** Below this, ln Γ of each argument is exact enough; above, ln B comes from Stirling's series in a form that does not cancel. */
const STIRLING_FROM = 10;

/**
 * ln B(a, b). With a large argument, ln Γ(a) + ln Γ(b) − ln Γ(a + b) would
 * subtract numbers near 10⁹ (1e-7 lost at 10⁸ users): Stirling's series is
 * regrouped so that only ratios are taken logs of, (a − ½)·ln(a/(a+b)) and
 * the like, with ln(1 + s/l) by log1p when one argument is small.
 */
export function logBeta(a: number, b: number): number {
  const small = Math.min(a, b);
  const large = Math.max(a, b);
  if (large < STIRLING_FROM) return logGamma(a) + logGamma(b) - logGamma(a + b);
  const total = a + b;
  if (small < STIRLING_FROM) {
    return logGamma(small) - (large - 0.5) * Math.log1p(small / large) - small * Math.log(total) + small + stirlingRemainder(large) - stirlingRemainder(total);
  }
  return (
    (a - 0.5) * Math.log(a / total) +
    (b - 0.5) * Math.log(b / total) -
    0.5 * Math.log(total) +
    0.5 * Math.log(2 * Math.PI) +
    stirlingRemainder(a) +
    stirlingRemainder(b) -
    stirlingRemainder(total)
  );
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

/** φ(z), the standard normal density. */
export function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

// Acklam's rational approximation of Φ⁻¹ (relative error 1.15e-9), then refined below.
const A = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/** Φ⁻¹(p) for 0 < p < 1: Acklam's approximation and two Halley steps on Φ (about 1e-15); the upper half by symmetry. */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? Number.NEGATIVE_INFINITY : p === 1 ? Number.POSITIVE_INFINITY : Number.NaN;
  if (p > 0.5) return -normalQuantile(1 - p);
  let x: number;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  } else {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) /
      (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1);
  }
  for (let step = 0; step < 2; step++) {
    const u = (normalCdf(x) - p) / normalPdf(x);
    x -= u / (1 + (x * u) / 2);
  }
  return x;
}
