/**
 * Stores events in PostgreSQL, one transaction per group of requests, so
 * that several instances on one database stay exact (docs/operations/scale-out.md,
 * "Commit order is read order", gives each step and why):
 *
 * 1. admission against the instance's state, before the lock, as the
 *    SQLite writer does (analytics/limits.ts);
 * 2. sent together: `pg_advisory_xact_lock(events)`, which serializes event
 *    commits across instances so that seq order is commit order (tail.ts
 *    relies on it); the seq of the newest commit that brought a new name
 *    (event_names_changed); and one multi-row `INSERT … SELECT FROM unnest(…) ON
 *    CONFLICT DO NOTHING` (the unique index events_dedup makes
 *    deduplication exact) on condition that no commit since the instance's
 *    last fold brought a name, with `pg_notify('paywalld_events', newest
 *    seq)` and, when this commit brings a name, that seq moved to it;
 * 3. when the condition failed (nothing was inserted) or an event was past
 *    a limit: the state catches up under the lock if a name came, and the
 *    group is admitted and inserted again;
 * 4. COMMIT.
 *
 * The caller acknowledges the requests only after COMMIT, and only then
 * are the rows folded into the state, after those committed before them: a
 * rolled-back transaction leaves no trace (the rows of a commit whose
 * answer was lost, or whose catch-up failed, are folded by the tail, as
 * another instance's would be).
 */

import { type DerivedEvent, derivedEvent } from '../../../analytics/derived-event.ts';
import { Admission, type Refusal, refusedRow, UNLOADED } from '../../../analytics/limits.ts';
import type { DerivedState } from '../../../analytics/state.ts';
import { ADVISORY_LOCKS } from '../../../db/postgres/advisory-locks.ts';
import type { Sql, Transaction } from '../../../db/postgres/connection.ts';
import { EVENT_COLUMNS, type EventRow } from '../../event-row.ts';
import type { Written } from '../protocol.ts';
import { PostgresPublicNames } from './public-names.ts';
import type { EventTail } from './tail.ts';

/** The PostgreSQL array type of each column of an EventRow, in order. */
const COLUMN_TYPES = [
  'text',
  'text',
  'text',
  'int8',
  'int8',
  'int8',
  'int8',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'float8',
  'text',
  'text',
] as const;

/**
 * The insert, on condition that no commit since seq $16 brought a name: an
 * insert sent with the lock, of events admitted before it was granted,
 * stores nothing when one did (the admission may be wrong then).
 */
const INSERT = `INSERT INTO events (${EVENT_COLUMNS.join(', ')})
  SELECT * FROM unnest(${COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
  WHERE (SELECT seq FROM event_names_changed) <= $${COLUMN_TYPES.length + 1}
  ON CONFLICT (project_id, client_ts, event_id) WHERE event_id IS NOT NULL DO NOTHING
  RETURNING seq, project_id, client_ts, event_id`;

const NOTIFY = `SELECT pg_notify('paywalld_events', (SELECT max(seq) FROM events)::text)`;

const NAMES_CHANGED = 'SELECT seq FROM event_names_changed';

/** Sent after the INSERT, under the lock: the newest seq is this commit's. */
const MARK_NAMES_CHANGED = 'UPDATE event_names_changed SET seq = (SELECT max(seq) FROM events)';

const STORED = 'SELECT 1 FROM events WHERE project_id = $1 AND client_ts = $2 AND event_id = $3';

/** The dedup key of an event with an id (docs/reference/events.md, "Deduplication"). */
function keyOf(projectId: string, clientTs: number, eventId: string): string {
  return `${projectId}\0${clientTs}\0${eventId}`;
}

interface Candidate {
  request: number;
  row: EventRow;
  event: DerivedEvent;
  key: string | undefined;
}

/** The requests' events admitted (candidates for the insert), and the answer so far: the refusals. */
interface Admitted {
  written: Written;
  candidates: Candidate[];
}

type InsertedRow = { seq: number; project_id: string; client_ts: number; event_id: string | null };

/** What a commit stored, to be folded after it. */
interface Committed {
  events: DerivedEvent[];
  firstSeq: number;
  lastSeq: number;
}

export class PostgresEventSink {
  private readonly publicNames = new PostgresPublicNames();

  constructor(
    private readonly sql: Sql,
    private readonly state: DerivedState,
    private readonly tail: EventTail,
  ) {}

  /** Commits every request's rows in one transaction; returns how many rows of each were new, and which were refused. `marks` as in QueuedWrite. */
  async write(requests: readonly EventRow[][], marks: readonly (readonly number[] | undefined)[] = []): Promise<Written> {
    const admission = new Admission(this.state, this.publicNames);
    // Admitted before the lock, against the state as it is; undefined when an event is past a limit (its lookup is made under the lock)
    // or brings a name no paywall declares (the budgets are read under the lock).
    const foldedSeq = this.tail.lastSeq;
    const early = await this.admit(requests, marks, admission, undefined);
    let written: Written;
    let stored: Committed;
    try {
      [written, stored] = await this.sql.begin(async (tx) => {
        // Sent together (execute() queues each at once; the driver pipelines the queries of a connection): the lock, the
        // new-name seq, and the insert of what was admitted early; each starts once the one before has ended.
        const locked = tx.unsafe('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.events.toString()]).execute();
        const names = tx.unsafe<{ seq: number }[]>(NAMES_CHANGED).execute();
        const ahead = early && early.candidates.length > 0 ? this.insert(tx, early.candidates, admission.reservedNames, foldedSeq) : undefined;
        const [, [namesChanged], inserted] = await Promise.all([locked, names, ahead]);
        if (early && (ahead === undefined || namesChanged!.seq <= foldedSeq)) return this.committed(early, inserted ?? []);
        // A commit since the last fold brought a name (nothing was inserted), or an event is past a limit: admission
        // again, under the lock, against a state that counts every name stored.
        if (namesChanged!.seq > this.tail.lastSeq) await this.tail.catchUp(tx);
        admission.clear();
        await this.publicNames.load(tx, [...new Set(requests.flatMap((rows) => rows.map((row) => row[0])))]);
        const admitted = (await this.admit(requests, marks, admission, tx))!;
        const rows = admitted.candidates.length === 0 ? [] : await this.insert(tx, admitted.candidates, admission.reservedNames, Number.MAX_SAFE_INTEGER);
        await this.publicNames.store(tx, admission.publicNames, Date.now());
        return this.committed(admitted, rows);
      });
    } finally {
      admission.clear();
      this.publicNames.forget();
    }
    if (stored.events.length > 0) await this.fold(stored);
    return written;
  }

  /**
   * Checks every row against the limits and for a second copy in the
   * group. An event past a limit is looked up in `tx` (a retry of a stored
   * event is a duplicate, whatever the limits say now); without `tx`
   * (ahead of the lock), undefined.
   */
  private async admit(
    requests: readonly EventRow[][],
    marks: readonly (readonly number[] | undefined)[],
    admission: Admission,
    tx: Transaction | undefined,
  ): Promise<Admitted | undefined> {
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
        const limit = admission.admit(event, marks[request]?.[index]);
        if (limit === undefined) candidates.push({ request, row, event, key });
        else if (tx === undefined) return undefined;
        // Under the lock every project's public names are loaded.
        else if (limit === UNLOADED) throw new Error('the public names of a project were not loaded');
        // A rare lookup: only for an event past a limit.
        else if (event.eventId === null || (await tx.unsafe(STORED, [event.projectId, event.clientTs, event.eventId])).length === 0) {
          written.refused[request]!.push(refusedRow(index, limit as Refusal));
        }
      }
    }
    return { written, candidates };
  }

  /**
   * The insert, if no commit after seq `namesAtMost` brought a name, sent
   * with the notification, whose payload, the newest seq, includes the rows
   * inserted, and the new-name seq moved to this commit when it brings one.
   */
  private async insert(tx: Transaction, candidates: Candidate[], bringsNames: boolean, namesAtMost: number): Promise<InsertedRow[]> {
    const columns = COLUMN_TYPES.map((_, column) => candidates.map(({ row }) => row[column] ?? null));
    const [inserted] = await Promise.all([
      tx.unsafe<InsertedRow[]>(INSERT, [...columns, namesAtMost]).execute(),
      tx.unsafe(NOTIFY).execute(),
      ...(bringsNames ? [tx.unsafe(MARK_NAMES_CHANGED).execute()] : []),
    ]);
    return inserted;
  }

  /** Counts the inserted rows per request: a candidate the insert did not return was stored before (a duplicate). */
  private committed({ written, candidates }: Admitted, inserted: readonly InsertedRow[]): [Written, Committed] {
    const fresh = new Set<string>();
    let firstSeq = Number.POSITIVE_INFINITY;
    let lastSeq = 0;
    for (const row of inserted) {
      if (row.event_id !== null) fresh.add(keyOf(row.project_id, row.client_ts, row.event_id));
      firstSeq = Math.min(firstSeq, row.seq);
      lastSeq = Math.max(lastSeq, row.seq);
    }
    const events: DerivedEvent[] = [];
    for (const { request, event, key } of candidates) {
      if (key !== undefined && !fresh.has(key)) continue;
      written.inserted[request]!++;
      events.push(event);
    }
    return [written, { events, firstSeq, lastSeq }];
  }

  /**
   * Folds what the other instances committed before this commit, then its
   * own events: the lock was held from the read of the new-name seq to the
   * commit, so its rows are every seq from `firstSeq` to `lastSeq`, and the
   * others' all come before. The commit stands whatever happens here: if
   * the catch-up fails (the database went away), the tail folds both later.
   */
  private async fold({ events, firstSeq, lastSeq }: Committed): Promise<void> {
    try {
      await this.tail.catchUp(this.sql, firstSeq);
    } catch {
      return;
    }
    for (const event of events) this.state.apply(event);
    this.tail.lastSeq = lastSeq;
  }
}
