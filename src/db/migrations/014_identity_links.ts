import type { Migration } from './migration.ts';

/**
 * Identity links by user: the sdk key may not link an anonymous id that
 * other ids are linked to (docs/revenue.md, "Who can link"), which
 * `identify` checks in its transaction.
 */
export const identityLinks: Migration = {
  version: 14,
  name: 'identity links by user',
  sql: `
    CREATE INDEX user_links_by_user ON user_links (project_id, user_id);
  `,
};
