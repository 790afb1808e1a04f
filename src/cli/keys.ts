import { cliChange } from '../audit/cli-change.ts';
import { SCOPES, type Scope } from '../keys/key.ts';
import { keyInfo } from '../keys/store.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld keys create --project ID --scope sdk|secret [--name TEXT] [--json] [--db FILE|URL]
  paywalld keys list --project ID [--json] [--db FILE|URL]
  paywalld keys revoke KEY_ID [--json] [--db FILE|URL]

sdk keys ship inside apps and may only resolve paywalls and send events;
secret keys also manage the project. A new key is printed once. A revoked
key stops working on a running server within a second.

Options:
  --project ID  the project (see: paywalld projects list)
  --scope S     sdk or secret
  --name TEXT   what the key is for ("iOS app", "CI"), shown in listings
  --json        print JSON instead of text
${DB_OR_URL_HELP}`;

export const keysCommand: Command = {
  name: 'keys',
  summary: 'create, list and revoke API keys',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...DB_OPTION,
      json: { type: 'boolean' },
      project: { type: 'string' },
      scope: { type: 'string' },
      name: { type: 'string' },
    });
    if (values.help) {
      print(help);
      return 0;
    }
    const [sub, ...rest] = positionals;
    if (sub !== 'create' && sub !== 'list' && sub !== 'revoke') {
      throw new UsageError(sub === undefined ? 'keys needs a subcommand: create, list or revoke' : `unknown subcommand "keys ${sub}"`);
    }
    if (sub === 'revoke' ? rest.length !== 1 : rest.length !== 0)
      throw new UsageError(sub === 'revoke' ? 'keys revoke takes exactly one KEY_ID' : `keys ${sub} takes no positional arguments`);
    if (sub !== 'revoke' && !values.project) throw new UsageError(`keys ${sub} needs --project ID`);
    if (sub === 'create' && !SCOPES.includes(values.scope as Scope)) throw new UsageError('keys create needs --scope sdk or --scope secret');

    const storage = await openForCommand(values.db);
    try {
      const keys = storage.keys;
      if (sub === 'revoke') {
        const revoked = keyInfo(await keys.revoke(rest[0]!, undefined, cliChange('keys revoke')));
        print(values.json ? JSON.stringify(revoked) : `Revoked ${revoked.id} (${revoked.prefix}…)`);
        return 0;
      }
      if (!(await storage.projects.get(values.project!))) {
        process.stderr.write(`paywalld: no project with id ${values.project}\n`);
        return 1;
      }
      if (sub === 'create') {
        const created = await keys.create(values.project!, values.scope as Scope, values.name ?? '', cliChange('keys create'));
        if (values.json) print(JSON.stringify(created));
        else {
          print(`Created ${created.scope} key ${created.id}: ${created.key}`);
          print('Store this key now: it will not be shown again.');
        }
        return 0;
      }
      const list = (await keys.list(values.project!)).map(keyInfo);
      if (values.json) print(JSON.stringify({ keys: list }));
      else
        for (const k of list) {
          const used = k.last_used_at ? `  last used ${k.last_used_at}` : '  never used';
          print(
            `${k.id}  ${k.scope.padEnd(6)}  ${k.prefix}…  created ${k.created_at}${k.revoked_at ? `  revoked ${k.revoked_at}` : used}${k.name ? `  ${k.name}` : ''}`,
          );
        }
      return 0;
    } finally {
      await storage.close();
    }
  },
};
