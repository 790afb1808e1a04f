import type { Database } from '../../db/database.ts';
import { DAY_MS } from '../time.ts';

/** Rows per delete transaction: small, so event writes never wait long behind a retention pass. */
const BATCH = 1000;

interface Window {
  end: number | null;
  rows: number;
  /** Rows within the retention period whose receipt time is not in the future. */
  settled: number | null;
}

/**
 * Deletes raw events received more than `days` days ago, oldest first, in
 * small transactions. Rows sit in insertion order (the rowid), which is the
 * order of receipt, so a pass walks the table from its start in windows of
 * rowids and needs no index. The daily roll-ups are not touched: statistics
 * outlive raw events.
 */
export class Retention {
  private readonly window;
  private readonly deleteOld;
  /** Where the pass in progress goes on: the last rowid of its previous window. */
  private after = 0;

  constructor(
    db: Database,
    private readonly days: number,
  ) {
    this.window = db.prepare<[number, number, number, number], Window>(
      `SELECT max(seq) AS end, count(*) AS rows, sum(received_at >= ? AND received_at <= ?) AS settled
       FROM (SELECT seq, received_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?)`,
    );
    this.deleteOld = db.prepare<[number, number, number]>('DELETE FROM events WHERE seq > ? AND seq <= ? AND received_at < ?');
  }

  /**
   * Deletes the old rows of the next window. The pass ends (`more` false) at
   * the end of the table or at a window holding a row still within the
   * retention period: everything after it is younger (give or take the few
   * ms by which concurrent requests interleave). Rows received "in the
   * future" do not end it: they come from a clock that jumped ahead, and the
   * rows after them, received once the clock was right again, may be old.
   */
  step(now: number): { deleted: number; more: boolean } {
    const cutoff = now - this.days * DAY_MS;
    const window = this.window.get(cutoff, now, this.after, BATCH);
    if (!window || window.end === null) return this.finish(0);
    const deleted = this.deleteOld.run(this.after, window.end, cutoff).changes;
    if (window.rows < BATCH || (window.settled ?? 0) > 0) return this.finish(deleted);
    this.after = window.end;
    return { deleted, more: true };
  }

  private finish(deleted: number): { deleted: number; more: boolean } {
    this.after = 0;
    return { deleted, more: false };
  }
}
