import { ConfigError } from '../config-error.ts';
import { SchemaTooNewError } from '../db/migrate.ts';
import { DatabaseInUseError } from '../db/owner.ts';
import { redactUrls } from '../db/target.ts';
import { versionReport } from '../runtime/versions.ts';
import { DomainError } from '../shared/errors.ts';
import { applyCommand } from './apply.ts';
import { auditLogCommand } from './audit-log.ts';
import { backupCommand } from './backup.ts';
import { type Command, UsageError } from './command.ts';
import { eventNamesCommand } from './event-names.ts';
import { exportCommand } from './export.ts';
import { fallbackCommand } from './fallback.ts';
import { integrationsCommand } from './integrations.ts';
import { keysCommand } from './keys.ts';
import { migrateCommand } from './migrate.ts';
import { migrateToCommand } from './migrate-to.ts';
import { planCommand } from './plan.ts';
import { projectsCommand } from './projects.ts';
import { serveCommand } from './serve.ts';
import { templatesCommand } from './templates.ts';
import { usersCommand } from './users.ts';
import { validateCommand } from './validate.ts';

const commands: Command[] = [
  serveCommand,
  projectsCommand,
  keysCommand,
  usersCommand,
  auditLogCommand,
  integrationsCommand,
  eventNamesCommand,
  backupCommand,
  migrateCommand,
  migrateToCommand,
  validateCommand,
  exportCommand,
  planCommand,
  applyCommand,
  fallbackCommand,
  templatesCommand,
];

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'paywalld: self-hosted paywall configuration and analytics server',
    '',
    'Usage: paywalld <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "paywalld <command> --help" for the options of a command,',
    '"paywalld --version" for the versions of paywalld, Node.js, uWebSockets.js and SQLite.',
  ].join('\n');
}

/** Runs the CLI and returns the process exit code: 0 success, 1 failure, 2 usage error. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    process.stdout.write(`${versionReport()}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`paywalld: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    // A message may quote a postgres:// URL (the driver's, a command's): never with its password.
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`paywalld ${name}: ${redactUrls(error.message)}\nRun "paywalld ${name} --help" for usage.\n`);
      return 2;
    }
    if (error instanceof DomainError || error instanceof SchemaTooNewError || error instanceof DatabaseInUseError) {
      process.stderr.write(`paywalld ${name}: ${redactUrls(error.message)}\n`);
      return 1;
    }
    process.stderr.write(`paywalld ${name}: ${redactUrls(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
}
