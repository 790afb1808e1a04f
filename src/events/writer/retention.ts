import { idHash } from '../../analytics/id-hash.ts';
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

type OldRow = [seq: number, projectId: string, ts: number, clientTs: number, eventId: string | null];

/**
 * Deletes raw events received more than `days` days ago, oldest first, in
 * small transactions, with their entries in the dedup and time indexes (so
 * a retry of a deleted event is stored again, as before the indexes moved
 * out of the table). Rows sit in insertion order (the rowid), which is the
 * order of receipt, so a pass walks the table from its start in windows of
 * rowids and needs no index. Only events a checkpoint covers are deleted:
 * their index entries are on disk, not in the writer's memory. The newest
 * row is never deleted, however old: SQLite numbers a new row max(seq) + 1,
 * so deleting the newest would hand its seq out again, below the
 * checkpoint's, and the checkpoint and the replay (events after the
 * checkpoint's seq) would miss the new events. The derived state is not
 * touched: statistics outlive raw events.
 */
export class Retention {
  private readonly window;
  private readonly deleteOld;
  private readonly newest;
  /** Where the pass in progress goes on: the last rowid of its previous window. */
  private after = 0;

  constructor(
    db: Database,
    private readonly days: number,
    private readonly checkpointedSeq: () => number,
  ) {
    this.window = db.prepare<[number, number, number, number], Window>(
      `SELECT max(seq) AS end, count(*) AS rows, sum(received_at >= ? AND received_at <= ?) AS settled
       FROM (SELECT seq, received_at FROM events WHERE seq > ? ORDER BY seq LIMIT ?)`,
    );
    const oldRows = db
      .prepare<[number, number, number], OldRow>('SELECT seq, project_id, ts, client_ts, event_id FROM events WHERE seq > ? AND seq <= ? AND received_at < ?')
      .raw();
    const projectNo = 'SELECT project_no FROM event_projects WHERE project_id = ?';
    const deleteDedup = db.prepare<[string, number, number, number]>(
      `DELETE FROM event_dedup WHERE project_no = (${projectNo}) AND client_ts = ? AND id_hash = ? AND seq = ?`,
    );
    const deleteTime = db.prepare<[string, number, number]>(`DELETE FROM event_time_index WHERE project_no = (${projectNo}) AND ts = ? AND seq = ?`);
    const deleteEvent = db.prepare<[number]>('DELETE FROM events WHERE seq = ?');
    this.newest = db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck();
    this.deleteOld = db.transaction((after: number, end: number, cutoff: number): number => {
      const rows = oldRows.all(after, end, cutoff);
      for (const [seq, projectId, ts, clientTs, eventId] of rows) {
        if (eventId !== null) deleteDedup.run(projectId, clientTs, idHash(eventId), seq);
        deleteTime.run(projectId, ts, seq);
        deleteEvent.run(seq);
      }
      return rows.length;
    });
  }

  /**
   * Deletes the old rows of the next window. The pass ends (`more` false) at
   * the end of the table, at events no checkpoint covers yet, or at a window
   * holding a row still within the retention period: everything after it is
   * younger (give or take the few ms by which concurrent requests
   * interleave). Rows received "in the future" do not end it: they come from
   * a clock that jumped ahead, and the rows after them, received once the
   * clock was right again, may be old.
   */
  step(now: number): { deleted: number; more: boolean } {
    const cutoff = now - this.days * DAY_MS;
    const window = this.window.get(cutoff, now, this.after, BATCH);
    if (!window || window.end === null) return this.finish(0);
    const covered = Math.min(window.end, this.checkpointedSeq(), (this.newest.get() ?? 0) - 1);
    const deleted = covered > this.after ? this.deleteOld.immediate(this.after, covered, cutoff) : 0;
    if (covered < window.end || window.rows < BATCH || (window.settled ?? 0) > 0) return this.finish(deleted);
    this.after = window.end;
    return { deleted, more: true };
  }

  private finish(deleted: number): { deleted: number; more: boolean } {
    this.after = 0;
    return { deleted, more: false };
  }
}
