import type { Migration } from '../../migrations/migration.ts';

/**
 * Nothing in PostgreSQL. SQLite's migration 5 moved the dedup and time
 * indexes into tables its one writer thread fills in bulk, with the derived
 * state (daily counts, user sets) checkpointed beside them. PostgreSQL keeps
 * the indexes in the events table (migration 3); where the derived state of
 * several instances lives is docs/scale-out.md's, and comes with a migration
 * of its own. The version is recorded so that both backends count alike.
 */
export const eventDerivedState: Migration = {
  version: 5,
  name: 'events: derived state checkpointed in bulk',
  sql: '',
};
