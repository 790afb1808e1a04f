import type { Migration } from '../../migrations/migration.ts';

/** As SQLite's migration 18: when each paywall began serving its id (created, or published again after archiving). */
export const keylessOwner: Migration = {
  version: 18,
  name: 'keyless owner',
  sql: `
    ALTER TABLE paywalls ADD COLUMN serving_since bigint NOT NULL DEFAULT 0;
    UPDATE paywalls SET serving_since = created_at;
  `,
};
