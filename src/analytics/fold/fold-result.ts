/**
 * The answer of a phase fold (experiment-fold.ts) from its per-user state:
 * one sequential pass over the users, one over the trial starters, one over
 * the payers; per variant the counts, per day their running totals (the
 * results' daily looks), and per currency the revenue (fold-revenue.ts).
 */
import { DAY_MS } from '../../events/time.ts';
import { cumulativeDays, DAILY_SERIES } from './cumulative-days.ts';
import { addRevenue, type UserRevenue } from './fold-revenue.ts';
import { emptyFold, type FoldQuery, type FoldResult } from './fold-types.ts';

/** A user's variant when they saw several (left out of every variant). */
export const MULTIPLE = -2;

interface FoldState {
  query: FoldQuery;
  /** The phase's end (ms; infinite for the current phase). */
  to: number;
  /** Per user: the variant index (negative: none or several), first exposure and first converting purchase. */
  variantOf: Int32Array;
  firstExposure: Float64Array;
  firstPurchase: Float64Array;
  users: number;
  /** user → earliest trial start, latest trial conversion and latest cancellation that count. */
  trialStart: Map<number, number>;
  trialConverted: Map<number, number>;
  cancelled: Map<number, number>;
  revenue: UserRevenue;
  names: string[];
}

export function foldResult(state: FoldState): FoldResult {
  const { query, variantOf, firstExposure, firstPurchase, users } = state;
  const k = query.variants.length;
  const result = emptyFold(query);
  // A local: an imported binding may be read through a getter per access (CommonJS interop when run from source).
  const dayMs = DAY_MS;
  const baseDay = Math.floor(query.from / dayMs);
  // Events are at most 24 h ahead of the server when received: no day after tomorrow holds any.
  const lastDay = Math.floor(Math.min(state.to, Date.now() + 2 * dayMs) / dayMs) - baseDay;
  const width = DAILY_SERIES.length * k;
  /** (day − baseDay) · width + s · k + variant → the new count of series s of DAILY_SERIES that day */
  const daily = new Float64Array((lastDay + 1) * width);
  const at = (ts: number, series: number, variant: number) => daily[(Math.floor(ts / dayMs) - baseDay) * width + series * k + variant]!++;
  const { history } = state.revenue;
  const anyHistory = history.size > 0;
  let multiple = 0;
  for (let user = 0; user < users; user++) {
    const variant = variantOf[user]!;
    if (variant < 0) {
      if (variant === MULTIPLE) multiple++;
      continue;
    }
    const figures = result.variants[variant]!;
    figures.exposed_users++;
    at(firstExposure[user]!, 0, variant);
    // Most folds have no user with history: then a million exposed users cost no lookup.
    const known = anyHistory && history.has(user);
    if (known) {
      figures.history++;
      at(firstExposure[user]!, 3, variant);
    }
    const bought = firstPurchase[user]!;
    if (bought === Number.POSITIVE_INFINITY) continue;
    figures.conversions++;
    at(bought, 1, variant);
    if (known) {
      figures.converted_with_history++;
      at(bought, 4, variant);
    }
  }
  result.multiple_exposure_users = multiple;
  for (const [user, started] of state.trialStart) {
    const variant = variantOf[user]!;
    if (variant < 0) continue;
    const figures = result.variants[variant]!;
    figures.trial_starts++;
    at(started, 2, variant);
    if ((state.trialConverted.get(user) ?? Number.NEGATIVE_INFINITY) >= started) figures.trial_conversions++;
    if ((state.cancelled.get(user) ?? Number.NEGATIVE_INFINITY) >= started) figures.trial_cancellations++;
  }
  const refunders = new Set<number>();
  for (const [user, slots] of state.revenue.users) if (slots.some((entry) => entry?.refunded !== undefined)) refunders.add(user);
  for (const user of refunders) {
    const variant = variantOf[user]!;
    if (variant >= 0 && firstPurchase[user]! !== Number.POSITIVE_INFINITY) result.variants[variant]!.refunded_users++;
  }
  const { days, ends } = cumulativeDays(daily, k, baseDay);
  result.days = days;
  addRevenue(result, query, state, state.names, state.revenue, ends);
  return result;
}
