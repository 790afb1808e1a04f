/**
 * The stored events read back in seq order, a page at a time, for the
 * replay after a checkpoint and the rebuild without one. Each page comes
 * out of SQLite as one JSON text (a JSON array of StoredEventRows) that
 * JSON.parse reads: the driver builds a row value by value, about half a
 * microsecond per value, which made reading the rows most of a rebuild
 * (bench/notes/analytics-storage.md, "start-up and rebuild"). The columns are STRICT text,
 * integers and reals, each of which JSON carries exactly: SQLite (3.53 in
 * better-sqlite3) writes a real with the fewest digits that read back to
 * the same double.
 */
import type { Database } from '../db/database.ts';
import { STORED_EVENT_COLUMNS, type StoredEventRow } from './derived-event.ts';

/** Rows per page: one text of about a megabyte; larger pages were slower (the text is built and parsed whole). */
export const EVENT_PAGE = 8192;

export class StoredEventPages {
  private readonly page;

  constructor(db: Database) {
    this.page = db
      .prepare<[number, number, number], string | null>(
        `SELECT '[' || group_concat(json_array(${STORED_EVENT_COLUMNS}), ',' ORDER BY seq) || ']'
         FROM (SELECT ${STORED_EVENT_COLUMNS} FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?)`,
      )
      .pluck();
  }

  /** The events after seq `after` up to seq `upTo` (both by seq), at most EVENT_PAGE of them, in seq order. */
  after(after: number, upTo = Number.MAX_SAFE_INTEGER): StoredEventRow[] {
    const text = this.page.get(after, upTo, EVENT_PAGE);
    return text == null ? [] : (JSON.parse(text) as StoredEventRow[]);
  }
}
