import type { Migration } from './migration.ts';

/**
 * A refund counts only against what its purchases paid (docs/guide/revenue.md,
 * "Refunds"): the part of a refund record that does not is kept in
 * `set_aside`, with the reason in `set_aside_reason` (no_purchase,
 * before_purchase, over_paid), and `revenue` holds what counts. Records
 * stored before keep counting as they did.
 */
export const refundsSetAside: Migration = {
  version: 17,
  name: 'refunds set aside',
  sql: `
    ALTER TABLE purchases ADD COLUMN set_aside REAL NOT NULL DEFAULT 0;
    ALTER TABLE purchases ADD COLUMN set_aside_reason TEXT;
  `,
};
