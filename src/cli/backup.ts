import path from 'node:path';
import { snapshot } from '../backup/snapshot.ts';
import { type Command, DB_HELP, DB_OPTION, existingDbPath, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld backup FILE [--db FILE]

Writes a consistent copy of the database to FILE with SQLite's online backup
API. It is safe while the server runs and ingests: the copy is the database as
of the moment it started, including what is still in the write-ahead log, and
commits made meanwhile do not restart it. FILE must not exist; the copy is
written under a temporary name and renamed into place when complete, so FILE is
never half-written, and a failed copy removes its temporary files.

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
    if (positionals.length !== 1) throw new UsageError('backup takes exactly one FILE');
    const target = path.resolve(positionals[0]!);
    const { pages } = await snapshot(existingDbPath(values.db), target);
    print(`Backed up ${pages} pages to ${target}`);
    return 0;
  },
};
