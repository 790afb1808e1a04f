/**
 * The sample-ratio check, made for being looked at every day: Lindon and
 * Malek's sequential multinomial test (*Anytime-valid inference for
 * multinomial count data*, NeurIPS 2022; GrowthBook's `ssrm.py`). Against
 * the null "users arrive in the split's shares p", the alternative draws the
 * shares from a Dirichlet prior centred on p; the Bayes factor of the counts
 * so far is a test martingale under the null, so the running minimum of its
 * inverse over the phase's looks is a p-value valid however often it is read
 * (Ville's inequality): daily checks keep false alarms at α over the phase.
 */
import { logGamma } from './special.ts';

/** p below this means the split itself is broken (GrowthBook's threshold). */
const SRM_THRESHOLD = 0.001;
/**
 * Concentrations of the Dirichlet priors the alternative mixes with equal
 * weights (a mixture of test martingales is one): the small ones catch a
 * gross mismatch in the first hundred users, the large ones a 1 % one in a
 * million (GrowthBook's single prior is 10,000).
 */
const CONCENTRATIONS = [1, 100, 10_000, 1_000_000];

/** The hash buckets users are split over (src/paywalls/targeting/hash.ts). */
const BUCKETS = 10_000;

interface SrmCheck {
  p_value: number | null;
  ok: boolean | null;
  observed: Record<string, number>;
  expected: Record<string, number>;
}

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

/** ln B(α) = Σ ln Γ(α_i) − ln Γ(Σ α_i). */
function logMultivariateBeta(alpha: number[]): number {
  let sum = 0;
  let total = 0;
  for (const a of alpha) {
    sum += logGamma(a);
    total += a;
  }
  return sum - logGamma(total);
}

/**
 * ln of the Bayes factor of cumulative counts x: the mixture over
 * CONCENTRATIONS of ln B(c·p + x) − ln B(c·p) − Σ x_i ln p_i (the
 * multinomial coefficients of both models cancel).
 */
function logBayesFactor(x: number[], shares: number[]): number {
  let nullLog = 0;
  for (let i = 0; i < x.length; i++) if (x[i]! > 0) nullLog += x[i]! * Math.log(shares[i]!);
  const logs = CONCENTRATIONS.map((c) => {
    const prior = shares.map((p) => c * p);
    return logMultivariateBeta(prior.map((a, i) => a + x[i]!)) - logMultivariateBeta(prior) - nullLog;
  });
  const top = Math.max(...logs);
  return top + Math.log(logs.reduce((s, l) => s + Math.exp(l - top), 0) / logs.length);
}

/**
 * The check of the variants with a share of the buckets (holdouts included:
 * their logging is the most fragile), from the cumulative exposed users per
 * variant at each look (each day of the phase, then now; `looks` holds one
 * array per look in the order of `ids`). `expected` is now's total split by
 * the shares.
 */
export function sampleRatioMismatch(ids: string[], shares: number[], looks: number[][]): SrmCheck {
  const kept = ids.flatMap((_, i) => (shares[i]! > 0 ? [i] : []));
  const now = looks.at(-1) ?? ids.map(() => 0);
  const total = kept.reduce((sum, i) => sum + now[i]!, 0);
  const observed: Record<string, number> = Object.create(null);
  const expected: Record<string, number> = Object.create(null);
  for (const i of kept) {
    observed[ids[i]!] = now[i]!;
    expected[ids[i]!] = total * shares[i]!;
  }
  if (kept.length < 2 || total === 0) return { p_value: null, ok: null, observed, expected };
  const p = kept.map((i) => shares[i]!);
  const sum = p.reduce((a, b) => a + b, 0);
  const normalised = p.map((share) => share / sum);
  let pValue = 1;
  for (const look of looks)
    pValue = Math.min(
      pValue,
      Math.exp(
        -logBayesFactor(
          kept.map((i) => look[i]!),
          normalised,
        ),
      ),
    );
  return { p_value: pValue, ok: pValue >= SRM_THRESHOLD, observed, expected };
}
