import { DAY_MS, dayText } from '../../events/time.ts';
import type { FoldDay } from './fold-types.ts';

/** The per-variant counts of a day, in the order of their slots in `daily` (k slots each). */
export const DAILY_SERIES = ['exposed_users', 'conversions', 'trial_starts', 'history', 'converted_with_history'] as const;

/**
 * The running totals of each day, from the first day with any count to the
 * last (what a results chart draws and the daily looks are computed from),
 * and each day's end in ms: `daily` holds, per day since `baseDay`, the new
 * counts of each series of DAILY_SERIES for each of the k variants.
 */
export function cumulativeDays(daily: Float64Array, k: number, baseDay: number): { days: FoldDay[]; ends: number[] } {
  const width = DAILY_SERIES.length * k;
  const lastDay = daily.length / width - 1;
  const empty = (day: number) => daily.subarray(day * width, (day + 1) * width).every((count) => count === 0);
  let day = 0;
  while (day <= lastDay && empty(day)) day++;
  let end = lastDay;
  while (end >= day && empty(end)) end--;
  const running = new Float64Array(width);
  const days: FoldDay[] = [];
  const ends: number[] = [];
  for (; day <= end; day++) {
    for (let slot = 0; slot < width; slot++) running[slot]! += daily[day * width + slot]!;
    const series = (s: number) => [...running.subarray(s * k, (s + 1) * k)];
    days.push({
      day: dayText(baseDay + day),
      exposed_users: series(0),
      conversions: series(1),
      trial_starts: series(2),
      history: series(3),
      converted_with_history: series(4),
      revenue: [],
    });
    ends.push((baseDay + day + 1) * DAY_MS);
  }
  return { days, ends };
}
