/** What a phase fold (experiment-fold.ts) is asked, reads and answers. */

export interface FoldQuery {
  /** Phase interval [from, to) in ms; to is null for the current phase. */
  from: number;
  to: number | null;
  /** The segment's variants in order; exposures to any other variant are ignored. */
  variants: string[];
  /** Purchases later than this after the user's first exposure do not count; null: no window. */
  conversionWindowMs: number | null;
  /** Each currency's per-user revenue is capped at this nearest-rank percentile of its payers; null: no cap. */
  winsorizePercentile: number | null;
}

/**
 * Per-user moments of y (net revenue, capped when the query winsorizes) and
 * x (net revenue before the user's first exposure, CUPED's covariate) over n
 * users: the means, the sums of squared deviations from them (m2y, m2x) and
 * of cross deviations (c). Centred, never raw sums of squares: a
 * near-constant revenue keeps its exact spread.
 */
export interface Moments {
  n: number;
  meanY: number;
  m2y: number;
  meanX: number;
  m2x: number;
  c: number;
}

/** One currency of one variant: net revenue total (never capped), what was paid and refunded, the users who paid, those capped, and the moments inference uses. */
export interface VariantRevenue {
  currency: string;
  total: number;
  gross: number;
  refunded: number;
  payers: number;
  users_capped: number;
  moments: Moments;
}

export interface VariantFigures {
  exposed_users: number;
  conversions: number;
  /** Users with a trial start, and those of them with a trial conversion after it. */
  trial_starts: number;
  trial_conversions: number;
  /** Users with a purchase before their first exposure (CUPED's history), and those of them who converted. */
  history: number;
  converted_with_history: number;
  /** Converted users with a refund that counts, and trial starters with a cancellation at or after their trial start (guardrails). */
  refunded_users: number;
  trial_cancellations: number;
  revenue: VariantRevenue[];
}

/**
 * A purchase record (src/purchases/) as a fold counts it: a sale adds revenue
 * and converts, a renewal adds revenue and converts no one (it continues a
 * purchase: docs/guide/revenue.md, "Attribution"), a refund takes revenue away and
 * converts no one, a trial start or conversion marks the user (a trial
 * conversion is a sale too), a cancellation only marks the user.
 */
export interface FoldRecord {
  /** The ordinal the user is counted under (linked ids joined). */
  user: number;
  ts: number;
  kind: 'sale' | 'renewal' | 'refund' | 'trial_started' | 'trial_converted' | 'cancellation';
  revenue: number;
  currency: string;
}

/** A currency's cap when the query winsorizes (null: none, or no payer). */
interface CurrencyCap {
  currency: string;
  cap: number | null;
}

export interface FoldResult {
  multiple_exposure_users: number;
  variants: VariantFigures[];
  /** The currencies of `revenue`, in the same order, with the winsorizing cap applied to each. */
  currencies: CurrencyCap[];
  /** Per variant at the end of each UTC day, cumulative: what the results' looks are computed from. */
  days: FoldDay[];
}

export interface FoldDay {
  day: string;
  exposed_users: number[];
  conversions: number[];
  trial_starts: number[];
  history: number[];
  converted_with_history: number[];
  /** Per currency of `currencies`, per variant: the payers so far and the moments of the users exposed so far, with their revenue so far. */
  revenue: { payers: number; moments: Moments }[][];
}

export function emptyFold(query: FoldQuery): FoldResult {
  return {
    multiple_exposure_users: 0,
    currencies: [],
    variants: query.variants.map(() => ({
      exposed_users: 0,
      conversions: 0,
      trial_starts: 0,
      trial_conversions: 0,
      history: 0,
      converted_with_history: 0,
      refunded_users: 0,
      trial_cancellations: 0,
      revenue: [],
    })),
    days: [],
  };
}
