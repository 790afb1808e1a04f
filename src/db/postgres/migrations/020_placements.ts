import type { Migration } from '../../migrations/migration.ts';

const EVENTS: [event: string, rows: string][] = [
  ['insert', 'NEW'],
  ['update', 'NEW'],
  ['delete', 'OLD'],
];

/** Statement-level triggers as migration 4's: a placement's change is configuration, announced on paywalld_config. */
const triggers = ['placements', 'placement_revisions']
  .flatMap((table) =>
    EVENTS.map(
      ([event, rows]) => `CREATE TRIGGER ${table}_${event}_bumps_generation AFTER ${event.toUpperCase()} ON ${table}
      REFERENCING ${rows} TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION paywalld_bump_config_generation();`,
    ),
  )
  .join('\n');

/** As SQLite's migration 20: placements, their revisions, and the placement an event names. */
export const placements: Migration = {
  version: 20,
  name: 'placements',
  sql: `
    CREATE TABLE placements (
      project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      id              text NOT NULL,
      name            text NOT NULL,
      latest_revision bigint NOT NULL,
      archived_at     bigint,
      version         bigint NOT NULL,
      created_at      bigint NOT NULL,
      updated_at      bigint NOT NULL,
      PRIMARY KEY (project_id, id)
    );

    CREATE TABLE placement_revisions (
      project_id   text NOT NULL,
      placement_id text NOT NULL,
      revision     bigint NOT NULL,
      document     text NOT NULL,
      created_at   bigint NOT NULL,
      created_by   text NOT NULL,
      PRIMARY KEY (project_id, placement_id, revision),
      FOREIGN KEY (project_id, placement_id) REFERENCES placements (project_id, id) ON DELETE CASCADE
    );

    ${triggers}

    ALTER TABLE events ADD COLUMN placement text;
  `,
};
