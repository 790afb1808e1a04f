/**
 * How an instance's derived state follows the events table: it folds the
 * committed events after the last one it folded, in seq order, with the same
 * code the SQLite writer replays with (derivedEvent, DerivedState.apply).
 * Event commits are serialized by an advisory lock (sink.ts), so seq order is
 * commit order: the committed events a reader sees are always every event up
 * to some seq (gaps are numbers rolled back or deleted, never a row that
 * commits later), and `seq > last` never skips one.
 */
import type { Sql } from '../../../db/postgres/connection.ts';
import { derivedEvent, SEQ_COLUMN, STORED_EVENT_COLUMNS, type StoredEventRow } from '../../derived/derived-event.ts';
import { EVENT_PAGE } from '../../derived/event-pages.ts';
import type { DerivedState } from '../../derived/state.ts';

/**
 * A page of events as one JSON text (a JSON array of StoredEventRows), as
 * SQLite's pages are read (../../derived/event-pages.ts): the driver builds
 * a row value by value, which made reading the other instances' rows most
 * of an instance's CPU (BENCHMARKS.md, "PostgreSQL"). float8 comes out in
 * its shortest exact form (extra_float_digits 1, set by openPool), which
 * JSON.parse reads back to the same double.
 */
const PAGE_QUERY = `SELECT json_agg(json_build_array(${STORED_EVENT_COLUMNS}) ORDER BY seq)::text AS page
  FROM (SELECT * FROM events WHERE seq > $1 AND seq < $2 ORDER BY seq LIMIT $3) page`;

type Queryable = Pick<Sql, 'unsafe'>;

export class EventTail {
  /** The seq of the last event folded into the state. */
  lastSeq = 0;

  constructor(private readonly state: DerivedState) {}

  /** Folds every committed event after lastSeq (the start-up rebuild from 0 too), or only those before seq `before`; returns how many. */
  async catchUp(sql: Queryable, before = Number.MAX_SAFE_INTEGER): Promise<number> {
    let folded = 0;
    for (;;) {
      const [{ page }] = await sql.unsafe<[{ page: string | null }]>(PAGE_QUERY, [this.lastSeq, before, EVENT_PAGE]);
      const rows = page === null ? [] : (JSON.parse(page) as StoredEventRow[]);
      for (const row of rows) this.state.apply(derivedEvent(row));
      const last = rows.at(-1);
      if (last !== undefined) this.lastSeq = last[SEQ_COLUMN];
      folded += rows.length;
      if (rows.length < EVENT_PAGE) return folded;
    }
  }
}
