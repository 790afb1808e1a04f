import type { Migration } from './migration.ts';

/**
 * Raw events and their daily roll-ups. Every index here is keyed so that new
 * rows land at the right-hand edge of its B-tree (time first, or insertion
 * order), never on a random page: see docs/internals/events.md, "Storage".
 *
 * No foreign keys: project ids come from the key registry or from paywall
 * ownership, and a check per event would cost a lookup on the hot path.
 */
export const events: Migration = {
  version: 3,
  name: 'events and daily roll-ups',
  sql: `
    -- seq is the rowid: insertion order, so the table itself only ever appends,
    -- and retention deletes from its start.
    -- ts is the event time in ms after the clock-skew correction; client_ts is
    -- the time as the client sent it (in ms) and the part of the dedup key.
    CREATE TABLE events (
      seq         INTEGER PRIMARY KEY,
      project_id  TEXT NOT NULL,
      paywall_id  TEXT NOT NULL,
      type        TEXT NOT NULL,
      ts          INTEGER NOT NULL,
      client_ts   INTEGER NOT NULL,
      sent_at     INTEGER,
      received_at INTEGER NOT NULL,
      event_id    TEXT,
      user_id     TEXT,
      variant_id  TEXT,
      product_id  TEXT,
      properties  TEXT
    ) STRICT;

    -- Deduplication: a retry carries the same id and the same client time, and
    -- keys that start with the time keep inserts local (ids are random).
    CREATE UNIQUE INDEX events_dedup ON events (project_id, client_ts, event_id) WHERE event_id IS NOT NULL;

    -- Export by time range.
    CREATE INDEX events_by_time ON events (project_id, ts);

    -- Count of each event type per paywall, UTC day (days since the epoch) and
    -- variant ('unknown' when none is known), updated in the transaction of the inserts.
    CREATE TABLE event_daily_counts (
      project_id TEXT NOT NULL,
      paywall_id TEXT NOT NULL,
      day        INTEGER NOT NULL,
      variant_id TEXT NOT NULL,
      type       TEXT NOT NULL,
      count      INTEGER NOT NULL,
      PRIMARY KEY (project_id, paywall_id, day, variant_id, type)
    ) STRICT, WITHOUT ROWID;

    -- The set of users seen per paywall, day and variant: distinct users over a
    -- range are counted from it (a sum of daily uniques would count a returning
    -- user once per day).
    CREATE TABLE event_daily_users (
      project_id TEXT NOT NULL,
      paywall_id TEXT NOT NULL,
      day        INTEGER NOT NULL,
      variant_id TEXT NOT NULL,
      user_id    TEXT NOT NULL,
      PRIMARY KEY (project_id, paywall_id, day, variant_id, user_id)
    ) STRICT, WITHOUT ROWID;
  `,
};
