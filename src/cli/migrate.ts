import { dbPath } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { type Command, DB_HELP, DB_OPTION, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld migrate [--db FILE]

Brings the database schema up to date (serve does this at start too) and
prints the schema version. A database written by a newer paywalld is refused.

Options:
${DB_HELP}`;

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'bring the database schema up to date',
  help,
  run(argv) {
    const { values, positionals } = parse(argv, DB_OPTION);
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 0) throw new UsageError('migrate takes no arguments');
    const db = openDatabase(dbPath(values.db));
    try {
      const result = migrate(db);
      for (const step of result.applied) print(`applied ${step}`);
      print(`schema version ${result.to}${result.applied.length === 0 ? ' (up to date)' : ''}`);
      return 0;
    } finally {
      db.close();
    }
  },
};
