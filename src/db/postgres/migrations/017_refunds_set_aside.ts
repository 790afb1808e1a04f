import type { Migration } from '../../migrations/migration.ts';

/** As SQLite's migration 17: the part of a refund that its purchases do not cover, kept aside with the reason. */
export const refundsSetAside: Migration = {
  version: 17,
  name: 'refunds set aside',
  sql: `
    ALTER TABLE purchases ADD COLUMN set_aside double precision NOT NULL DEFAULT 0;
    ALTER TABLE purchases ADD COLUMN set_aside_reason text;
  `,
};
