import type { Migration } from '../../migrations/migration.ts';
import { CONFIGURATION_TABLES } from './baseline-configuration.ts';
import { EVENT_TABLES } from './baseline-events.ts';
import { TEAM_TABLES } from './baseline-teams.ts';

/**
 * PostgreSQL's schema as of SQLite's migration 20, in one migration: the
 * first PostgreSQL migrations were squashed before any release, so no
 * database needs the steps between. A database records version 20, and
 * migrations after it are numbered and named as SQLite's. It differs from
 * SQLite's schema only where several instances need it to
 * (test/db/postgres-schema.postgres.test.ts lists each difference):
 *
 * - Ids that lists are ordered by take byte order here, as SQLite sorts,
 *   whatever the database's collation: `COLLATE "C"` on the column, so
 *   that no query has to say it.
 * - seq columns are identities: the order rows were numbered in, not the
 *   order of commits (two instances' transactions commit in either order;
 *   docs/operations/scale-out.md says what reading events in order takes).
 * - events keep their dedup and time indexes for good: only a unique index
 *   in PostgreSQL itself makes deduplication exact across instances (the
 *   same batch sent to two instances is stored once: the second insert
 *   meets the first's key, committed or not, and waits for it). SQLite's
 *   writer keeps both in tables it fills in bulk, beside its derived state;
 *   here the derived state is whole checkpoints (event_checkpoints).
 * - Every change to configuration (projects, keys, products, paywalls, their
 *   revisions) bumps a generation and announces it on `paywalld_config` as
 *   `<generation> <instance>` (../watch.ts): the instance is the session's
 *   `paywalld.instance`, which a serve process sets on its pool (../connection.ts),
 *   so that it skips its own changes. Statement-level triggers: a statement
 *   that changes many rows bumps once, one that changes none not at all, as
 *   SQLite's row-level triggers; transition tables, which tell the two apart,
 *   allow one event per trigger, hence three per table.
 * - Documents and store ids stay text, not jsonb: jsonb would reorder keys
 *   and drop duplicates, and a revision's document is served back exactly as
 *   it was stored.
 */
export const baseline: Migration = {
  version: 20,
  name: 'baseline: the schema of migrations 1 to 20',
  sql: CONFIGURATION_TABLES + EVENT_TABLES + TEAM_TABLES,
};
