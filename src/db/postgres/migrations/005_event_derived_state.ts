import type { Migration } from '../../migrations/migration.ts';

/**
 * The derived state shared between instances: SQLite's migration 5 moved
 * the dedup and time indexes into tables its one writer thread fills in
 * bulk, with the derived state (daily counts, user sets) checkpointed
 * beside them in tables. PostgreSQL keeps the indexes in the events table
 * (migration 3) and the derived state as whole checkpoints, one value each,
 * written by the leading instance and loaded by starting ones
 * (docs/operations/scale-out.md, "Start-up and checkpoints"): `seq` is the last event the state
 * counts, `format` the layout of `state` (src/events/derived/snapshot.ts).
 */
export const eventDerivedState: Migration = {
  version: 5,
  name: 'events: derived state checkpointed in bulk',
  sql: `
    CREATE TABLE event_checkpoints (
      seq        bigint PRIMARY KEY,
      written_at bigint NOT NULL,
      format     integer NOT NULL,
      state      bytea NOT NULL
    );
  `,
};
