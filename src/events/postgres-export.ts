/**
 * `GET /api/events` on PostgreSQL: the project's events in the range,
 * oldest first (by ts, then seq), as NDJSON chunks of the same lines as
 * SQLite's export (export-line.ts), read through the index events_by_time.
 * Rows are fetched 1,000 at a time through a cursor on a connection of the
 * export's own, in a read-only REPEATABLE READ transaction: one consistent
 * snapshot while instances go on writing, and the next rows are fetched only
 * when the client has taken the previous ones. The connection goes back to
 * the pool when the stream ends or is abandoned (the client went away).
 */
import type { Sql } from '../db/postgres/connection.ts';
import { CHUNK_CHARS, COLUMNS, type ExportRange, type ExportRow, line } from './export-line.ts';

const FETCH_ROWS = 1000;

export async function* exportPostgresEvents(sql: Sql, range: ExportRange): AsyncGenerator<string> {
  const connection = await sql.reserve();
  try {
    await connection.unsafe('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const byPaywall = range.paywallId === undefined ? '' : 'AND e.paywall_id = $4';
    const params = [range.projectId, range.from, range.to, ...(range.paywallId === undefined ? [] : [range.paywallId])];
    const rows = connection
      .unsafe(`SELECT ${COLUMNS} FROM events e WHERE e.project_id = $1 AND e.ts BETWEEN $2 AND $3 ${byPaywall} ORDER BY e.ts, e.seq`, params)
      .values()
      .cursor(FETCH_ROWS);
    let chunk = '';
    for await (const page of rows) {
      for (const row of page as unknown as ExportRow[]) {
        chunk += line(row);
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
    }
    if (chunk !== '') yield chunk;
    await connection.unsafe('COMMIT');
  } finally {
    // An abandoned export leaves its transaction open: ending it before the connection goes back to the pool.
    await connection.unsafe('ROLLBACK').catch(() => undefined);
    connection.release();
  }
}
