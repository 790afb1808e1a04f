import type { Migration } from './migration.ts';

/**
 * Identity links by user and in order. The sdk key may not link an
 * anonymous id that other ids are linked to (docs/guide/revenue.md, "Who can
 * link"), and a user has at most so many links, which `identify` checks in
 * its transaction. `seq` numbers each
 * project's links in the order they were stored, so that the results'
 * reader (src/identity/link-feed.ts) reads the links after the last one it
 * read, on every backend alike. Links already stored are numbered by time,
 * then anonymous id; an insert takes the project's max(seq) + 1 inside its
 * write transaction, which SQLite's one writer serialises. Links are never
 * deleted, so a project's newest seq is its count of links.
 */
export const identityLinks: Migration = {
  version: 15,
  name: 'identity links by user and in order',
  sql: `
    CREATE INDEX user_links_by_user ON user_links (project_id, user_id);

    ALTER TABLE user_links ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    UPDATE user_links SET seq = ordered.n
      FROM (SELECT project_id, anonymous_id, row_number() OVER (PARTITION BY project_id ORDER BY linked_at, anonymous_id) AS n FROM user_links) AS ordered
      WHERE ordered.project_id = user_links.project_id AND ordered.anonymous_id = user_links.anonymous_id;
    CREATE UNIQUE INDEX user_links_by_seq ON user_links (project_id, seq);
  `,
};
