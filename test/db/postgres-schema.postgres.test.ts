/**
 * The two backends' schemas correspond after every migration: the same
 * tables with the same columns, types, nullability and primary keys, and
 * the same named indexes, less the differences listed here, each with its
 * reason, and byte order on the ids lists are ordered by. A column added on
 * one side only fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

/** Tables of the SQLite event writer's derived state and checkpoints (SQLite migrations 5, 7, 8): PostgreSQL's baseline has whole checkpoints instead. */
const SQLITE_ONLY_TABLES = [
  'event_checkpoint',
  'event_day_sets',
  'event_dedup',
  'event_experiment_chunks',
  'event_experiment_segments',
  'event_projects',
  'event_time_index',
  'event_users',
];
/**
 * The derived state's shared checkpoints, one value each (PostgreSQL's baseline; SQLite keeps its checkpoint in the tables above),
 * and the seq of the newest event commit with a new name (migration 12), which only several writers need.
 */
const POSTGRES_ONLY_TABLES = ['event_checkpoints', 'event_names_changed'];
/** Deduplication and the export's time index as indexes of events (PostgreSQL's baseline): several instances insert into one table. */
const POSTGRES_ONLY_INDEXES = ['events_by_time', 'events_dedup'];
/** SQLite's declared types and what each is in PostgreSQL: INTEGER is bigint (ms timestamps, seqs), or integer for small keys. */
const TYPES: Record<string, string[]> = {
  INTEGER: ['bigint', 'integer'],
  TEXT: ['text'],
  REAL: ['double precision'],
  BLOB: ['bytea'],
};
/** SQLite's INTEGER PRIMARY KEY (the rowid, numbered on insert) is an identity column. */
const IDENTITY_COLUMNS = ['audit_log.seq', 'events.seq', 'purchases.seq', 'webhook_deliveries.seq'];
/** Creation sequences that SQLite's one writer numbers in the insert itself (migration 13): identity columns in PostgreSQL. */
const NUMBERED_ON_INSERT = ['api_keys.seq', 'projects.seq'];
/**
 * Ids that lists are ordered by, and the columns that join them: byte order whatever the database's collation, as SQLite's
 * BINARY, set once on the column (COLLATE "C", PostgreSQL's baseline) so that no query has to say it.
 */
const BYTE_ORDER_COLUMNS = [
  'event_public_names.kind',
  'event_public_names.scope',
  'event_public_names.name',
  'memberships.user_id',
  'paywall_phases.paywall_id',
  'paywall_revisions.paywall_id',
  'paywalls.id',
  'placement_revisions.placement_id',
  'placements.id',
  'products.id',
  'sessions.user_id',
  'users.id',
  'webhook_deliveries.webhook_id',
  'webhooks.id',
];
/** INTEGER PRIMARY KEYs whose value the code sets, never SQLite's numbering: plain keys in PostgreSQL. */
const CHOSEN_KEYS = ['config_generation.id', 'schema_migrations.version'];

interface Column {
  type: string;
  notNull: boolean;
}
interface Table {
  columns: Record<string, Column>;
  primaryKey: string[];
}

function sqliteSchema(): { tables: Record<string, Table>; indexes: string[]; identities: string[] } {
  const db = openDatabase(':memory:');
  try {
    migrate(db);
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const tables: Record<string, Table> = {};
    const identities: string[] = [];
    for (const name of names) {
      const info = db.prepare(`SELECT name, type, "notnull", pk FROM pragma_table_info(?)`).all(name) as {
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }[];
      const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      // A primary key column is never NULL in PostgreSQL; SQLite's rowid tables let a text key be NULL unless declared otherwise.
      tables[name] = {
        columns: Object.fromEntries(info.map((c) => [c.name, { type: c.type, notNull: c.notnull === 1 || c.pk > 0 }])),
        primaryKey: primaryKey.map((c) => c.name),
      };
      if (primaryKey.length === 1 && primaryKey[0]!.type === 'INTEGER') identities.push(`${name}.${primaryKey[0]!.name}`);
    }
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all() as string[];
    return { tables, indexes, identities };
  } finally {
    db.close();
  }
}

test('the tables, columns, keys and indexes of both backends correspond, less the differences listed', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  await migratePostgres(sql);
  const columns = await sql<
    { table_name: string; column_name: string; data_type: string; is_nullable: string; is_identity: string; collation_name: string | null }[]
  >`
    SELECT table_name, column_name, data_type, is_nullable, is_identity, collation_name FROM information_schema.columns
    WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`;
  const keys = await sql<{ table_name: string; column_name: string }[]>`
    SELECT k.table_name, k.column_name FROM information_schema.table_constraints c
    JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
    WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = current_schema() ORDER BY k.table_name, k.ordinal_position`;
  // Indexes created as such, not those behind a PRIMARY KEY or UNIQUE constraint (SQLite lists those without sql).
  const pgIndexes = await sql<{ name: string }[]>`
    SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()
    AND indexname NOT IN (SELECT conname FROM pg_constraint) ORDER BY indexname`;

  const sqlite = sqliteSchema();
  const postgresTables = [...new Set(columns.map((c) => c.table_name))].sort().filter((name) => !POSTGRES_ONLY_TABLES.includes(name));
  assert.deepEqual(
    postgresTables,
    Object.keys(sqlite.tables).filter((name) => !SQLITE_ONLY_TABLES.includes(name)),
  );
  for (const name of SQLITE_ONLY_TABLES) assert.ok(sqlite.tables[name], `${name} is listed as SQLite's only, and SQLite has no such table`);

  for (const table of postgresTables) {
    const expected = sqlite.tables[table]!;
    const actual = columns.filter((c) => c.table_name === table);
    assert.deepEqual(
      actual.map((c) => c.column_name),
      Object.keys(expected.columns),
      `${table}: the same columns in the same order`,
    );
    for (const column of actual) {
      const sqliteColumn = expected.columns[column.column_name]!;
      assert.ok(TYPES[sqliteColumn.type]?.includes(column.data_type), `${table}.${column.column_name}: ${column.data_type} for SQLite's ${sqliteColumn.type}`);
      assert.equal(column.is_nullable === 'NO', sqliteColumn.notNull, `${table}.${column.column_name}: NOT NULL alike`);
    }
    assert.deepEqual(
      keys.filter((k) => k.table_name === table).map((k) => k.column_name),
      expected.primaryKey,
      `${table}: the same primary key`,
    );
  }

  const identities = columns.filter((c) => c.is_identity === 'YES').map((c) => `${c.table_name}.${c.column_name}`);
  assert.deepEqual(identities, [...IDENTITY_COLUMNS, ...NUMBERED_ON_INSERT].sort());
  assert.deepEqual(
    sqlite.identities.filter((column) => !CHOSEN_KEYS.includes(column) && !SQLITE_ONLY_TABLES.includes(column.split('.')[0]!)),
    IDENTITY_COLUMNS,
  );

  assert.deepEqual(
    columns.filter((c) => c.collation_name !== null).map((c) => `${c.table_name}.${c.column_name} ${c.collation_name}`),
    BYTE_ORDER_COLUMNS.map((column) => `${column} C`),
  );

  assert.deepEqual(
    pgIndexes.map((i) => i.name),
    [...sqlite.indexes, ...POSTGRES_ONLY_INDEXES].sort(),
  );
});
