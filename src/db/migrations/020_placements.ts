import type { Migration } from './migration.ts';

/** Every change to a placement is configuration: it bumps the generation (migration 4), so that other processes reload. */
const triggers = ['placements', 'placement_revisions']
  .flatMap((table) =>
    ['INSERT', 'UPDATE', 'DELETE'].map(
      (op) => `CREATE TRIGGER ${table}_${op.toLowerCase()}_bumps_generation AFTER ${op} ON ${table}
      BEGIN UPDATE config_generation SET generation = generation + 1; END;`,
    ),
  )
  .join('\n');

/**
 * Placements (docs/guide/placements.md): where an app shows a paywall, as ordered
 * rules. Like paywalls, a placement is archived, never removed (its version,
 * the ETag, only grows), and every write appends an immutable revision; a
 * revision is served as soon as it is written (there is no draft).
 *
 * `events.placement` names the placement that showed the paywall an event is
 * about: what frequency caps and placement results count. Nullable without a
 * default: adding it rewrites nothing.
 */
export const placements: Migration = {
  version: 20,
  name: 'placements',
  sql: `
    CREATE TABLE placements (
      project_id      TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id              TEXT NOT NULL,
      name            TEXT NOT NULL,
      latest_revision INTEGER NOT NULL,
      archived_at     INTEGER,
      version         INTEGER NOT NULL,
      created_at      INTEGER NOT NULL,
      updated_at      INTEGER NOT NULL,
      PRIMARY KEY (project_id, id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE placement_revisions (
      project_id   TEXT NOT NULL,
      placement_id TEXT NOT NULL,
      revision     INTEGER NOT NULL,
      document     TEXT NOT NULL,
      created_at   INTEGER NOT NULL,
      created_by   TEXT NOT NULL,
      PRIMARY KEY (project_id, placement_id, revision),
      FOREIGN KEY (project_id, placement_id) REFERENCES placements (project_id, id) ON DELETE CASCADE
    ) STRICT;

    ${triggers}

    ALTER TABLE events ADD COLUMN placement TEXT;
  `,
};
