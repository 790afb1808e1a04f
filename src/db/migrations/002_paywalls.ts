import type { Migration } from './migration.ts';

export const paywalls: Migration = {
  version: 2,
  name: 'products, paywalls and paywall revisions',
  sql: `
    -- Products are never removed, only marked deleted: version then only ever
    -- grows, so an ETag (the version) can never come back to mean something else.
    CREATE TABLE products (
      project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id         TEXT NOT NULL,
      name       TEXT NOT NULL,
      store_ids  TEXT NOT NULL,
      version    INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      deleted_at INTEGER,
      PRIMARY KEY (project_id, id)
    ) STRICT, WITHOUT ROWID;

    -- Paywalls are archived, never removed; version counts every change (the ETag).
    CREATE TABLE paywalls (
      project_id      TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id              TEXT NOT NULL,
      name            TEXT NOT NULL,
      latest_revision INTEGER NOT NULL,
      live_revision   INTEGER,
      archived_at     INTEGER,
      version         INTEGER NOT NULL,
      created_at      INTEGER NOT NULL,
      updated_at      INTEGER NOT NULL,
      PRIMARY KEY (project_id, id)
    ) STRICT, WITHOUT ROWID;

    -- Immutable: a revision's document is never rewritten; published_at records its last publication.
    CREATE TABLE paywall_revisions (
      project_id   TEXT NOT NULL,
      paywall_id   TEXT NOT NULL,
      revision     INTEGER NOT NULL,
      document     TEXT NOT NULL,
      created_at   INTEGER NOT NULL,
      published_at INTEGER,
      PRIMARY KEY (project_id, paywall_id, revision),
      FOREIGN KEY (project_id, paywall_id) REFERENCES paywalls (project_id, id) ON DELETE CASCADE
    ) STRICT;
  `,
};
