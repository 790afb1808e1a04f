import type { Migration } from '../../migrations/migration.ts';

/** As SQLite's migration 1: ms timestamps are bigint. */
export const projectsAndKeys: Migration = {
  version: 1,
  name: 'projects and api keys',
  sql: `
    CREATE TABLE projects (
      id         text PRIMARY KEY,
      name       text NOT NULL,
      created_at bigint NOT NULL
    );

    -- Only the SHA-256 of a key is stored; prefix is the non-secret start shown in listings.
    CREATE TABLE api_keys (
      id         text PRIMARY KEY,
      project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      scope      text NOT NULL CHECK (scope IN ('sdk', 'secret')),
      prefix     text NOT NULL,
      hash       text NOT NULL UNIQUE,
      created_at bigint NOT NULL,
      revoked_at bigint
    );
    CREATE INDEX api_keys_by_project ON api_keys (project_id);
  `,
};
