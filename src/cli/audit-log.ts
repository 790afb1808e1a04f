import * as v from 'valibot';
import { AuditQuerySchema } from '../audit/schema.ts';
import { AuditLog } from '../audit/service.ts';
import { issuesToErrors } from '../shared/issues.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld audit-log [--project ID] [--since T] [--until T] [--actor ID] [--action A]
                     [--target ID] [--limit N] [--cursor C] [--json] [--db FILE|URL]

Prints the audit log, newest first: every change, through any door (the
dashboard, an API key, the CLI on the database, paywalld apply), who made
it and from where (docs/guide/teams.md). Without --project, every project's
entries and those of no project (passwords, throttled sign-ins).

Options:
  --project ID   one project's entries
  --since T      at or after T: an ISO date, an ISO date-time with a zone, or epoch ms
  --until T      up to and including T
  --actor ID     one actor: a user id, a key id, or a CLI account
  --action A     one action (paywall.published, member.removed, …)
  --target ID    one target: a paywall, product, key or member id
  --limit N      entries per page, 1 to 200 (default 50)
  --cursor C     the next page: the cursor the previous one printed
  --json         print the page as JSON, as the API answers it
${DB_OR_URL_HELP}`;

const FILTERS = ['since', 'until', 'actor', 'action', 'target', 'limit', 'cursor'] as const;

export const auditLogCommand: Command = {
  name: 'audit-log',
  summary: 'print the audit log: who changed what, and when',
  help,
  async run(argv) {
    const options = Object.fromEntries(FILTERS.map((name) => [name, { type: 'string' }])) as Record<(typeof FILTERS)[number], { type: 'string' }>;
    const { values, positionals } = parse(argv, { ...DB_OPTION, ...options, json: { type: 'boolean' }, project: { type: 'string' } });
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError('audit-log takes no positional arguments');
    const given = Object.fromEntries(FILTERS.flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));
    const parsed = v.safeParse(AuditQuerySchema, given);
    if (!parsed.success)
      throw new UsageError(
        issuesToErrors(parsed.issues)
          .map((e) => `--${e.path.slice(1)} ${e.message}`)
          .join('; '),
      );
    const storage = await openForCommand(values.db);
    try {
      const page = await new AuditLog(storage.audit).page(values.project, parsed.output);
      if (values.json) print(JSON.stringify(page));
      else {
        for (const e of page.entries) {
          const target = e.target.id === '' ? e.target.type : `${e.target.type} ${e.target.id}`;
          print(`${e.at}  ${e.project ?? '-'}  ${e.actor.label} (${e.actor.type})  ${e.action}  ${target}  ${e.summary}${e.ip ? `  from ${e.ip}` : ''}`);
        }
        if (page.next_cursor !== null) print(`more: --cursor ${page.next_cursor}`);
      }
      return 0;
    } finally {
      await storage.close();
    }
  },
};
