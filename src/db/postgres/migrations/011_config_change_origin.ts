import type { Migration } from '../../migrations/migration.ts';

/**
 * The configuration notification (migration 4) names the instance that made
 * the change: its payload becomes `<generation> <instance>`, the instance
 * being the session's `paywalld.instance` setting, which a serve process
 * sets on its pool's connections (../connection.ts) and nothing else does
 * (the CLI, psql: empty). An instance has already updated its memory for
 * its own changes, and skips their notification (../watch.ts), as SQLite's
 * data_version skips a connection's own commits.
 */
export const configChangeOrigin: Migration = {
  version: 11,
  name: 'configuration change origin',
  sql: `
    CREATE OR REPLACE FUNCTION paywalld_bump_config_generation() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next bigint;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM changed) THEN
        RETURN NULL;
      END IF;
      UPDATE config_generation SET generation = generation + 1 WHERE id = 1 RETURNING generation INTO next;
      PERFORM pg_notify('paywalld_config', next::text || ' ' || coalesce(current_setting('paywalld.instance', true), ''));
      RETURN NULL;
    END;
    $$;
  `,
};
