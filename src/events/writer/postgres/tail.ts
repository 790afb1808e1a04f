/**
 * How an instance's derived state follows the events table: it folds the
 * committed events after the last one it folded, in seq order, with the same
 * code the SQLite writer replays with (derivedEvent, DerivedState.apply).
 * Event commits are serialized by an advisory lock (sink.ts), so seq order is
 * commit order: the committed events a reader sees are always every event up
 * to some seq (gaps are numbers rolled back or deleted, never a row that
 * commits later), and `seq > last` never skips one.
 */

import { derivedEvent, SEQ_COLUMN, STORED_EVENT_COLUMNS, type StoredEventRow } from '../../../analytics/derived-event.ts';
import type { DerivedState } from '../../../analytics/state.ts';
import type { Sql } from '../../../db/postgres/connection.ts';

/** Events read per query: the start-up rebuild reads the whole table this way. */
const PAGE = 50_000;

type Queryable = Pick<Sql, 'unsafe'>;

export class EventTail {
  /** The seq of the last event folded into the state. */
  lastSeq = 0;

  constructor(private readonly state: DerivedState) {}

  /** Folds every committed event after lastSeq (the start-up rebuild from 0 too), or only those before seq `before`; returns how many. */
  async catchUp(sql: Queryable, before = Number.MAX_SAFE_INTEGER): Promise<number> {
    let folded = 0;
    for (;;) {
      const rows = (await sql
        .unsafe(`SELECT ${STORED_EVENT_COLUMNS} FROM events WHERE seq > $1 AND seq < $2 ORDER BY seq LIMIT $3`, [this.lastSeq, before, PAGE])
        .values()) as unknown as StoredEventRow[];
      for (const row of rows) this.state.apply(derivedEvent(row));
      const last = rows.at(-1);
      if (last !== undefined) this.lastSeq = last[SEQ_COLUMN];
      folded += rows.length;
      if (rows.length < PAGE) return folded;
    }
  }
}
