import { databaseTarget } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { closePool, openPool } from '../db/postgres/connection.ts';
import { migratePostgres } from '../db/postgres/migrate.ts';
import { type Command, DB_OPTION, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld migrate [--db FILE|URL]

Brings the database schema up to date (serve does this at start too) and
prints the schema version. A database written by a newer paywalld is refused.
On PostgreSQL, instances migrating at once take turns (an advisory lock).

Options:
  --db FILE|URL the SQLite database file, created when missing, or a
                postgres:// URL (env PAYWALLD_DB, else DATABASE_URL, default
                data/paywalld.db)`;

interface MigrationResult {
  to: number;
  applied: string[];
}

async function migrateTarget(dbFlag: string | undefined): Promise<MigrationResult> {
  const target = databaseTarget(dbFlag);
  if (target.kind === 'postgres') {
    const sql = openPool(target.url, { size: 1, applicationName: 'paywalld migrate' });
    try {
      return await migratePostgres(sql);
    } finally {
      await closePool(sql);
    }
  }
  const db = openDatabase(target.file);
  try {
    return migrate(db);
  } finally {
    db.close();
  }
}

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'bring the database schema up to date',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, DB_OPTION);
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 0) throw new UsageError('migrate takes no arguments');
    const result = await migrateTarget(values.db);
    for (const step of result.applied) print(`applied ${step}`);
    print(`schema version ${result.to}${result.applied.length === 0 ? ' (up to date)' : ''}`);
    return 0;
  },
};
