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

export interface VariantFigures {
  exposed_users: number;
  conversions: number;
  /** Users with a trial start, and those of them with a trial conversion after it. */
  trial_starts: number;
  trial_conversions: number;
  /** Per currency: net revenue total and sum of squares of per-user net revenue (non-payers add 0 to both), what was paid and what was refunded. */
  revenue: { currency: string; total: number; sum_of_squares: number; gross: number; refunded: number }[];
}

/**
 * A purchase record (src/purchases/) as a fold counts it: a sale adds revenue
 * and converts, a renewal adds revenue and converts no one (it continues a
 * purchase: docs/revenue.md, "Attribution"), a refund takes revenue away and
 * converts no one, a trial start or conversion marks the user (a trial
 * conversion is a sale too).
 */
export interface FoldRecord {
  /** The ordinal the user is counted under (linked ids joined). */
  user: number;
  ts: number;
  kind: 'sale' | 'renewal' | 'refund' | 'trial_started' | 'trial_converted';
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
  /** Cumulative exposed users and conversions per variant at the end of each UTC day. */
  days: { day: string; exposed_users: number[]; conversions: number[] }[];
}

export function emptyFold(query: FoldQuery): FoldResult {
  return {
    multiple_exposure_users: 0,
    currencies: [],
    variants: query.variants.map(() => ({ exposed_users: 0, conversions: 0, trial_starts: 0, trial_conversions: 0, revenue: [] })),
    days: [],
  };
}
