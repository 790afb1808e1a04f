import { openDatabase } from '../db/database.ts';
import { currentVersion, SchemaTooNewError } from '../db/migrate.ts';
import { migrations } from '../db/migrations/index.ts';
import { claimDatabase } from '../db/owner.ts';
import { closePool, openPool } from '../db/postgres/connection.ts';
import { currentPostgresVersion, migratePostgres } from '../db/postgres/migrate.ts';
import { isPostgresUrl, redactUrl } from '../db/target.ts';
import { copySqliteToPostgres, TargetNotEmptyError, tablesWithRows } from '../storage/copy-from-sqlite.ts';
import { type Command, parse, print, requireExistingDatabase, UsageError } from './command.ts';

const help = `Usage:
  paywalld migrate-to postgres://USER@HOST/DB --from FILE

Copies the SQLite database FILE into PostgreSQL: projects, keys, products,
paywalls with their revisions and phases, events, purchases, identity links
and store integrations, in one transaction. The PostgreSQL database is
brought to the current schema first and must hold no data: a database that
does is refused and nothing is written. FILE must be at the current schema
("paywalld migrate --db FILE") and no paywalld serve may be running on it;
it is only read. Prints the rows copied per table. Statistics and the other
state the server derives from events are rebuilt from the copied events.

See docs/operations/scale-out.md, "Moving a SQLite database to PostgreSQL".

Options:
  --from FILE   the SQLite database file to copy`;

export const migrateToCommand: Command = {
  name: 'migrate-to',
  summary: 'copy a SQLite database into an empty PostgreSQL database',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, { from: { type: 'string' } });
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 1 || !isPostgresUrl(positionals[0]!)) throw new UsageError('migrate-to takes one postgres:// (or postgresql://) URL');
    if (values.from === undefined) throw new UsageError('migrate-to needs --from FILE, the SQLite database to copy');
    if (isPostgresUrl(values.from)) throw new UsageError('--from is the SQLite database file to copy, not a URL');
    if (values.from === ':memory:') throw new UsageError('--from :memory: is an empty database of its own: name the file to copy');
    const url = positionals[0]!;
    const file = requireExistingDatabase(values.from);
    // Held while copying: a serve started meanwhile on FILE would take events the copy misses.
    const release = claimDatabase(file);
    try {
      const db = openDatabase(file, { mustExist: true });
      try {
        const known = migrations.at(-1)!.version;
        const version = currentVersion(db);
        if (version > known) throw new SchemaTooNewError(version, known);
        if (version < known) {
          throw new Error(
            `the SQLite database ${file} is at schema version ${version}, not ${known}; bring it up to date first: paywalld migrate --db ${file}`,
          );
        }
        const sql = openPool(url, { size: 1, applicationName: 'paywalld migrate-to' });
        try {
          // Refused before the migrations too: a database in use is not written to at all.
          if ((await currentPostgresVersion(sql)) > 0) {
            const occupied = await tablesWithRows(sql);
            if (occupied.length > 0) throw new TargetNotEmptyError(occupied);
          }
          await migratePostgres(sql);
          const counts = await copySqliteToPostgres(db, sql);
          const width = Math.max(...counts.map(([table]) => table.length));
          for (const [table, rows] of counts) print(`${table.padEnd(width)}  ${rows}`);
          print(`Copied ${counts.reduce((sum, [, rows]) => sum + rows, 0)} rows from ${file} to ${redactUrl(url)}`);
          return 0;
        } finally {
          await closePool(sql);
        }
      } finally {
        db.close();
      }
    } finally {
      release();
    }
  },
};
