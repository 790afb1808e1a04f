/**
 * The backends the shared store suites (test/stores/) run against: each
 * suite loops over them and tests a store through its interface only, so
 * every backend keeps the same contract (CONTRIBUTING.md, "The storage seam").
 */
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPool, type Sql } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { openPostgresStorage } from '../../src/storage/postgres.ts';
import { openSqliteStorage } from '../../src/storage/sqlite.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { POSTGRES, postgresDatabase } from './postgres.ts';
import { needs } from './requirements.ts';
import { tempDir } from './temp.ts';

export interface StorageBackend {
  name: string;
  /** node:test options: skipped, saying why, where the backend's server is not installed (test/helpers/requirements.ts). */
  requires: { skip: string | false };
  /** A fresh, migrated, empty database's storage, closed when the test ends. */
  open(t: TestContext): Promise<Storage>;
  /**
   * Makes every insert into `table` fail inside the database (as a full disk
   * or a broken constraint would), so that a suite can check that a store
   * method's writes are all or nothing; resolves to the undo.
   */
  refuseInserts(storage: Storage, table: string): Promise<() => Promise<void>>;
  /** Runs a statement on the storage's own database, as an operator's SQL would (what the stores never do). */
  run(storage: Storage, statement: string): Promise<void>;
}

const sqliteConnections = new WeakMap<Storage, Database>();

const sqlite: StorageBackend = {
  name: 'sqlite',
  requires: { skip: false },
  async open(t) {
    const db = openDatabase(path.join(tempDir(t), 'stores.db'));
    migrate(db);
    const storage = openSqliteStorage(db);
    sqliteConnections.set(storage, db);
    t.after(() => storage.close());
    return storage;
  },
  async refuseInserts(storage, table) {
    const db = sqliteConnections.get(storage)!;
    const trigger = `refuse_${table}`;
    db.exec(`CREATE TEMP TRIGGER ${trigger} BEFORE INSERT ON main.${table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    return async () => {
      db.exec(`DROP TRIGGER temp.${trigger}`);
    };
  },
  async run(storage, statement) {
    sqliteConnections.get(storage)!.exec(statement);
  },
};

const postgresPools = new WeakMap<Storage, Sql>();

/** A fresh database on this test process's PostgreSQL cluster (test/helpers/postgres.ts). */
const postgres: StorageBackend = {
  name: 'postgres',
  requires: needs(POSTGRES),
  async open(t) {
    const sql = openPool((await postgresDatabase(t)).url);
    await migratePostgres(sql);
    const storage = openPostgresStorage(sql);
    postgresPools.set(storage, sql);
    t.after(() => storage.close());
    return storage;
  },
  async refuseInserts(storage, table) {
    const sql = postgresPools.get(storage)!;
    const trigger = `refuse_${table}`;
    await sql.unsafe(`CREATE OR REPLACE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
    await sql.unsafe(`CREATE TRIGGER ${trigger} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_insert()`);
    return async () => {
      await sql.unsafe(`DROP TRIGGER ${trigger} ON ${table}`);
    };
  },
  async run(storage, statement) {
    await postgresPools.get(storage)!.unsafe(statement);
  },
};

export const STORAGE_BACKENDS: readonly StorageBackend[] = [sqlite, postgres];

/** One test per backend, named after it, on a fresh storage. */
export function storeTest(name: string, body: (storage: Storage, backend: StorageBackend, t: TestContext) => Promise<void>): void {
  for (const backend of STORAGE_BACKENDS) {
    test(`${backend.name}: ${name}`, backend.requires, async (t) => body(await backend.open(t), backend, t));
  }
}
