import type { Database } from '../../db/database.ts';
import { dayOf } from '../time.ts';
import { UNKNOWN_VARIANT } from '../variants.ts';
import type { EventRow } from './protocol.ts';

/**
 * Stores events and keeps the daily roll-ups in the same transaction, so the
 * statistics always equal a recount of the raw events. Roll-up changes are
 * summed in memory first: one upsert per (paywall, day, variant, type) and
 * one insert per (paywall, day, variant, user) per transaction, not per event.
 */
export class EventSink {
  /** Commits every request's rows in one transaction; returns how many rows of each were new. */
  readonly write: (requests: readonly EventRow[][]) => number[];

  constructor(db: Database) {
    const insertEvent = db.prepare(
      `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, sent_at, received_at, event_id, user_id, variant_id, product_id, properties)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, client_ts, event_id) WHERE event_id IS NOT NULL DO NOTHING`,
    );
    const addCount = db.prepare(
      `INSERT INTO event_daily_counts (project_id, paywall_id, day, variant_id, type, count) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET count = count + excluded.count`,
    );
    const addUser = db.prepare(
      'INSERT INTO event_daily_users (project_id, paywall_id, day, variant_id, user_id) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    const write = db.transaction((requests: readonly EventRow[][]): number[] => {
      const counts = new Map<string, [string, string, number, string, string, number]>();
      const users = new Map<string, [string, string, number, string, string]>();
      const inserted: number[] = [];
      for (const rows of requests) {
        let fresh = 0;
        for (const row of rows) {
          if (insertEvent.run(row).changes === 0) continue;
          fresh++;
          const [projectId, paywallId, type, ts] = row;
          const day = dayOf(ts);
          const variantId = row[9] ?? UNKNOWN_VARIANT;
          const group = `${projectId}\0${paywallId}\0${day}\0${variantId}`;
          const countKey = `${group}\0${type}`;
          const count = counts.get(countKey);
          if (count) count[5]++;
          else counts.set(countKey, [projectId, paywallId, day, variantId, type, 1]);
          const userId = row[8];
          if (userId !== null) {
            const userKey = `${group}\0${userId}`;
            if (!users.has(userKey)) users.set(userKey, [projectId, paywallId, day, variantId, userId]);
          }
        }
        inserted.push(fresh);
      }
      for (const count of counts.values()) addCount.run(count);
      for (const user of users.values()) addUser.run(user);
      return inserted;
    });
    this.write = (requests) => write.immediate(requests);
  }
}
