import type { DerivedStore } from '../../analytics/checkpoint.ts';
import { type DerivedEvent, derivedEvent } from '../../analytics/derived-event.ts';
import { idHash } from '../../analytics/id-hash.ts';
import { Admission, refusedRow, UNLOADED } from '../../analytics/limits.ts';
import type { Database } from '../../db/database.ts';
import { EVENT_COLUMNS, type EventRow } from '../event-row.ts';
import type { Written } from './protocol.ts';
import { SqlitePublicNames } from './public-names.ts';

interface Staged {
  seq: number;
  event: DerivedEvent;
}

/**
 * Stores events: per event, an exact duplicate check (the keys stored since
 * the last checkpoint are in memory, older ones in event_dedup: read only
 * when the key filter says the key may be there, and checked against the
 * stored id there, as event_dedup holds a hash of it), the ingestion limits
 * (analytics/limits.ts: a new event is refused when the derived state would
 * pass one) and the append of the raw row, nothing else. Only once the
 * transaction has committed are the
 * stored rows counted into the derived state, so a rolled-back transaction
 * leaves no trace in memory either (its keys are taken back).
 */
export class EventSink {
  /** Commits every request's rows in one transaction; returns how many rows of each were new, and which were refused. `marks` as in QueuedWrite. */
  readonly write: (requests: readonly EventRow[][], marks?: readonly (readonly number[] | undefined)[]) => Written;

  constructor(db: Database, derived: DerivedStore) {
    const insertEvent = db.prepare<EventRow>(`INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')})`);
    const checkpointed = db
      .prepare<[number, number, number, string], number>(
        'SELECT 1 FROM event_dedup d JOIN events e ON e.seq = d.seq WHERE d.project_no = ? AND d.client_ts = ? AND d.id_hash = ? AND e.event_id = ?',
      )
      .pluck();
    const { pending, state } = derived;
    const keys = pending.keys;
    const publicNames = new SqlitePublicNames(db);
    const admission = new Admission(state, publicNames);
    const store = db.transaction((requests: readonly EventRow[][], marks: readonly (readonly number[] | undefined)[], staged: Staged[]): Written => {
      const written: Written = { inserted: [], refused: [] };
      for (const [request, rows] of requests.entries()) {
        let fresh = 0;
        const refused: Written['refused'][number] = [];
        for (const [index, row] of rows.entries()) {
          const event = derivedEvent(row);
          const { eventId, clientTs } = event;
          // Every event's project needs its number: the checkpoint's index fill joins on it.
          const projectNo = derived.projects.of(event.projectId);
          const hash = eventId === null ? 0 : idHash(eventId);
          if (eventId !== null) {
            if (keys.has(projectNo, clientTs, hash, eventId)) continue;
            if (derived.storedKeys.mayBeStored(projectNo, clientTs, hash) && checkpointed.get(projectNo, clientTs, hash, eventId) !== undefined) continue;
          }
          // After the duplicate check: a retry of a stored event is a duplicate, whatever the limits say now.
          const limit = admission.admit(event, marks[request]?.[index]);
          // The public names are loaded on demand on this connection: never UNLOADED.
          if (limit === UNLOADED) throw new Error('the public names of a project were not loaded');
          if (limit !== undefined) {
            refused.push(refusedRow(index, limit));
            continue;
          }
          if (eventId !== null) keys.add(projectNo, clientTs, hash, eventId);
          staged.push({ seq: Number(insertEvent.run(...row).lastInsertRowid), event });
          fresh++;
        }
        written.inserted.push(fresh);
        written.refused.push(refused);
      }
      publicNames.store(admission.publicNames, Date.now());
      return written;
    });
    this.write = (requests, marks = []) => {
      const staged: Staged[] = [];
      const mark = keys.length;
      let written: Written;
      try {
        written = store.immediate(requests, marks, staged);
      } catch (error) {
        keys.truncate(mark);
        admission.clear();
        publicNames.forget();
        throw error;
      }
      publicNames.forget();
      for (const { seq, event } of staged) {
        state.apply(event);
        pending.add(seq);
      }
      admission.clear();
      return written;
    };
  }
}
