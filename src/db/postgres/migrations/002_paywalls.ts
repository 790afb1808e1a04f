import type { Migration } from '../../migrations/migration.ts';

/**
 * As SQLite's migration 2. Documents and store ids stay text, not jsonb:
 * jsonb would reorder keys and drop duplicates, and a revision's document is
 * served back exactly as it was stored.
 */
export const paywalls: Migration = {
  version: 2,
  name: 'products, paywalls and paywall revisions',
  sql: `
    -- Products are never removed, only marked deleted: version then only ever
    -- grows, so an ETag (the version) can never come back to mean something else.
    CREATE TABLE products (
      project_id text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id         text NOT NULL,
      name       text NOT NULL,
      store_ids  text NOT NULL,
      version    bigint NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      deleted_at bigint,
      PRIMARY KEY (project_id, id)
    );

    -- Paywalls are archived, never removed; version counts every change (the ETag).
    CREATE TABLE paywalls (
      project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id              text NOT NULL,
      name            text NOT NULL,
      latest_revision bigint NOT NULL,
      live_revision   bigint,
      archived_at     bigint,
      version         bigint NOT NULL,
      created_at      bigint NOT NULL,
      updated_at      bigint NOT NULL,
      PRIMARY KEY (project_id, id)
    );

    -- Immutable: a revision's document is never rewritten; published_at records its last publication.
    CREATE TABLE paywall_revisions (
      project_id   text NOT NULL,
      paywall_id   text NOT NULL,
      revision     bigint NOT NULL,
      document     text NOT NULL,
      created_at   bigint NOT NULL,
      published_at bigint,
      PRIMARY KEY (project_id, paywall_id, revision),
      FOREIGN KEY (project_id, paywall_id) REFERENCES paywalls (project_id, id) ON DELETE CASCADE
    );
  `,
};
