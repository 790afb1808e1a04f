import type { Migration } from './migration.ts';

/**
 * A phase started by a change of the split randomizes its users afresh: its
 * `seed_suffix` ('#<phase number>') is appended to the paywall's seed (the
 * document's `seed`, else the paywall id) when users are hashed. NULL: the
 * paywall's seed as it is (every phase before this migration, a first phase,
 * and a phase published with `"reseed": false` after one that had none).
 */
export const phaseSeeds: Migration = {
  version: 9,
  name: 'experiment phases: a seed suffix per phase',
  sql: `ALTER TABLE paywall_phases ADD COLUMN seed_suffix TEXT;`,
};
