import { startServer } from '../app.ts';
import { SERVE_OPTIONS, serveConfig } from '../config.ts';
import { Logger } from '../log.ts';
import { type Command, DB_HELP, parse, print, UsageError } from './command.ts';

const help = `Usage:
  paywalld serve [--port N] [--host ADDR] [--db FILE] [--require-key] [--log-level L]
                 [--rate-limit-sdk N] [--rate-limit-api N] [--trust-proxy]
                 [--cors-origin ORIGIN]... [--body-timeout S] [--metrics-port N]
                 [--request-log-rate N] [--backup-dir DIR [--backup-every 6h] [--backup-keep 14]]
                 [--retention-days N] [--seed DIR] [--keys-file FILE]

Starts the HTTP server. The first start on an empty database creates a
project named "default" and prints its two keys once.

Options:
  --port N        port to listen on (env PAYWALLD_PORT, default 8787; 0 picks a free port)
  --host ADDR     address to listen on (env PAYWALLD_HOST, default 127.0.0.1;
                  0.0.0.0 listens on every interface)
${DB_HELP}
                  --db :memory: (CI mode): a private temporary database, deleted
                  when the server stops
  --seed DIR      apply a configuration directory (see paywalld validate) and
                  publish it before the port opens (env PAYWALLD_SEED)
  --keys-file FILE
                  write the keys of the project created at start to FILE as
                  JSON, mode 0600, before the port opens, instead of printing
                  them (env PAYWALLD_KEYS_FILE; needs an empty database)
  --require-key   refuse event batches sent without an API key (401)
  --log-level L   debug, info, warn or error (env PAYWALLD_LOG_LEVEL, default info)
  --backup-dir DIR
                  write a consistent snapshot of the database into DIR every
                  --backup-every (30m, 6h, 1d; default 6h), keeping the newest
                  --backup-keep (default 14) (env PAYWALLD_BACKUP_DIR,
                  PAYWALLD_BACKUP_EVERY, PAYWALLD_BACKUP_KEEP)
  --request-log-rate N
                  request log lines per second at most; the rest are counted in a
                  "request log sampled" line (env PAYWALLD_REQUEST_LOG_RATE,
                  default 1000; 0 = none). 5xx lines are always written.
  --rate-limit-sdk N
                  requests per second per client IP on the SDK endpoints, bursts
                  up to 2N (env PAYWALLD_RATE_LIMIT_SDK, default 100; 0 = off)
  --rate-limit-api N
                  requests per second per API key on the management API, bursts
                  up to 2N (env PAYWALLD_RATE_LIMIT_API, default 20; 0 = off)
  --trust-proxy   take the client IP from X-Forwarded-For (only behind a reverse
                  proxy that sets it; env PAYWALLD_TRUST_PROXY=true)
  --cors-origin ORIGIN
                  let browser pages from ORIGIN call the management API; repeat
                  for more, or * for any (env PAYWALLD_CORS_ORIGINS, comma-separated).
                  The SDK endpoints allow every origin.
  --body-timeout S
                  cut off request bodies still incomplete after S seconds (408;
                  env PAYWALLD_BODY_TIMEOUT, default 30)
  --metrics-port N
                  also serve /metrics without a key on 127.0.0.1:N, for a
                  Prometheus on the same machine (env PAYWALLD_METRICS_PORT);
                  on the main port /metrics needs a secret key
  --retention-days N
                  delete raw events received more than N days ago, in small
                  batches in the background; daily statistics stay
                  (env PAYWALLD_RETENTION_DAYS; default: keep every event)

SIGTERM or SIGINT stops it gracefully: it stops accepting connections,
answers the requests in flight, closes the database and exits 0.`;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the HTTP server',
  help,
  async run(argv) {
    const { values, positionals } = parse(argv, SERVE_OPTIONS);
    if (values.help) return print(help), 0;
    if (positionals.length !== 0) throw new UsageError('serve takes no positional arguments');
    const config = serveConfig(values);
    const log = new Logger(config.logLevel, { requestLinesPerSecond: config.requestLogRate });
    const server = await startServer(config, log);
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
    if (server.bootstrap && config.keysFile !== undefined) {
      const { project } = server.bootstrap;
      print(`Created project "${project.name}" (${project.id}); its keys are in ${config.keysFile}.`);
    } else if (server.bootstrap) {
      const { project, keys } = server.bootstrap;
      print(`Created project "${project.name}" (${project.id}) because the database was empty.`);
      print(`  sdk key:    ${keys.sdk}`);
      print(`  secret key: ${keys.secret}`);
      print('These keys will not be shown again: store them now.');
    }
    log.info('listening', { host: config.host, port: server.port, db: config.dbPath, pid: process.pid });
    return stopped;
  },
};
