/**
 * The answer of a phase fold (experiment-fold.ts) from its state: the users'
 * counts as its tally keeps them (user-tally.ts), one pass over the trial
 * starters, per day the running totals (the results' daily looks), and per
 * currency the revenue of the payers (fold-revenue.ts).
 */
import { DAY_MS } from '../../events/time.ts';
import { cumulativeDays, DAILY_SERIES } from './cumulative-days.ts';
import { addRevenue, type PayerRevenue } from './fold-revenue.ts';
import { emptyFold, type FoldQuery, type FoldResult } from './fold-types.ts';
import type { UserTally } from './user-tally.ts';

interface FoldState {
  query: FoldQuery;
  /** The phase's end (ms; infinite for the current phase). */
  to: number;
  tally: UserTally;
  /** Per user: the variant index (negative: none or several). */
  variantOf: Int32Array;
  /** user → earliest trial start, latest trial conversion and latest cancellation that count. */
  trialStart: Map<number, number>;
  trialConverted: Map<number, number>;
  cancelled: Map<number, number>;
}

/** The answer; `payers` gives the payers' revenue at the result's day ends (ms), which it reads from the counts. */
export function foldResult(state: FoldState, payers: (dayEnds: number[]) => PayerRevenue): FoldResult {
  const { query, tally, variantOf } = state;
  const k = query.variants.length;
  const result = emptyFold(query);
  result.variants.forEach((figures, v) => {
    Object.assign(figures, tally.figures(v));
  });
  result.multiple_exposure_users = tally.multiple;
  const baseDay = Math.floor(query.from / DAY_MS);
  // Events are at most 24 h ahead of the server when received: no day after tomorrow holds any.
  const lastDay = Math.floor(Math.min(state.to, Date.now() + 2 * DAY_MS) / DAY_MS) - baseDay;
  const daily = tally.daily(lastDay + 1);
  const trialSeries = DAILY_SERIES.indexOf('trial_starts') * k;
  for (const [user, started] of state.trialStart) {
    const variant = variantOf[user]!;
    if (variant < 0) continue;
    const figures = result.variants[variant]!;
    figures.trial_starts++;
    const day = Math.floor(started / DAY_MS) - baseDay;
    if (day <= lastDay) daily[day * DAILY_SERIES.length * k + trialSeries + variant]!++;
    if ((state.trialConverted.get(user) ?? Number.NEGATIVE_INFINITY) >= started) figures.trial_conversions++;
    if ((state.cancelled.get(user) ?? Number.NEGATIVE_INFINITY) >= started) figures.trial_cancellations++;
  }
  const { days, ends } = cumulativeDays(daily, k, baseDay);
  result.days = days;
  addRevenue(result, payers(ends));
  return result;
}
