import type { Migration } from '../../migrations/migration.ts';

/** As SQLite's migration 14: identity links by user, for the sdk key's rule. */
export const identityLinks: Migration = {
  version: 14,
  name: 'identity links by user',
  sql: `
    CREATE INDEX user_links_by_user ON user_links (project_id, user_id);
  `,
};
