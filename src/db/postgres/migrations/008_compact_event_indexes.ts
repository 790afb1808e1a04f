import type { Migration } from '../../migrations/migration.ts';

/**
 * Nothing in PostgreSQL: SQLite's migration 8 compacted the keys of the
 * writer's index tables, which PostgreSQL does not have (see migration 5).
 */
export const compactEventIndexes: Migration = {
  version: 8,
  name: 'events: compact integer keys in the dedup and time indexes',
  sql: '',
};
