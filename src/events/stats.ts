import type { Database } from '../db/database.ts';
import { KNOWN_EVENT_TYPES, type Stats } from './schema.ts';
import { dayText } from './time.ts';
import { UNKNOWN_VARIANT } from './variants.ts';

type Figures = Stats['variants'][number]['totals'];

interface CountRow {
  day: number;
  variant_id: string;
  type: string;
  count: number;
}

interface UsersRow {
  day: number;
  variant_id: string;
  users: number;
}

/** Keyed by client-chosen event types: no prototype, so a type named `constructor` is just a count. */
function emptyCounts(): Record<string, number> {
  const counts: Record<string, number> = Object.create(null);
  for (const type of KNOWN_EVENT_TYPES) counts[type] = 0;
  return counts;
}

function figures(counts: Record<string, number>, uniqueUsers: number): Figures {
  const impressions = counts.screen_impression ?? 0;
  return {
    counts,
    unique_users: uniqueUsers,
    conversion_rate: impressions === 0 ? null : (counts.purchase_complete ?? 0) / impressions,
  };
}

interface VariantAccumulator {
  counts: Record<string, number>;
  days: Map<number, { counts: Record<string, number>; users: number }>;
  users: number;
}

/**
 * Per-paywall statistics from the daily roll-ups, never from raw events: the
 * counts cost days × variants × types rows, the unique users one row per
 * user and day in the range.
 */
export class EventStats {
  private readonly read: (projectId: string, paywallId: string, fromDay: number, toDay: number) => Stats['variants'];

  constructor(db: Database) {
    const counts = db.prepare<[string, string, number, number], CountRow>(
      `SELECT day, variant_id, type, count FROM event_daily_counts
       WHERE project_id = ? AND paywall_id = ? AND day BETWEEN ? AND ?`,
    );
    const dailyUsers = db.prepare<[string, string, number, number], UsersRow>(
      `SELECT day, variant_id, count(*) AS users FROM event_daily_users
       WHERE project_id = ? AND paywall_id = ? AND day BETWEEN ? AND ? GROUP BY day, variant_id`,
    );
    // Over a range a returning user counts once: distinct over the range, not a sum of the days.
    const rangeUsers = db.prepare<[string, string, number, number], Omit<UsersRow, 'day'>>(
      `SELECT variant_id, count(DISTINCT user_id) AS users FROM event_daily_users
       WHERE project_id = ? AND paywall_id = ? AND day BETWEEN ? AND ? GROUP BY variant_id`,
    );
    // One read transaction: the three queries see the same commit, so days and totals agree.
    this.read = db.transaction((projectId: string, paywallId: string, fromDay: number, toDay: number) => {
      const variants = new Map<string, VariantAccumulator>();
      const variant = (id: string) => {
        let entry = variants.get(id);
        if (!entry) variants.set(id, (entry = { counts: emptyCounts(), days: new Map(), users: 0 }));
        return entry;
      };
      const day = (entry: VariantAccumulator, number: number) => {
        let found = entry.days.get(number);
        if (!found) entry.days.set(number, (found = { counts: emptyCounts(), users: 0 }));
        return found;
      };
      for (const row of counts.all(projectId, paywallId, fromDay, toDay)) {
        const entry = variant(row.variant_id);
        entry.counts[row.type] = (entry.counts[row.type] ?? 0) + row.count;
        const daily = day(entry, row.day).counts;
        daily[row.type] = (daily[row.type] ?? 0) + row.count;
      }
      for (const row of dailyUsers.all(projectId, paywallId, fromDay, toDay)) day(variant(row.variant_id), row.day).users = row.users;
      for (const row of rangeUsers.all(projectId, paywallId, fromDay, toDay)) variant(row.variant_id).users = row.users;
      return [...variants]
        .sort(([a], [b]) => (a === UNKNOWN_VARIANT ? 1 : b === UNKNOWN_VARIANT ? -1 : a < b ? -1 : a > b ? 1 : 0))
        .map(([id, entry]) => ({
          variant_id: id,
          totals: figures(entry.counts, entry.users),
          days: [...entry.days]
            .sort(([a], [b]) => a - b)
            .map(([number, daily]) => ({ day: dayText(number), ...figures(daily.counts, daily.users) })),
        }));
    });
  }

  /** Statistics of the UTC days fromDay to toDay (days since the epoch, both included). */
  forPaywall(projectId: string, paywallId: string, fromDay: number, toDay: number): Stats {
    return {
      paywall_id: paywallId,
      from: dayText(fromDay),
      to: dayText(toDay),
      variants: this.read(projectId, paywallId, fromDay, toDay),
    };
  }
}
