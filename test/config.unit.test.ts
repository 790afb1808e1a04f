import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { databaseTarget, readEnv, SETTINGS, serveConfig } from '../src/config.ts';
import { ConfigError } from '../src/config-error.ts';
import { settingsHelp, settingsTable } from '../src/config-help.ts';
import { sqliteFileOf } from '../src/db/target.ts';

test('defaults apply when neither flags nor environment say otherwise', () => {
  const config = serveConfig({}, {});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8787);
  assert.deepEqual(config.database, { kind: 'sqlite', file: 'data/paywalld.db' });
  assert.equal(config.rateLimitSdk, 1000);
  assert.equal(config.requireKey, false);
  assert.equal(config.rateLimitApi, 20);
  assert.equal(config.trustProxy, false);
  assert.deepEqual(config.corsOrigins, []);
  assert.equal(config.bodyTimeoutMs, 30_000);
});

test('the environment fills in, flags win over it', () => {
  const env = readEnv({
    PAYWALLD_PORT: '9000',
    PAYWALLD_HOST: '0.0.0.0',
    PAYWALLD_DB: '/var/lib/paywalld/p.db',
    PAYWALLD_TRUST_PROXY: 'true',
    PAYWALLD_CORS_ORIGINS: 'https://a.example, https://b.example',
    PAYWALLD_RATE_LIMIT_SDK: '0',
    PAYWALLD_REQUIRE_KEY: 'yes',
  });
  const fromEnv = serveConfig({}, env);
  assert.equal(fromEnv.port, 9000);
  assert.equal(fromEnv.host, '0.0.0.0');
  assert.deepEqual(fromEnv.database, { kind: 'sqlite', file: '/var/lib/paywalld/p.db' });
  assert.equal(fromEnv.trustProxy, true);
  assert.deepEqual(fromEnv.corsOrigins, ['https://a.example', 'https://b.example']);
  assert.equal(fromEnv.rateLimitSdk, 0);
  assert.equal(fromEnv.requireKey, true);
  const flagged = serveConfig({ port: '1234', 'cors-origin': ['https://c.example'], 'trust-proxy': false }, env);
  assert.equal(flagged.port, 1234);
  assert.deepEqual(flagged.corsOrigins, ['https://c.example']);
  assert.equal(flagged.trustProxy, false);
});

test('bad values are refused with the flag named', () => {
  const cases: [Parameters<typeof serveConfig>[0], Parameters<typeof serveConfig>[1], RegExp][] = [
    [{ port: '70000' }, {}, /--port must be an integer from 0 to 65535/],
    [{ port: '80.5' }, {}, /--port must be an integer/],
    [{ port: '' }, {}, /--port/],
    [{}, { port: 'http' }, /--port/],
    [{ 'rate-limit-sdk': '-1' }, {}, /--rate-limit-sdk must be a number from 0/],
    [{ 'body-timeout': '0' }, {}, /--body-timeout must be a number from 1 to 3600/],
    [{ 'log-level': 'loud' }, {}, /--log-level must be one of/],
    [{}, { 'trust-proxy': 'maybe' }, /PAYWALLD_TRUST_PROXY must be true or false/],
  ];
  for (const [flags, env, message] of cases)
    assert.throws(
      () => serveConfig(flags, env),
      (e) => e instanceof ConfigError && message.test(e.message),
    );
});

test("docs/reference/configuration.md's settings table is exactly what the settings descriptors say", () => {
  const page = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs/reference/configuration.md'), 'utf8');
  const start = page.indexOf('| flag | environment | default | meaning |');
  assert.ok(start >= 0, 'docs/reference/configuration.md has no settings table');
  const table = page.slice(start, page.indexOf('\n\n', start));
  assert.equal(
    table,
    settingsTable(),
    `docs/reference/configuration.md's table differs from src/config.ts SETTINGS; the table should read:\n${settingsTable()}`,
  );
});

test('every setting has an environment variable of its own', () => {
  const variables = Object.values(SETTINGS).map((setting) => setting.env);
  assert.equal(new Set(variables).size, variables.length);
  for (const variable of variables) assert.match(variable, /^PAYWALLD_[A-Z_]+$/);
});

test('the systemd unit (deploy/paywalld.service) sets settings paywalld reads: keys to a file, a key required for events', () => {
  const unit = fs.readFileSync(path.join(import.meta.dirname, '../deploy/paywalld.service'), 'utf8');
  const environment = Object.fromEntries([...unit.matchAll(/^Environment=(PAYWALLD_\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const config = serveConfig({}, readEnv(environment));
  assert.equal(config.keysFile, '/var/lib/paywalld/first-start-keys.json');
  assert.equal(config.requireKey, true);
  assert.equal(config.trustProxy, true);
  assert.equal(config.host, '127.0.0.1');
  assert.deepEqual(config.database, { kind: 'sqlite', file: '/var/lib/paywalld/paywalld.db' });
});

test('the database is --db, else PAYWALLD_DB, else DATABASE_URL, else the default file; postgres URLs name PostgreSQL', () => {
  const url = 'postgres://paywalld:pw@db.internal:5432/paywalld';
  assert.deepEqual(databaseTarget(undefined, readEnv({})), { kind: 'sqlite', file: 'data/paywalld.db' });
  assert.deepEqual(databaseTarget(undefined, readEnv({ DATABASE_URL: url })), { kind: 'postgres', url });
  assert.deepEqual(databaseTarget(undefined, readEnv({ DATABASE_URL: url, PAYWALLD_DB: 'p.db' })), { kind: 'sqlite', file: 'p.db' });
  assert.deepEqual(databaseTarget('postgresql://h/d', readEnv({ DATABASE_URL: url, PAYWALLD_DB: 'p.db' })), { kind: 'postgres', url: 'postgresql://h/d' });
  assert.deepEqual(databaseTarget('x.db', readEnv({ PAYWALLD_DB: url })), { kind: 'sqlite', file: 'x.db' });
  assert.deepEqual(databaseTarget(undefined, readEnv({ PAYWALLD_DB: 'POSTGRES://h/d' })), { kind: 'postgres', url: 'POSTGRES://h/d' });
  // An empty variable counts as unset, as for every setting.
  assert.deepEqual(databaseTarget(undefined, readEnv({ PAYWALLD_DB: '', DATABASE_URL: url })), { kind: 'postgres', url });
  assert.deepEqual(serveConfig({}, readEnv({ DATABASE_URL: 'from-env.db' })).database, { kind: 'sqlite', file: 'from-env.db' });
});

test('a URL of another scheme is refused, and SQLite-only settings refuse PostgreSQL, neither showing the password', () => {
  for (const [flag, env, message] of [
    ['mysql://u:hunter2@h/d', {}, /--db mysql:\/\/u:\*\*\*@h\/d is neither a SQLite file nor a postgres:\/\//],
    [undefined, { DATABASE_URL: 'postgress://u:hunter2@h/d' }, /neither a SQLite file/],
  ] as const) {
    assert.throws(
      () => databaseTarget(flag, readEnv(env)),
      (e) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('hunter2'),
    );
  }
  assert.throws(
    () => sqliteFileOf(databaseTarget(undefined, readEnv({ DATABASE_URL: 'postgres://u:hunter2@h/d?password=hunter2' }))),
    (e) => e instanceof ConfigError && e.message.includes('postgres://u:***@h/d?password=***') && !e.message.includes('hunter2'),
  );
  assert.throws(
    () => serveConfig({ db: 'postgres://u:hunter2@h/d', 'backup-dir': '/backups' }, {}),
    (e) => e instanceof ConfigError && /on PostgreSQL use pg_dump/.test(e.message) && !e.message.includes('hunter2'),
  );
  assert.deepEqual(serveConfig({ db: 'postgres://u:hunter2@h/d' }, {}).database, { kind: 'postgres', url: 'postgres://u:hunter2@h/d' });
});

test('serve --help and the configuration reference name DATABASE_URL after PAYWALLD_DB', () => {
  assert.match(settingsHelp(), /\(env PAYWALLD_DB, else\s+DATABASE_URL,\s+default data\/paywalld\.db\)/);
  assert.match(settingsTable(), /\| `--db` \| `PAYWALLD_DB`, else `DATABASE_URL` \|/);
});
