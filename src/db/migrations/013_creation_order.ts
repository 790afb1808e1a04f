import type { Migration } from './migration.ts';

/**
 * A creation sequence for the lists that promise "oldest first" (projects,
 * keys): `created_at` is in milliseconds and ids are random, so two rows made
 * in one millisecond had no order of their own. Rows already stored are
 * numbered in the order they were listed before (created_at, then id).
 * Inserts take max(seq) + 1 inside their write transaction, which SQLite's
 * one writer serialises.
 */
export const creationOrder: Migration = {
  version: 13,
  name: 'creation order',
  sql: `
    ALTER TABLE projects ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    UPDATE projects SET seq = ordered.n
      FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM projects) AS ordered
      WHERE ordered.id = projects.id;
    CREATE UNIQUE INDEX projects_by_seq ON projects (seq);

    ALTER TABLE api_keys ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    UPDATE api_keys SET seq = ordered.n
      FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM api_keys) AS ordered
      WHERE ordered.id = api_keys.id;
    CREATE UNIQUE INDEX api_keys_by_seq ON api_keys (seq);
  `,
};
