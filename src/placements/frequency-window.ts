/**
 * Where a frequency cap's period starts (docs/guide/placements.md, "Frequency
 * caps"): the UTC day (00:00 UTC), the ISO week (Monday 00:00 UTC), or the
 * beginning of time. A pure module: the typed client counts the same
 * windows on the device. A session is the client's to count: it has no
 * start the server knows.
 */
import type { FrequencyPeriod } from './schema.ts';

const DAY_MS = 86_400_000;

/** The start (ms) of the period of `per` that holds `now`; 0 for ever; undefined for a session. */
export function windowStart(per: FrequencyPeriod, now: number): number | undefined {
  const day = Math.floor(now / DAY_MS);
  switch (per) {
    case 'day':
      return day * DAY_MS;
    case 'week':
      // 1970-01-01 was a Thursday, day 3 of an ISO week (Monday is 0).
      return (day - ((day + 3) % 7)) * DAY_MS;
    case 'ever':
      return 0;
    case 'session':
      return undefined;
  }
}
