import type { Migration } from '../../migrations/migration.ts';

/**
 * Every change to configuration (projects, keys, products, paywalls, their
 * revisions) bumps a generation, as in SQLite's migration 4, and announces
 * it on the channel `paywalld_config` with the generation as payload:
 * NOTIFY reaches every instance listening when the change commits, and the
 * counter is what an instance compares on its periodic check, for the
 * notifications it missed while its listening connection was down.
 *
 * Statement-level triggers: a statement that changes many rows bumps once,
 * and one that changes none (an UPDATE whose WHERE matched nothing) not at
 * all, as SQLite's row-level triggers. Transition tables, which tell the
 * two apart, allow one event per trigger: three per table. The counter's
 * one row serializes configuration writes, which are rare; event ingestion
 * touches none of these tables.
 */
const TABLES = ['projects', 'api_keys', 'products', 'paywalls', 'paywall_revisions'];
const EVENTS: [event: string, rows: string][] = [
  ['insert', 'NEW'],
  ['update', 'NEW'],
  ['delete', 'OLD'],
];

const triggers = TABLES.flatMap((table) =>
  EVENTS.map(
    ([event, rows]) => `CREATE TRIGGER ${table}_${event}_bumps_generation AFTER ${event.toUpperCase()} ON ${table}
      REFERENCING ${rows} TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION paywalld_bump_config_generation();`,
  ),
).join('\n');

export const configGeneration: Migration = {
  version: 4,
  name: 'configuration generation counter',
  sql: `
    CREATE TABLE config_generation (
      id         integer PRIMARY KEY CHECK (id = 1),
      generation bigint NOT NULL
    );
    INSERT INTO config_generation (id, generation) VALUES (1, 0);

    CREATE FUNCTION paywalld_bump_config_generation() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next bigint;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM changed) THEN
        RETURN NULL;
      END IF;
      UPDATE config_generation SET generation = generation + 1 WHERE id = 1 RETURNING generation INTO next;
      PERFORM pg_notify('paywalld_config', next::text);
      RETURN NULL;
    END;
    $$;
    ${triggers}
  `,
};
