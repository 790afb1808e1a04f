import type { Database } from '../../db/database.ts';
import { DAY_MS } from '../time.ts';

/** Rows per delete transaction: small, so event writes never wait long behind a retention pass. */
const BATCH = 1000;

/**
 * Deletes raw events received more than `days` days ago, oldest first, in
 * small transactions. Rows sit in insertion order (the rowid), which is the
 * order of receipt, so a pass walks the start of the table and needs no
 * index. The daily roll-ups are not touched: statistics outlive raw events.
 */
export class Retention {
  private readonly windowEnd;
  private readonly deleteOld;

  constructor(
    db: Database,
    private readonly days: number,
  ) {
    this.windowEnd = db.prepare<[number], number | null>('SELECT max(seq) FROM (SELECT seq FROM events ORDER BY seq LIMIT ?)').pluck();
    this.deleteOld = db.prepare<[number, number]>('DELETE FROM events WHERE seq <= ? AND received_at < ?');
  }

  /**
   * Deletes the old rows among the next batch. `more` is false once a batch
   * held a row still within the retention period: everything after it is
   * younger (give or take the few ms by which concurrent requests interleave).
   */
  step(now: number): { deleted: number; more: boolean } {
    const end = this.windowEnd.get(BATCH);
    if (end === null || end === undefined) return { deleted: 0, more: false };
    const deleted = this.deleteOld.run(end, now - this.days * DAY_MS).changes;
    return { deleted, more: deleted === BATCH };
  }
}
