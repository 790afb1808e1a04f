import fs from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { databaseTarget, SETTINGS } from '../config.ts';
import { openStorage } from '../storage/open.ts';
import type { Storage } from '../storage/storage.ts';

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
/** For the commands that take PostgreSQL too (docs/operations/scale-out.md, "Choosing PostgreSQL"). */
export const DB_OR_URL_HELP = `  --db FILE|URL the SQLite database file, or a postgres:// URL (env ${db.env},
                else ${db.alsoEnv}, default ${db.default})`;

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `file`, when it exists; a usage error (exit 2) saying so when it does not. */
export function requireExistingDatabase(file: string): string {
  if (file !== ':memory:' && !fs.existsSync(file)) {
    throw new UsageError(`database ${file} does not exist; check --db (or PAYWALLD_DB), or create it with "paywalld migrate --db ${file}"`);
  }
  return file;
}

/**
 * Opens the storage a command works on (a SQLite file or PostgreSQL),
 * bringing its schema up to date first. A file must exist unless `create`
 * (serve, migrate and projects create may start a database): a mistyped
 * --db would otherwise create an empty database and answer as if it were
 * the real one (no projects, no keys).
 */
export async function openForCommand(dbFlag: string | undefined, options: { create?: boolean } = {}): Promise<Storage> {
  const target = databaseTarget(dbFlag);
  if (target.kind === 'sqlite' && !options.create) requireExistingDatabase(target.file);
  return await openStorage(target);
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}
