import type { Migration } from '../../migrations/migration.ts';

/**
 * Experiment phases, as SQLite's migration 6, without its backfill: that
 * gave a phase to paywalls live before phases existed, and no PostgreSQL
 * database predates them (a SQLite database moved over brings its phases).
 */
export const paywallPhases: Migration = {
  version: 6,
  name: 'experiment phases of paywalls',
  sql: `
    CREATE TABLE paywall_phases (
      project_id text NOT NULL,
      paywall_id text NOT NULL,
      number     bigint NOT NULL,
      revision   bigint NOT NULL,
      started_at bigint NOT NULL,
      ended_at   bigint,
      design     text NOT NULL,
      PRIMARY KEY (project_id, paywall_id, number),
      FOREIGN KEY (project_id, paywall_id) REFERENCES paywalls (project_id, id) ON DELETE CASCADE
    );
  `,
};
