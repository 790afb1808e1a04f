import type { Migration } from './migration.ts';

/**
 * Event storage where ingestion is almost only the append of the raw event
 * (docs/internals/events.md, "Storage"). The events table loses its two secondary
 * indexes: events of concurrent clients arrive out of time order, so every
 * insert into an index keyed by time landed on a random page and wrote
 * kilobytes of WAL per event. What they did is now derived state, written
 * by the writer thread in sorted bulk every few seconds (a checkpoint), with
 * the `seq` of the last event it covers; the events after it are replayed at
 * start. The per-user-day roll-up table gives way to in-memory sets of user
 * ordinals, checkpointed as blobs. Everything but `events` can be deleted:
 * the server rebuilds it from the raw events on its next start.
 */
export const eventDerivedState: Migration = {
  version: 5,
  name: 'events: derived state checkpointed in bulk',
  sql: `
    DROP INDEX events_dedup;
    DROP INDEX events_by_time;
    DROP TABLE event_daily_counts;
    DROP TABLE event_daily_users;

    -- Up to which event (seq) the tables below are complete; no row: rebuild everything.
    CREATE TABLE event_checkpoint (
      id  INTEGER PRIMARY KEY CHECK (id = 1),
      seq INTEGER NOT NULL,
      at  INTEGER NOT NULL
    ) STRICT;

    -- Deduplication keys of the stored events with an id, inserted in key order once per checkpoint.
    CREATE TABLE event_dedup (
      project_id TEXT NOT NULL,
      client_ts  INTEGER NOT NULL,
      event_id   TEXT NOT NULL,
      PRIMARY KEY (project_id, client_ts, event_id)
    ) STRICT, WITHOUT ROWID;

    -- The export's index by event time, inserted in key order once per checkpoint.
    CREATE TABLE event_time_index (
      project_id TEXT NOT NULL,
      ts         INTEGER NOT NULL,
      seq        INTEGER NOT NULL,
      PRIMARY KEY (project_id, ts, seq)
    ) STRICT, WITHOUT ROWID;

    -- The users dictionary: each project's user ids by dense ordinal, in order of first appearance.
    CREATE TABLE event_users (
      project_id TEXT NOT NULL,
      ordinal    INTEGER NOT NULL,
      user_id    TEXT NOT NULL,
      PRIMARY KEY (project_id, ordinal)
    ) STRICT, WITHOUT ROWID;

    -- Per paywall, variant, UTC day and event type ('*': any type): the count of
    -- events and the set of user ordinals (src/events/derived/ordinal-set.ts).
    CREATE TABLE event_day_sets (
      project_id TEXT NOT NULL,
      paywall_id TEXT NOT NULL,
      variant_id TEXT NOT NULL,
      day        INTEGER NOT NULL,
      type       TEXT NOT NULL,
      count      INTEGER NOT NULL,
      users      BLOB NOT NULL,
      PRIMARY KEY (project_id, paywall_id, variant_id, day, type)
    ) STRICT;
  `,
};
