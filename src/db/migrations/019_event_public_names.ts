import type { Migration } from './migration.ts';

/**
 * Names (event types, paywall ids, variant ids, audiences) that requests
 * without a secret key brought to a project although no paywall declares
 * them (docs/reference/events.md, "Names and their limits"): they count in a budget
 * of their own, bounded per day, and never in the team's. `counted` is 0
 * once an owner cleared them (GET and DELETE /api/event-names).
 */
export const eventPublicNames: Migration = {
  version: 19,
  name: 'event public names',
  sql: `
    CREATE TABLE event_public_names (
      project_id TEXT NOT NULL,
      kind       TEXT NOT NULL,
      scope      TEXT NOT NULL,
      name       TEXT NOT NULL,
      first_at   INTEGER NOT NULL,
      counted    INTEGER NOT NULL DEFAULT 1,
      PRIMARY KEY (project_id, kind, scope, name)
    ) STRICT, WITHOUT ROWID;
  `,
};
