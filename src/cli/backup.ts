import path from 'node:path';
import { snapshot } from '../backup/snapshot.ts';
import { databaseTarget } from '../config.ts';
import { redactUrl } from '../db/target.ts';
import { type Command, DB_HELP, DB_OPTION, parse, print, requireExistingDatabase, UsageError } from './command.ts';

const help = `Usage:
  paywalld backup FILE [--db FILE]

Writes a consistent copy of the database to FILE with SQLite's online backup
API. It is safe while the server runs and ingests: the copy is the database as
of the moment it started, including what is still in the write-ahead log, and
commits made meanwhile do not restart it. FILE must not exist; the copy is
written under a temporary name and renamed into place when complete, so FILE is
never half-written, and a failed copy removes its temporary files.

PostgreSQL (--db postgres://…) is backed up with pg_dump or the provider's
backups: given such a URL, backup prints the pg_dump command to run and exits
with code 2.

Options:
${DB_HELP}`;

export const backupCommand: Command = {
  name: 'backup',
  summary: 'write a consistent copy of the database while the server runs',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, DB_OPTION);
    if (values.help) {
      print(help);
      return 0;
    }
    const database = databaseTarget(values.db);
    if (database.kind === 'postgres') throw new UsageError(pgDumpAdvice(database.url, positionals[0]));
    if (positionals.length !== 1) throw new UsageError('backup takes exactly one FILE');
    const target = path.resolve(positionals[0]!);
    const { pages } = await snapshot(requireExistingDatabase(database.file), target);
    print(`Backed up ${pages} pages to ${target}`);
    return 0;
  },
};

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** What to run instead on PostgreSQL: pg_dump's custom format (pg_restore reads it), the URL without its password. */
function pgDumpAdvice(url: string, file = 'paywalld.dump'): string {
  return [
    'backup copies a SQLite file; PostgreSQL is backed up with pg_dump or your provider\'s backups (docs/operations/scale-out.md, "Backups"):',
    `  pg_dump --format=custom --file=${shellQuote(file)} ${shellQuote(redactUrl(url, ''))}`,
    'The password is left out of the URL: pg_dump reads it from PGPASSWORD or ~/.pgpass.',
  ].join('\n');
}
