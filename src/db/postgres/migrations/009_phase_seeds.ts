import type { Migration } from '../../migrations/migration.ts';

/** As SQLite's migration 9: the seed suffix of a phase that randomizes its users afresh. */
export const phaseSeeds: Migration = {
  version: 9,
  name: 'experiment phases: a seed suffix per phase',
  sql: `ALTER TABLE paywall_phases ADD COLUMN seed_suffix text;`,
};
