import { cliChange } from '../audit/cli-change.ts';
import { EventNameService } from '../events/names/service.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld event-names list --project ID [--json] [--db FILE|URL]
  paywalld event-names clear --project ID [--db FILE|URL]

Event types, paywall ids, variants and audiences that events sent without a
secret key (keyless, or with the public sdk key) brought to a project though
no paywall declares them count in a budget of their own, at most so many new
ones a day, so that nobody can use up the room the team's own names need
(docs/reference/events.md, "Names and their limits"). list shows each budget with
names counting in it and the names; clear stops counting them, so that new
ones are taken again at once (the statistics keep them), as GET and DELETE
/api/event-names do. Works beside a running server.

Options:
  --project ID  the project (see: paywalld projects list)
  --json        print JSON instead of text
${DB_OR_URL_HELP}`;

export const eventNamesCommand: Command = {
  name: 'event-names',
  summary: 'see and clear the names events sent without a secret key brought',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...DB_OPTION, json: { type: 'boolean' }, project: { type: 'string' } });
    if (values.help) {
      print(help);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub !== 'list' && sub !== 'clear') {
      throw new UsageError(sub === undefined ? 'event-names needs a subcommand: list or clear' : `unknown subcommand "event-names ${sub}"`);
    }
    if (rest.length > 0) throw new UsageError(`event-names ${sub} takes no positional arguments`);
    if (!values.project) throw new UsageError(`event-names ${sub} needs --project ID`);
    const storage = await openForCommand(values.db);
    try {
      if (!(await storage.projects.get(values.project))) {
        process.stderr.write(`paywalld: no project with id ${values.project}\n`);
        return 1;
      }
      const names = new EventNameService(storage.eventNames);
      if (sub === 'clear') {
        const { cleared } = await names.clear(values.project, cliChange('event-names clear'));
        print(values.json ? JSON.stringify({ cleared }) : `${cleared} names no longer count in their budgets`);
        return 0;
      }
      const listed = await names.list(values.project);
      if (values.json) {
        print(JSON.stringify(listed));
        return 0;
      }
      for (const budget of listed.budgets) {
        print(`${budget.kind}${budget.paywall_id === null ? '' : ` of ${budget.paywall_id}`}: ${budget.counting} of ${budget.limit} a day`);
      }
      for (const name of listed.names) {
        const of = name.paywall_id === null ? '' : ` (${name.paywall_id})`;
        print(`${name.first_seen_at}  ${name.kind}${of}  ${name.name}${name.counting ? '' : '  (no longer counting)'}`);
      }
      print(`${listed.total} names in all`);
      return 0;
    } finally {
      await storage.close();
    }
  },
};
