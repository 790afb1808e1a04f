import type { Migration } from './migration.ts';

export const projectsAndKeys: Migration = {
  version: 1,
  name: 'projects and api keys',
  sql: `
    CREATE TABLE projects (
      id         TEXT PRIMARY KEY,
      name       TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT;

    -- Only the SHA-256 of a key is stored; prefix is the non-secret start shown in listings.
    CREATE TABLE api_keys (
      id         TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      scope      TEXT NOT NULL CHECK (scope IN ('sdk', 'secret')),
      prefix     TEXT NOT NULL,
      hash       TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      revoked_at INTEGER
    ) STRICT;
    CREATE INDEX api_keys_by_project ON api_keys (project_id);
  `,
};
