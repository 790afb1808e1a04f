import type { Migration } from '../../migrations/migration.ts';

/**
 * As SQLite's migration 15: identity links by user, for the sdk key's rule
 * and the limit per user, and numbered in each project's order of storage.
 * Links already stored are numbered by time, then anonymous id in byte
 * order. An insert takes the project's max(seq) + 1 while it holds the
 * purchases' advisory lock, which every transaction that links holds, so
 * that no two take one number and seq order is commit order.
 */
export const identityLinks: Migration = {
  version: 15,
  name: 'identity links by user and in order',
  sql: `
    CREATE INDEX user_links_by_user ON user_links (project_id, user_id);

    ALTER TABLE user_links ADD COLUMN seq bigint;
    UPDATE user_links SET seq = ordered.n
      FROM (SELECT project_id, anonymous_id,
              row_number() OVER (PARTITION BY project_id ORDER BY linked_at, anonymous_id COLLATE "C") AS n FROM user_links) AS ordered
      WHERE ordered.project_id = user_links.project_id AND ordered.anonymous_id = user_links.anonymous_id;
    ALTER TABLE user_links ALTER COLUMN seq SET NOT NULL;
    CREATE UNIQUE INDEX user_links_by_seq ON user_links (project_id, seq);
  `,
};
