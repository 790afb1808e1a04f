import type { Migration } from '../../migrations/migration.ts';

/** As SQLite's migration 19: the names requests without a secret key brought that no paywall declares. */
export const eventPublicNames: Migration = {
  version: 19,
  name: 'event public names',
  sql: `
    CREATE TABLE event_public_names (
      project_id text NOT NULL,
      kind       text NOT NULL,
      scope      text NOT NULL,
      name       text NOT NULL,
      first_at   bigint NOT NULL,
      counted    integer NOT NULL DEFAULT 1,
      PRIMARY KEY (project_id, kind, scope, name)
    );
  `,
};
