import type { Migration } from './migration.ts';

/**
 * PostgreSQL's configuration notifications name the instance that made the
 * change (postgres/migrations/011), so that an instance does not reload
 * what it changed itself. Nothing to do on SQLite, where the watch counts
 * the server's own changes with a TEMP trigger (../watch.ts); the step
 * exists so that both backends number alike.
 */
export const configChangeOrigin: Migration = {
  version: 11,
  name: 'configuration change origin',
  sql: '',
};
