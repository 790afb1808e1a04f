import type { Migration } from './migration.ts';

/**
 * PostgreSQL keeps the seq of the newest event commit that brought a new
 * name (postgres/migrations/012), so that instances admit events without
 * reading each other's first. Nothing to do on SQLite, where one writer
 * thread stores every event; the step exists so that both backends number
 * alike.
 */
export const eventNamesChanged: Migration = {
  version: 12,
  name: 'event names changed',
  sql: '',
};
