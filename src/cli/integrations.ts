import fs from 'node:fs';
import { cliChange } from '../audit/cli-change.ts';
import { databaseTarget, readEnv } from '../config.ts';
import { realDatabasePath } from '../db/owner.ts';
import { IntegrationConfiguration } from '../integrations/configuration.ts';
import { SecretBox, secretsKeyFile } from '../shared/secret-box.ts';
import { type Command, DB_OPTION, DB_OR_URL_HELP, openForCommand, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld integrations set PROVIDER --project ID --config FILE [--json] [--db FILE|URL]
  paywalld integrations show PROVIDER --project ID [--json] [--db FILE|URL]

Configures a store connector (stripe, revenuecat, app-store, google-play) of a project, as
PUT /api/integrations/PROVIDER does; the store then sends its notifications to
/hooks/PROVIDER/PROJECT_ID (docs/guide/revenue.md). The configuration is read from a
JSON file ("-" for standard input), so that secrets stay out of the shell's
history:
  stripe      {"signing_secret": "whsec_…"}
  revenuecat  {"authorization": "the Authorization header value RevenueCat sends"}
  app-store   {"bundle_id": "com.example.app", "root_certificates": ["-----BEGIN CERTIFICATE-----…"]}
  google-play {"package_name": "com.example.app", "service_account_json": "<the key file's contents>",
               "pubsub_audience": "…", "pubsub_service_account_email": "push@….iam.gserviceaccount.com"}
Secrets are never printed: show prints a fingerprint of them. They are stored
sealed with the key in PAYWALLD_SECRETS_KEY_FILE, else in <db>-secrets.key
beside a SQLite file (created 0600 on first need), as serve does.

Options:
  --project ID   the project (see: paywalld projects list)
  --config FILE  the provider's configuration as JSON; - reads standard input
  --json         print JSON instead of text
${DB_OR_URL_HELP}`;

export const integrationsCommand: Command = {
  name: 'integrations',
  summary: 'configure the store connectors (Stripe, RevenueCat, App Store, Google Play)',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...DB_OPTION, json: { type: 'boolean' }, project: { type: 'string' }, config: { type: 'string' } });
    if (values.help) {
      print(help);
      return 0;
    }
    const [sub, provider, ...rest] = positionals;
    if (sub !== 'set' && sub !== 'show') {
      throw new UsageError(sub === undefined ? 'integrations needs a subcommand: set or show' : `unknown subcommand "integrations ${sub}"`);
    }
    if (provider === undefined || rest.length > 0) throw new UsageError(`integrations ${sub} takes exactly one PROVIDER`);
    if (!values.project) throw new UsageError(`integrations ${sub} needs --project ID`);
    if (sub === 'set' && !values.config) throw new UsageError('integrations set needs --config FILE (or - for standard input)');
    let config: unknown;
    if (sub === 'set') {
      const text = fs.readFileSync(values.config === '-' ? 0 : values.config!, 'utf8');
      try {
        config = JSON.parse(text);
      } catch {
        throw new UsageError('the --config file is not JSON');
      }
    }
    const storage = await openForCommand(values.db);
    try {
      if (!(await storage.projects.get(values.project))) {
        process.stderr.write(`paywalld: no project with id ${values.project}\n`);
        return 1;
      }
      const target = databaseTarget(values.db);
      const keyFile = secretsKeyFile(readEnv()['secrets-key-file'], target.kind === 'sqlite' ? realDatabasePath(target.file) : undefined);
      const integrations = new IntegrationConfiguration(storage.integrations, new SecretBox(keyFile));
      const shown = await (sub === 'set'
        ? integrations.configure(values.project, provider, config, cliChange('integrations set'))
        : integrations.describe(values.project, provider));
      if (values.json) print(JSON.stringify(shown));
      else {
        print(`${shown.provider} connector of ${values.project}: secrets ${shown.fingerprint}, updated ${shown.updated_at}`);
        print(`Notifications go to: <server URL>${shown.webhook_path}`);
      }
      return 0;
    } finally {
      await storage.close();
    }
  },
};
