import type { Migration } from './migration.ts';

/**
 * Experiments (docs/reference/experiments.md): events carry the segment they were
 * randomized in (`audience`) and, on purchase_complete, `revenue` in
 * `currency`. New columns are NULL for the events stored before them: they
 * belong to the default split and carry no revenue.
 *
 * The experiment logs are derived state like event_day_sets: per paywall and
 * segment, the exposures (user ordinal, time, variant) and the purchases
 * (user ordinal, time, revenue, currency) in order of storage, checkpointed
 * in chunks of a fixed number of entries so that a checkpoint rewrites only
 * the chunks that grew. The raw events rebuild them when deleted.
 */
export const experimentEvents: Migration = {
  version: 7,
  name: 'experiments: audience and revenue of events, experiment logs',
  sql: `
    ALTER TABLE events ADD COLUMN audience TEXT;
    ALTER TABLE events ADD COLUMN revenue REAL;
    ALTER TABLE events ADD COLUMN currency TEXT;

    -- One row per paywall and segment ('' is the default split): the names its logs' codes stand for.
    CREATE TABLE event_experiment_segments (
      project_id TEXT NOT NULL,
      paywall_id TEXT NOT NULL,
      audience   TEXT NOT NULL,
      variants   TEXT NOT NULL,
      currencies TEXT NOT NULL,
      PRIMARY KEY (project_id, paywall_id, audience)
    ) STRICT;

    -- Chunk n of a segment's log ('exposures' or 'purchases'): entries n·CHUNK to (n+1)·CHUNK − 1, as packed columns.
    CREATE TABLE event_experiment_chunks (
      project_id TEXT NOT NULL,
      paywall_id TEXT NOT NULL,
      audience   TEXT NOT NULL,
      log        TEXT NOT NULL,
      chunk      INTEGER NOT NULL,
      entries    INTEGER NOT NULL,
      data       BLOB NOT NULL,
      PRIMARY KEY (project_id, paywall_id, audience, log, chunk)
    ) STRICT;
  `,
};
