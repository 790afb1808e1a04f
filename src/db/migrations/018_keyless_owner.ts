import type { Migration } from './migration.ts';

/**
 * Which project keyless events of a paywall id go to when several projects
 * have a paywall of that id (docs/reference/events.md, "Keys and attribution"): the
 * one serving it the longest, so that no project takes another's keyless
 * events by creating or publishing a paywall of the same id later.
 * `serving_since` is when the paywall was created or, after it was archived,
 * published again.
 */
export const keylessOwner: Migration = {
  version: 18,
  name: 'keyless owner',
  sql: `
    ALTER TABLE paywalls ADD COLUMN serving_since INTEGER NOT NULL DEFAULT 0;
    UPDATE paywalls SET serving_since = created_at;
  `,
};
