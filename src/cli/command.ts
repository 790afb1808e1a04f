import fs from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { dbPath, SETTINGS } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openSqliteStorage } from '../db/sqlite-storage.ts';
import type { Storage } from '../db/storage.ts';

export interface Command {
  name: string;
  summary: string;
  /** Full --help text. */
  help: string;
  run(argv: string[]): Promise<number> | number;
}

/** Wrong flags or arguments: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {}

export const DB_OPTION = { db: { type: 'string' } } as const;
const { db } = SETTINGS;
export const DB_HELP = `  --db FILE     the SQLite database file (env ${db.env}, else ${db.alsoEnv}, default ${db.default})`;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The database file a command works on, which must exist: a mistyped --db
 * would otherwise create an empty database and answer as if it were the real
 * one (no projects, no keys). Only serve, migrate and projects create make one.
 */
export function existingDbPath(dbFlag: string | undefined): string {
  return requireExistingDatabase(dbPath(dbFlag));
}

/** `file`, when it exists; a usage error (exit 2) saying so when it does not. */
export function requireExistingDatabase(file: string): string {
  if (file !== ':memory:' && !fs.existsSync(file)) {
    throw new UsageError(`database ${file} does not exist; check --db (or PAYWALLD_DB), or create it with "paywalld migrate --db ${file}"`);
  }
  return file;
}

/**
 * Opens the storage a command works on, bringing the database's schema up to
 * date first. It must exist unless `create` (the commands that may start a database).
 */
export function openForCommand(dbFlag: string | undefined, options: { create?: boolean } = {}): Storage {
  const db = openDatabase(options.create ? dbPath(dbFlag) : existingDbPath(dbFlag));
  try {
    migrate(db);
    return openSqliteStorage(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}
