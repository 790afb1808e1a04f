import type { Database } from '../../db/database.ts';
import type { DerivedStore } from '../derived/checkpoint.ts';
import { idHash } from '../derived/id-hash.ts';
import { Admission } from '../derived/limits.ts';
import type { EventRow, Written } from './protocol.ts';

interface Staged {
  seq: number;
  row: EventRow;
}

/**
 * Stores events: per event, an exact duplicate check (the keys stored since
 * the last checkpoint are in memory, older ones in event_dedup: read only
 * when the key filter says the key may be there, and checked against the
 * stored id there, as event_dedup holds a hash of it), the ingestion limits
 * (derived/limits.ts: a new event is refused when the derived state would
 * pass one) and the append of the raw row, nothing else. Only once the
 * transaction has committed are the
 * stored rows counted into the derived state, so a rolled-back transaction
 * leaves no trace in memory either (its keys are taken back).
 */
export class EventSink {
  /** Commits every request's rows in one transaction; returns how many rows of each were new, and which were refused. */
  readonly write: (requests: readonly EventRow[][]) => Written;

  constructor(db: Database, derived: DerivedStore) {
    const insertEvent = db.prepare<EventRow>(
      `INSERT INTO events (project_id, paywall_id, type, ts, client_ts, sent_at, received_at, event_id, user_id, variant_id, product_id, properties, audience, revenue, currency)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const checkpointed = db
      .prepare<[number, number, number, string], number>(
        'SELECT 1 FROM event_dedup d JOIN events e ON e.seq = d.seq WHERE d.project_no = ? AND d.client_ts = ? AND d.id_hash = ? AND e.event_id = ?',
      )
      .pluck();
    const { pending, state } = derived;
    const keys = pending.keys;
    const admission = new Admission(state);
    const store = db.transaction((requests: readonly EventRow[][], staged: Staged[]): Written => {
      const written: Written = { inserted: [], refused: [] };
      for (const rows of requests) {
        let fresh = 0;
        const refused: Written['refused'][number] = [];
        for (const [index, row] of rows.entries()) {
          const eventId = row[7];
          // Every event's project needs its number: the checkpoint's index fill joins on it.
          const projectNo = derived.projectNo(row[0]);
          const clientTs = row[4];
          const hash = eventId === null ? 0 : idHash(eventId);
          if (eventId !== null) {
            if (keys.has(projectNo, clientTs, hash, eventId)) continue;
            if (derived.mayBeStored(projectNo, clientTs, hash) && checkpointed.get(projectNo, clientTs, hash, eventId) !== undefined) continue;
          }
          // After the duplicate check: a retry of a stored event is a duplicate, whatever the limits say now.
          const limit = admission.admit(row);
          if (limit !== undefined) {
            refused.push([index, limit]);
            continue;
          }
          if (eventId !== null) keys.add(projectNo, clientTs, hash, eventId);
          staged.push({ seq: Number(insertEvent.run(...row).lastInsertRowid), row });
          fresh++;
        }
        written.inserted.push(fresh);
        written.refused.push(refused);
      }
      return written;
    });
    this.write = (requests) => {
      const staged: Staged[] = [];
      const mark = keys.length;
      let written: Written;
      try {
        written = store.immediate(requests, staged);
      } catch (error) {
        keys.truncate(mark);
        admission.clear();
        throw error;
      }
      for (const { seq, row } of staged) {
        const [projectId, paywallId, type, ts] = row;
        state.apply({ projectId, paywallId, type, ts, userId: row[8], variantId: row[9], audience: row[12], revenue: row[13], currency: row[14] });
        pending.add(seq);
      }
      admission.clear();
      return written;
    };
  }
}
