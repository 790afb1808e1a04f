/**
 * The counts of a phase fold's users (experiment-fold.ts), kept up to date
 * instead of counted per answer: per variant the exposed users, those with
 * history (a purchase before their first exposure), the converted and the
 * converted with history, and per day since the phase began the new count
 * of each (cumulative-days.ts turns them into the daily looks). A fold
 * takes a user out (sign −1) before it changes what they count as and puts
 * them back (+1) when it answers, so an answer after one new event costs
 * that event's users, not a pass over a million of them.
 */
import { DAY_MS } from '../../events/time.ts';
import { DAILY_SERIES } from './cumulative-days.ts';

/** A user's variant when they saw several (left out of every variant). */
export const MULTIPLE = -2;

/** Slots of a variant's totals, in VariantFigures' names. */
const EXPOSED = 0;
const CONVERTED = 1;
const HISTORY = 2;
const CONVERTED_WITH_HISTORY = 3;
const TOTALS = 4;

export class UserTally {
  /** variant · TOTALS + slot → users */
  private readonly totals: Float64Array;
  multiple = 0;
  /** Day since the phase's first day → per series of DAILY_SERIES and variant (s · k + v), the users it adds that day. */
  private readonly days: (Float64Array | undefined)[] = [];
  private readonly width: number;
  private readonly baseDay: number;

  constructor(
    private readonly k: number,
    from: number,
  ) {
    this.totals = new Float64Array(k * TOTALS);
    this.width = DAILY_SERIES.length * k;
    this.baseDay = Math.floor(from / DAY_MS);
  }

  /**
   * Counts a user (sign 1) or takes them out (−1): their variant (negative:
   * none or several), first exposure, first converting purchase (infinite:
   * none) and whether they have history.
   */
  count(variant: number, exposed: number, bought: number, known: boolean, sign: number): void {
    if (variant < 0) {
      if (variant === MULTIPLE) this.multiple += sign;
      return;
    }
    const { totals, k } = this;
    const at = variant * TOTALS;
    totals[at + EXPOSED]! += sign;
    const day = this.day(exposed);
    day[variant]! += sign;
    if (known) {
      totals[at + HISTORY]! += sign;
      day[3 * k + variant]! += sign;
    }
    if (bought === Number.POSITIVE_INFINITY) return;
    totals[at + CONVERTED]! += sign;
    const boughtDay = this.day(bought);
    boughtDay[k + variant]! += sign;
    if (known) {
      totals[at + CONVERTED_WITH_HISTORY]! += sign;
      boughtDay[4 * k + variant]! += sign;
    }
  }

  private day(ts: number): Float64Array {
    const index = Math.floor(ts / DAY_MS) - this.baseDay;
    let row = this.days[index];
    if (!row) this.days[index] = row = new Float64Array(this.width);
    return row;
  }

  /** Variant v's exposed users, conversions, users with history and conversions with history. */
  figures(v: number): { exposed_users: number; conversions: number; history: number; converted_with_history: number } {
    const at = v * TOTALS;
    const { totals } = this;
    return {
      exposed_users: totals[at + EXPOSED]!,
      conversions: totals[at + CONVERTED]!,
      history: totals[at + HISTORY]!,
      converted_with_history: totals[at + CONVERTED_WITH_HISTORY]!,
    };
  }

  /** The daily counts of the first `days` days since the phase's first day (cumulative-days.ts's `daily`; trial starts left at 0). */
  daily(days: number): Float64Array {
    const daily = new Float64Array(days * this.width);
    for (let day = 0; day < days && day < this.days.length; day++) {
      const row = this.days[day];
      if (row) daily.set(row, day * this.width);
    }
    return daily;
  }
}
