/**
 * Stores events in PostgreSQL, one transaction per group of requests, so
 * that several instances on one database stay exact (docs/scale-out.md,
 * "Events and derived state"):
 *
 * 1. `pg_advisory_xact_lock(events)`: event commits are serialized across
 *    instances, so seq order is commit order (tail.ts relies on it);
 * 2. the derived state catches up with every event committed so far (other
 *    instances'), so that the ingestion limits (derived/limits.ts) count them;
 * 3. Admission against it, as the SQLite writer does;
 * 4. one multi-row `INSERT … SELECT FROM unnest(…) ON CONFLICT DO NOTHING`:
 *    the unique index events_dedup makes deduplication exact, whichever
 *    instance stored the first copy;
 * 5. `pg_notify('paywalld_events', newest seq)` (sent at commit), then COMMIT.
 *
 * The caller acknowledges the requests only after COMMIT, and only then
 * are the new rows folded into the state: a rolled-back transaction leaves
 * no trace (the rows of a commit whose answer was lost are folded by the
 * tail, as another instance's would be).
 */
import { ADVISORY_LOCKS } from '../../../db/postgres/advisory-locks.ts';
import type { Sql } from '../../../db/postgres/connection.ts';
import { type DerivedEvent, derivedEvent } from '../../derived/derived-event.ts';
import { Admission } from '../../derived/limits.ts';
import type { DerivedState } from '../../derived/state.ts';
import { EVENT_COLUMNS, type EventRow, type Written } from '../protocol.ts';
import type { EventTail } from './tail.ts';

/** The PostgreSQL array type of each column of an EventRow, in order. */
const COLUMN_TYPES = ['text', 'text', 'text', 'int8', 'int8', 'int8', 'int8', 'text', 'text', 'text', 'text', 'text', 'text', 'float8', 'text'] as const;

const INSERT = `INSERT INTO events (${EVENT_COLUMNS.join(', ')})
  SELECT * FROM unnest(${COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
  ON CONFLICT (project_id, client_ts, event_id) WHERE event_id IS NOT NULL DO NOTHING
  RETURNING seq, project_id, client_ts, event_id`;

const NOTIFY = `SELECT pg_notify('paywalld_events', (SELECT max(seq) FROM events)::text)`;

const STORED = 'SELECT 1 FROM events WHERE project_id = $1 AND client_ts = $2 AND event_id = $3';

/** The dedup key of an event with an id (docs/events.md, "Deduplication"). */
function keyOf(projectId: string, clientTs: number, eventId: string): string {
  return `${projectId}\0${clientTs}\0${eventId}`;
}

interface Candidate {
  request: number;
  row: EventRow;
  event: DerivedEvent;
  key: string | undefined;
}

export class PostgresEventSink {
  constructor(
    private readonly sql: Sql,
    private readonly state: DerivedState,
    private readonly tail: EventTail,
  ) {}

  /** Commits every request's rows in one transaction; returns how many rows of each were new, and which were refused. */
  async write(requests: readonly EventRow[][]): Promise<Written> {
    const admission = new Admission(this.state);
    let stored: { events: DerivedEvent[]; lastSeq: number };
    let written: Written;
    try {
      [written, stored] = await this.sql.begin(async (tx) => {
        // Sent together, the lock first (execute() queues it at once; the driver pipelines the queries of a connection):
        // the catch-up's statement starts once the lock is granted, and one round trip under the lock is saved.
        const locked = tx.unsafe('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.events.toString()]).execute();
        await Promise.all([locked, this.tail.catchUp(tx)]);
        const written: Written = { inserted: requests.map(() => 0), refused: requests.map(() => []) };
        const candidates: Candidate[] = [];
        const seen = new Set<string>();
        for (const [request, rows] of requests.entries()) {
          for (const [index, row] of rows.entries()) {
            const event = derivedEvent(row);
            const key = event.eventId === null ? undefined : keyOf(event.projectId, event.clientTs, event.eventId);
            // A second copy within the transaction is a duplicate of the first.
            if (key !== undefined && seen.has(key)) continue;
            if (key !== undefined) seen.add(key);
            const limit = admission.admit(event);
            if (limit === undefined) candidates.push({ request, row, event, key });
            // A retry of a stored event is a duplicate, whatever the limits say now (a rare lookup: only for an event past a limit).
            else if (event.eventId === null || (await tx.unsafe(STORED, [event.projectId, event.clientTs, event.eventId])).length === 0) {
              written.refused[request]!.push([index, limit]);
            }
          }
        }
        const columns = COLUMN_TYPES.map((_, column) => candidates.map(({ row }) => row[column] ?? null));
        // The notification is sent with the insert (pipelined): its payload, the newest seq, includes the rows just inserted.
        const [inserted] =
          candidates.length === 0
            ? [[]]
            : await Promise.all([
                tx.unsafe<{ seq: number; project_id: string; client_ts: number; event_id: string | null }[]>(INSERT, columns).execute(),
                tx.unsafe(NOTIFY).execute(),
              ]);
        const fresh = new Set<string>();
        let lastSeq = 0;
        for (const row of inserted) {
          if (row.event_id !== null) fresh.add(keyOf(row.project_id, row.client_ts, row.event_id));
          lastSeq = Math.max(lastSeq, row.seq);
        }
        const events: DerivedEvent[] = [];
        for (const { request, event, key } of candidates) {
          if (key !== undefined && !fresh.has(key)) continue;
          written.inserted[request]!++;
          events.push(event);
        }
        return [written, { events, lastSeq }] as const;
      });
    } finally {
      admission.clear();
    }
    for (const event of stored.events) this.state.apply(event);
    // Nothing else committed between the catch-up and this commit: the lock was held throughout.
    if (stored.lastSeq > this.tail.lastSeq) this.tail.lastSeq = stored.lastSeq;
    return written;
  }
}
