/**
 * Retention on PostgreSQL (`--retention-days N`): deletes raw events
 * received more than N days ago, oldest first, in small transactions, run by
 * the leading instance only (leadership.ts). As on SQLite (../retention.ts),
 * a pass walks the table in windows of seq, the order of receipt, and stops
 * at a window holding a row still within the period, so it needs no index on
 * the receipt time. Only events the newest checkpoint counts are deleted: an
 * instance that starts later gets them from it (checkpoints.ts), and the
 * derived state in each running instance keeps counting them. Unlike
 * SQLite, the newest row may go too: the identity column never hands a
 * number out twice.
 */
import type { Sql } from '../../../db/postgres/connection.ts';
import { DAY_MS } from '../../time.ts';

/** Rows per delete: small, so that event transactions never wait long behind one. */
const BATCH = 1000;
/** Windows per call: a pass of more goes on at the leader's next turn, so that one turn stays short. */
const WINDOWS_PER_CALL = 50;

const WINDOW = `SELECT max(seq) AS end, count(*)::int AS rows, count(*) FILTER (WHERE received_at >= $1 AND received_at <= $2)::int AS settled
  FROM (SELECT seq, received_at FROM events WHERE seq > $3 ORDER BY seq LIMIT $4) w`;

interface RetentionStep {
  deleted: number;
  /** Where the pass goes on (the last seq of its last window), undefined once it is done. */
  after: number | undefined;
  /** The pass stopped at events the newest checkpoint does not count yet: the next one may go further. */
  atCheckpoint: boolean;
}

/**
 * Deletes the events received before `now` − `days` and numbered at most
 * `upTo` (what the newest checkpoint counts), from the window after `after`
 * (0: a new pass), at most WINDOWS_PER_CALL windows.
 */
export async function retentionStep(sql: Sql, days: number, now: number, upTo: number, after = 0): Promise<RetentionStep> {
  const cutoff = now - days * DAY_MS;
  let deleted = 0;
  for (let windows = 0; windows < WINDOWS_PER_CALL; windows++) {
    const [window] = await sql.unsafe<{ end: number | null; rows: number; settled: number }[]>(WINDOW, [cutoff, now, after, BATCH]);
    if (!window || window.end === null) return { deleted, after: undefined, atCheckpoint: false };
    if (after >= upTo) return { deleted, after: undefined, atCheckpoint: true };
    const end = Math.min(window.end, upTo);
    const result = await sql.unsafe('DELETE FROM events WHERE seq > $1 AND seq <= $2 AND received_at < $3', [after, end, cutoff]);
    deleted += result.count;
    if (end < window.end) return { deleted, after: undefined, atCheckpoint: true };
    if (window.rows < BATCH || window.settled > 0) return { deleted, after: undefined, atCheckpoint: false };
    after = window.end;
  }
  return { deleted, after, atCheckpoint: false };
}
