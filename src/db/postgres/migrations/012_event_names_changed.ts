import type { Migration } from '../../migrations/migration.ts';

/**
 * The seq of the newest event commit that brought a name the events before
 * it had not (an event type, paywall, variant or audience of a project: what
 * the ingestion limits count, src/events/limits.ts). An instance
 * about to store events reads it under the events lock: when it is not
 * past the last event the instance has folded, the commits since brought
 * no name, the instance's own state counts every name there is, and its
 * admission is exact without reading those events first; they are folded
 * after the commit, outside the lock (src/events/writer/postgres/sink.ts).
 * It starts at the newest stored event, so that what was stored before
 * this step is read once under the lock.
 */
export const eventNamesChanged: Migration = {
  version: 12,
  name: 'event names changed',
  sql: `
    CREATE TABLE event_names_changed (
      id  integer PRIMARY KEY CHECK (id = 1),
      seq bigint NOT NULL
    );
    INSERT INTO event_names_changed (id, seq) SELECT 1, coalesce(max(seq), 0) FROM events;
  `,
};
