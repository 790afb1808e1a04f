import { cliChange } from '../audit/cli-change.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld projects create NAME [--json] [--db FILE|URL]
  paywalld projects list [--json] [--db FILE|URL]

create makes a project with one sdk key and one secret key and prints both
once: they are stored only as hashes and cannot be shown again.

Options:
  --json        print JSON instead of text
${DB_OR_URL_HELP}`;

export const projectsCommand: Command = {
  name: 'projects',
  summary: 'create and list projects',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...DB_OPTION, json: { type: 'boolean' } });
    if (values.help) {
      print(help);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub === 'create') {
      if (rest.length !== 1) throw new UsageError('projects create takes exactly one NAME');
      const storage = await openForCommand(values.db, { create: true });
      try {
        const created = await storage.projects.create(rest[0]!, cliChange('projects create'));
        if (values.json) print(JSON.stringify(created));
        else {
          print(`Created project ${created.project.name} (${created.project.id})`);
          print(`  sdk key:    ${created.keys.sdk}`);
          print(`  secret key: ${created.keys.secret}`);
          print('Store these keys now: they will not be shown again.');
        }
      } finally {
        await storage.close();
      }
      return 0;
    }
    if (sub === 'list') {
      if (rest.length !== 0) throw new UsageError('projects list takes no arguments');
      const storage = await openForCommand(values.db);
      try {
        const projects = await storage.projects.list();
        if (values.json) print(JSON.stringify({ projects }));
        else for (const p of projects) print(`${p.id}  ${p.created_at}  ${p.name}`);
      } finally {
        await storage.close();
      }
      return 0;
    }
    throw new UsageError(sub === undefined ? 'projects needs a subcommand: create or list' : `unknown subcommand "projects ${sub}"`);
  },
};
