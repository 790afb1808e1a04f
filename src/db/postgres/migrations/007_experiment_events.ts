import type { Migration } from '../../migrations/migration.ts';

/**
 * The experiment columns of events, as SQLite's migration 7. Its experiment
 * log tables are the SQLite writer's derived state (see migration 5).
 */
export const experimentEvents: Migration = {
  version: 7,
  name: 'experiments: audience and revenue of events, experiment logs',
  sql: `
    ALTER TABLE events ADD COLUMN audience text;
    ALTER TABLE events ADD COLUMN revenue double precision;
    ALTER TABLE events ADD COLUMN currency text;
  `,
};
