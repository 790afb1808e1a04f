import { dayText } from '../../events/time.ts';
import type { FoldResult } from './fold-types.ts';

/**
 * The running totals a results chart draws, one entry per day from the first
 * day with any count to the last: `daily` holds, per day since `baseDay`,
 * the new exposed users of each of the k variants then their conversions
 * (2k slots a day).
 */
export function cumulativeDays(daily: Float64Array, k: number, baseDay: number): FoldResult['days'] {
  const width = 2 * k;
  const lastDay = daily.length / width - 1;
  const empty = (day: number) => daily.subarray(day * width, (day + 1) * width).every((count) => count === 0);
  let day = 0;
  while (day <= lastDay && empty(day)) day++;
  let end = lastDay;
  while (end >= day && empty(end)) end--;
  const running = new Float64Array(width);
  const days: FoldResult['days'] = [];
  for (; day <= end; day++) {
    for (let slot = 0; slot < width; slot++) running[slot]! += daily[day * width + slot]!;
    days.push({ day: dayText(baseDay + day), exposed_users: [...running.subarray(0, k)], conversions: [...running.subarray(k)] });
  }
  return days;
}
