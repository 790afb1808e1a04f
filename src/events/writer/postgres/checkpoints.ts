/**
 * Checkpoints of the derived state shared through PostgreSQL
 * (event_checkpoints): the leading instance writes the whole
 * state as one value every few seconds while events arrive, and a starting
 * instance loads the newest one and folds only the events after its seq,
 * instead of every stored event. One value rather than SQLite's tables:
 * written whole in one statement, read whole in one, with no merge of
 * changed rows across instances (docs/operations/scale-out.md, "Start-up and checkpoints").
 */

import { restoreState, SNAPSHOT_FORMAT, snapshotState } from '../../../analytics/snapshot.ts';
import { DerivedState } from '../../../analytics/state.ts';
import type { Sql } from '../../../db/postgres/connection.ts';

interface LoadedCheckpoint {
  state: DerivedState;
  seq: number;
  bytes: number;
}

/** The newest checkpoint in a state of its own; undefined when there is none, or none this version can read (the state is then rebuilt). */
export async function loadCheckpoint(sql: Sql): Promise<LoadedCheckpoint | undefined> {
  const [row] = await sql.unsafe<{ seq: number; format: number; state: Uint8Array }[]>(
    'SELECT seq, format, state FROM event_checkpoints WHERE format = $1 ORDER BY seq DESC LIMIT 1',
    [SNAPSHOT_FORMAT],
  );
  if (!row) return undefined;
  const state = new DerivedState();
  try {
    if (!restoreState(state, row.state)) return undefined;
  } catch {
    // Written by a version whose V8 this one cannot read: the raw events are still the source of truth.
    return undefined;
  }
  return { state, seq: row.seq, bytes: row.state.byteLength };
}

/** Writes the state, which counts every event up to `seq`, as the newest checkpoint, and drops the older ones; returns its size in bytes. */
export async function writeCheckpoint(sql: Sql, state: DerivedState, seq: number): Promise<number> {
  const value = snapshotState(state);
  await sql.begin(async (tx) => {
    await tx.unsafe('INSERT INTO event_checkpoints (seq, written_at, format, state) VALUES ($1, $2, $3, $4) ON CONFLICT (seq) DO NOTHING', [
      seq,
      Date.now(),
      SNAPSHOT_FORMAT,
      value,
    ]);
    await tx.unsafe('DELETE FROM event_checkpoints WHERE seq < $1', [seq]);
  });
  return value.byteLength;
}
