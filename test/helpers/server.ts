import type { TestContext } from 'node:test';
import { type RunningServer, startServer } from '../../src/app.ts';
import { type ServeConfig, serveConfig } from '../../src/config.ts';
import { isPostgresUrl } from '../../src/db/target.ts';
import { Logger } from '../../src/log.ts';
import { recordingOptions } from './answers.ts';
import { emptyDatabase, secretsKeyFileFor, type TestBackend } from './backend.ts';

export interface TestServer {
  url: string;
  server: RunningServer;
  /** The database as `--db` takes it: the SQLite file, or the PostgreSQL URL on that backend. */
  dbPath: string;
  backend: TestBackend;
  /** The keys of the "default" project created on the empty database. */
  keys: { sdk: string; secret: string };
  projectId: string;
}

/** What a test changes of the configuration; the database is named as `--db` takes it (`dbPath`), and parsed as serve parses it. */
type TestOverrides = Partial<Omit<ServeConfig, 'database'>> & { dbPath?: string };

/** The configuration every test server starts from: loopback, a free port, rate limits off (tests send many requests from one address on purpose). */
function testConfig(dbPath: string, { dbPath: _named, ...overrides }: TestOverrides): ServeConfig {
  const defaults = serveConfig(
    { port: '0', host: '127.0.0.1', db: dbPath, 'rate-limit-sdk': '0', 'rate-limit-api': '0', 'rate-limit-hooks': '0', 'rate-limit-hooks-project': '0' },
    {},
  );
  const secretsKeyFile = isPostgresUrl(dbPath) ? secretsKeyFileFor(dbPath) : undefined;
  return { ...defaults, secretsKeyFile, ...overrides };
}

/**
 * A real server on a free port of 127.0.0.1 against an empty database of the
 * test backend (helpers/backend.ts: a SQLite file in a temp directory, or a
 * PostgreSQL database); stopped when the test ends. Rate limits are off unless
 * a test sets them. Its answers are recorded for the OpenAPI check (answers.ts).
 */
export async function startTestServer(t: TestContext, overrides: TestOverrides = {}, log = new Logger('error')): Promise<TestServer> {
  const database = overrides.dbPath === undefined ? await emptyDatabase() : undefined;
  const dbPath = overrides.dbPath ?? database!.db;
  const server = await startServer(testConfig(dbPath, overrides), log, recordingOptions);
  t.after(async () => {
    await server.stop();
    // After the stop: the event-writer thread may still be opening the file.
    database?.remove();
  });
  const bootstrap = server.bootstrap;
  if (!bootstrap) throw new Error('expected an empty database to create the default project');
  const backend = database?.backend ?? (isPostgresUrl(dbPath) ? 'postgres' : 'sqlite');
  return { url: `http://127.0.0.1:${server.port}`, server, dbPath, backend, keys: bootstrap.keys, projectId: bootstrap.project.id };
}

/** A server on an existing database (startTestServer wants an empty one), stopped when the test ends; the server itself, to stop before then (a second server on the same file must not run beside it). */
export async function serverOn(
  t: { after(fn: () => Promise<void>): void },
  dbPath: string,
  overrides: TestOverrides = {},
  log = new Logger('error'),
): Promise<{ url: string; server: RunningServer }> {
  const server = await startServer(testConfig(dbPath, overrides), log, recordingOptions);
  t.after(() => server.stop());
  return { url: `http://127.0.0.1:${server.port}`, server };
}

/** serverOn, when only the url is wanted. */
export async function restartServer(t: { after(fn: () => Promise<void>): void }, dbPath: string, overrides: TestOverrides = {}): Promise<string> {
  return (await serverOn(t, dbPath, overrides)).url;
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
