import { openDatabase } from '../db/database.ts';
import { CHUNK_CHARS, COLUMNS, type ExportRange, line, type ExportRow as Row } from './export-line.ts';

/** The same columns read from the time index where it has them, so that SQLite walks the index in order instead of sorting. */
const INDEXED_COLUMNS = COLUMNS.replace('e.ts,', 'i.ts,').replace('e.seq,', 'i.seq,');

/**
 * The project's events in the range, oldest first, as NDJSON chunks. The
 * events a checkpoint covers are read in order through event_time_index; the
 * ones after it (not yet indexed: seconds' worth, or up to a checkpoint's
 * worth after a burst) are read by seq. One compound statement orders both
 * by (ts, seq): SQLite merges the index walk with a sort of the tail, and its
 * sorter spills to temporary files rather than holding a large tail in
 * memory, so the export's memory stays flat whatever the checkpoint lags.
 * The export reads through a connection of its own: a statement being
 * iterated keeps its connection busy, and the read transaction gives the
 * whole export one consistent snapshot (the checkpoint and the events agree)
 * while writers go on. The connection is opened on the first chunk and
 * closed when the stream ends or is abandoned (the client went away).
 */
export function* exportEvents(dbPath: string, range: ExportRange): Generator<string> {
  const db = openDatabase(dbPath, { mustExist: true });
  try {
    db.pragma('query_only = ON');
    db.exec('BEGIN');
    const byPaywall = range.paywallId === undefined ? '' : 'AND e.paywall_id = ?';
    const params = [range.projectId, range.from, range.to, ...(range.paywallId === undefined ? [] : [range.paywallId])];
    const checkpointed = (db.prepare('SELECT seq FROM event_checkpoint WHERE id = 1').pluck().get() as number | undefined) ?? 0;
    const rows = db
      .prepare(
        `SELECT ${INDEXED_COLUMNS} FROM event_time_index i JOIN events e ON e.seq = i.seq
         WHERE i.project_no = (SELECT project_no FROM event_projects WHERE project_id = ?) AND i.ts BETWEEN ? AND ? ${byPaywall}
         UNION ALL
         SELECT ${COLUMNS} FROM events e WHERE e.seq > ? AND e.project_id = ? AND e.ts BETWEEN ? AND ? ${byPaywall}
         ORDER BY 4, 12`,
      )
      .raw();
    let chunk = '';
    for (const row of rows.iterate(...params, checkpointed, ...params) as IterableIterator<Row>) {
      chunk += line(row);
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
  } finally {
    db.close();
  }
}
