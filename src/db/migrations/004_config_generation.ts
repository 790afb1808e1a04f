import type { Migration } from './migration.ts';

/**
 * A counter that every change to configuration (projects, keys, products,
 * paywalls) bumps through triggers. The server reloads its in-memory views
 * when another connection commits; event ingestion commits many times a
 * second from its own connection, and without this counter each of those
 * commits looked like a configuration change (reloading keys and recompiling
 * paywalls up to four times a second under load).
 */
const TABLES = ['projects', 'api_keys', 'products', 'paywalls', 'paywall_revisions'];

const triggers = TABLES.flatMap((table) =>
  ['INSERT', 'UPDATE', 'DELETE'].map(
    (op) => `CREATE TRIGGER ${table}_${op.toLowerCase()}_bumps_generation AFTER ${op} ON ${table}
      BEGIN UPDATE config_generation SET generation = generation + 1; END;`,
  ),
).join('\n');

export const configGeneration: Migration = {
  version: 4,
  name: 'configuration generation counter',
  sql: `
    CREATE TABLE config_generation (
      id         INTEGER PRIMARY KEY CHECK (id = 1),
      generation INTEGER NOT NULL
    ) STRICT;
    INSERT INTO config_generation (id, generation) VALUES (1, 0);
    ${triggers}
  `,
};
