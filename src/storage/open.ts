/**
 * The storage a CLI command works on, whichever the backend: a SQLite file
 * or a PostgreSQL database (docs/operations/scale-out.md, "Choosing PostgreSQL"), its
 * schema brought up to date first, as serve does at start.
 */
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { closePool, openPool } from '../db/postgres/connection.ts';
import { migratePostgres } from '../db/postgres/migrate.ts';
import type { DatabaseTarget } from '../db/target.ts';
import { openPostgresStorage } from './postgres.ts';
import { openSqliteStorage } from './sqlite.ts';
import type { Storage } from './storage.ts';

/** A command's store calls run one after another: two connections leave room for the few it overlaps. */
const COMMAND_POOL_SIZE = 2;

export async function openStorage(target: DatabaseTarget): Promise<Storage> {
  if (target.kind === 'postgres') {
    const sql = openPool(target.url, { size: COMMAND_POOL_SIZE, applicationName: 'paywalld cli' });
    try {
      await migratePostgres(sql);
      return openPostgresStorage(sql);
    } catch (error) {
      await closePool(sql);
      throw error;
    }
  }
  const db = openDatabase(target.file);
  try {
    migrate(db);
    return openSqliteStorage(db);
  } catch (error) {
    db.close();
    throw error;
  }
}
