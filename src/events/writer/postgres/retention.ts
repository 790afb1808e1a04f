/**
 * Retention on PostgreSQL (`--retention-days N`): deletes raw events
 * received more than N days ago, oldest first, in small transactions, run by
 * the leading instance only (leadership.ts). As on SQLite (../retention.ts),
 * a pass walks the table in windows of seq, the order of receipt, and stops
 * at a window holding a row still within the period, so it needs no index on
 * the receipt time. Unlike SQLite, the newest row may go too: the identity
 * column never hands a number out twice. The derived state in each
 * instance's memory keeps counting the deleted events.
 */
import type { Sql } from '../../../db/postgres/connection.ts';
import { DAY_MS } from '../../time.ts';

/** Rows per delete: small, so that event transactions never wait long behind one. */
const BATCH = 1000;

const WINDOW = `SELECT max(seq) AS end, count(*)::int AS rows, count(*) FILTER (WHERE received_at >= $1 AND received_at <= $2)::int AS settled
  FROM (SELECT seq, received_at FROM events WHERE seq > $3 ORDER BY seq LIMIT $4) w`;

/** Deletes the events received before `now` − `days`; returns how many. */
export async function retentionPass(sql: Sql, days: number, now: number): Promise<number> {
  const cutoff = now - days * DAY_MS;
  let after = 0;
  let deleted = 0;
  for (;;) {
    const [window] = await sql.unsafe<{ end: number | null; rows: number; settled: number }[]>(WINDOW, [cutoff, now, after, BATCH]);
    if (!window || window.end === null) return deleted;
    const result = await sql.unsafe('DELETE FROM events WHERE seq > $1 AND seq <= $2 AND received_at < $3', [after, window.end, cutoff]);
    deleted += result.count;
    if (window.rows < BATCH || window.settled > 0) return deleted;
    after = window.end;
  }
}
