import * as v from 'valibot';
import { invitationUrl, Members } from '../accounts/members.ts';
import { EmailSchema } from '../accounts/schema.ts';
import { cliChange } from '../audit/cli-change.ts';
import { isRole, type Role } from '../shared/roles.ts';
import type { Storage } from '../storage/storage.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const DEFAULT_URL = 'http://localhost:8787';

const help = `Usage:
  paywalld users invite EMAIL --role ROLE [--project ID] [--url URL] [--json] [--db FILE|URL]
  paywalld users list [--json] [--db FILE|URL]
  paywalld users remove EMAIL [--db FILE|URL]
  paywalld users reset-password EMAIL [--url URL] [--json] [--db FILE|URL]

People who sign in to the dashboard and the API as themselves, with a role
per project: owner, editor, analyst or viewer (docs/guide/teams.md). For the
box's administrator: these work on the database directly, a running
server's included (it sees each change on its next request).

invite prints a link that signs its holder up (or adds the role to their
account) once, within 72 hours. reset-password ends the account's sessions
at once and prints a link that sets a new password. remove deletes the
account with its roles and sessions; a project's last owner cannot be
removed.

Options:
  --role ROLE    owner, editor, analyst or viewer
  --project ID   the project (default: the database's only one)
  --url URL      the server's address as people open it (default ${DEFAULT_URL})
  --json         print JSON instead of text
${DB_OR_URL_HELP}`;

async function projectOf(storage: Storage, wanted: string | undefined): Promise<string> {
  const projects = await storage.projects.list();
  if (wanted !== undefined) {
    if (!projects.some((p) => p.id === wanted)) throw new UsageError(`no project with id ${wanted} (see: paywalld projects list)`);
    return wanted;
  }
  if (projects.length === 1) return projects[0]!.id;
  throw new UsageError(`the database holds ${projects.length} projects: name one with --project ID (see: paywalld projects list)`);
}

function email(text: string | undefined, sub: string): string {
  if (text === undefined) throw new UsageError(`users ${sub} takes exactly one EMAIL`);
  const parsed = v.safeParse(EmailSchema, text);
  if (!parsed.success) throw new UsageError(`${text} is not an email address`);
  return parsed.output;
}

export const usersCommand: Command = {
  name: 'users',
  summary: 'invite, list and remove the people who sign in; reset a password',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...DB_OPTION,
      json: { type: 'boolean' },
      role: { type: 'string' },
      project: { type: 'string' },
      url: { type: 'string' },
    });
    if (values.help) {
      print(help);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub !== 'invite' && sub !== 'list' && sub !== 'remove' && sub !== 'reset-password') {
      throw new UsageError(sub === undefined ? 'users needs a subcommand: invite, list, remove or reset-password' : `unknown subcommand "users ${sub}"`);
    }
    if (rest.length > (sub === 'list' ? 0 : 1))
      throw new UsageError(`users ${sub} takes ${sub === 'list' ? 'no' : 'one'} positional argument${sub === 'list' ? 's' : ''}`);
    const address = sub === 'list' ? '' : email(rest[0], sub);
    if (sub === 'invite' && !isRole(values.role ?? '')) throw new UsageError('users invite needs --role owner, editor, analyst or viewer');
    const base = values.url ?? DEFAULT_URL;
    const storage = await openForCommand(values.db);
    try {
      const members = new Members(storage.accounts);
      const change = cliChange(`users ${sub}`);
      if (sub === 'invite' || sub === 'reset-password') {
        const link =
          sub === 'invite'
            ? await members.invite(await projectOf(storage, values.project), address, values.role as Role, change)
            : await members.reset(address, change);
        const url = invitationUrl(base, link.token);
        if (values.json) print(JSON.stringify({ url, expires_at: link.expires_at }));
        else {
          print(url);
          print(`Valid until ${link.expires_at}, once. Send it to ${address} only: it ${sub === 'invite' ? 'signs its holder up' : 'sets the password'}.`);
        }
      } else if (sub === 'remove') {
        await members.removeUser(address, change);
        if (!values.json) print(`Removed ${address}, their roles and sessions.`);
      } else {
        const users = [];
        for (const user of await storage.accounts.users()) {
          const projects = (await storage.accounts.memberships(user.id)).map((m) => ({ id: m.project_id, name: m.project_name, role: m.role }));
          users.push({ id: user.id, email: user.email, name: user.name, created_at: new Date(user.created_at).toISOString(), projects });
        }
        if (values.json) print(JSON.stringify({ users }));
        else for (const u of users) print(`${u.id}  ${u.email}  ${u.projects.map((p) => `${p.id}:${p.role}`).join(' ') || '(no project)'}`);
      }
      return 0;
    } finally {
      await storage.close();
    }
  },
};
