import type { Migration } from './migration.ts';

/**
 * The checkpoint's two index tables with compact integer keys: a number per
 * project (event_projects) instead of the project id's text, and in the
 * dedup key a 52-bit hash of the event id with the event's seq instead of
 * the id's text (a hash match is checked against the events row, so
 * deduplication stays exact). An entry shrinks from about 80 bytes to about
 * 25, and the checkpoint fills both tables with one INSERT … SELECT each
 * (docs/internals/events.md, "Storage"; bench/notes/analytics-storage.md, "Storage designs").
 *
 * Both are derived state: they are dropped and created empty, and the
 * checkpoint is cleared, so the first start after this migration rebuilds
 * every derived table from the raw events (the log states how long it took;
 * statistics answer 503 stats_warming_up meanwhile).
 */
export const compactEventIndexes: Migration = {
  version: 8,
  name: 'events: compact integer keys in the dedup and time indexes',
  sql: `
    DROP TABLE event_dedup;
    DROP TABLE event_time_index;
    DELETE FROM event_checkpoint;

    -- A small number per project for the index tables, handed out by the writer in order of first event.
    CREATE TABLE event_projects (
      project_no INTEGER PRIMARY KEY,
      project_id TEXT NOT NULL UNIQUE
    ) STRICT;

    -- Deduplication keys: project, client time, hash of the event id (src/events/derived/id-hash.ts), and the
    -- seq of the event, where its id is checked; inserted in key order once per checkpoint.
    CREATE TABLE event_dedup (
      project_no INTEGER NOT NULL,
      client_ts  INTEGER NOT NULL,
      id_hash    INTEGER NOT NULL,
      seq        INTEGER NOT NULL,
      PRIMARY KEY (project_no, client_ts, id_hash, seq)
    ) STRICT, WITHOUT ROWID;

    -- The export's index by event time, inserted in key order once per checkpoint.
    CREATE TABLE event_time_index (
      project_no INTEGER NOT NULL,
      ts         INTEGER NOT NULL,
      seq        INTEGER NOT NULL,
      PRIMARY KEY (project_no, ts, seq)
    ) STRICT, WITHOUT ROWID;
  `,
};
