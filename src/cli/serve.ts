import { invitationUrl } from '../accounts/members.ts';
import { SERVE_OPTIONS, serveConfig } from '../config.ts';
import { settingsHelp, settingsUsage } from '../config-help.ts';
import { letDriverDefectsPass } from '../db/postgres/driver-defects.ts';
import { describeTarget } from '../db/target.ts';
import { Logger } from '../log.ts';
import { type Command, parse, print, UsageError } from './command.ts';

const help = `Usage:
${settingsUsage()}

Starts the HTTP server. The first start on an empty database creates a
project named "default" and prints its two keys once. Flags win over the
environment variables.

Options:
${settingsHelp()}

SIGTERM or SIGINT stops it gracefully: it stops accepting connections,
answers the requests in flight, closes the database and exits 0.`;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the HTTP server',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, SERVE_OPTIONS);
    if (values.help) {
      print(help);
      return 0;
    }
    if (positionals.length !== 0) throw new UsageError('serve takes no positional arguments');
    const config = serveConfig(values);
    // The driver's throw after a lost connection (driver-defects.ts) must not end the server: the query it
    // belonged to has failed already, with database_unavailable.
    letDriverDefectsPass();
    const log = new Logger(config.logLevel, { requestLinesPerSecond: config.requestLogRate });
    // Imported here, not above: the server loads uWS, which the other commands must run without (src/native.ts).
    const { startServer } = await import('../app.ts');
    const server = await startServer(config, log, {
      onBootstrap: ({ project, keys }) => {
        if (config.keysFile !== undefined) {
          print(`Created project "${project.name}" (${project.id}); its keys are in ${config.keysFile}.`);
          return;
        }
        print(`Created project "${project.name}" (${project.id}) because the database was empty.`);
        print(`  sdk key:    ${keys.sdk}`);
        print(`  secret key: ${keys.secret}`);
        print('These keys will not be shown again: store them now.');
      },
    });
    const invitation = server.bootstrap?.invitation;
    if (invitation) {
      const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
      print(`The first owner signs up at ${invitationUrl(`http://${host}:${server.port}`, invitation.token)}`);
      print(`  (valid until ${invitation.expires_at}, once; behind a proxy, open the same path on its address)`);
    }
    // Handlers first, then the "listening" line: whoever waits for that line may signal at once.
    const stopped = new Promise<number>((resolve) => {
      const shutdown = (signal: string) => {
        log.info('shutting down', { signal });
        server.stop().then(
          () => {
            log.info('stopped');
            resolve(0);
          },
          (error: unknown) => {
            log.error('shutdown failed', { error: error instanceof Error ? error.stack : String(error) });
            resolve(1);
          },
        );
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    });
    log.info('listening', { host: config.host, port: server.port, db: describeTarget(config.database), pid: process.pid });
    return stopped;
  },
};
