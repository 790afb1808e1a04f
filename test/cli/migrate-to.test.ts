/**
 * `paywalld migrate-to`: a SQLite database built through the real server is
 * copied into a real PostgreSQL through the real CLI, every table compared
 * row for row; a target that holds data, a source a serve holds and a
 * source at an older schema are refused, nothing written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import type { Sql } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { COPIED_TABLES, POSTGRES_TABLES_LEFT, SQLITE_TABLES_LEFT } from '../../src/storage/copy-from-sqlite.ts';
import { runCli, spawnServe } from '../helpers/cli.ts';
import { ingest } from '../helpers/events.ts';
import { api } from '../helpers/paywalls.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const SECRET = 'hunter2-s3cret';
const CLEAN = { PAYWALLD_DB: '', DATABASE_URL: '' };

function paywall(weights: [number, number]) {
  return {
    name: 'Onboarding',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'text', props: { text_key: 'title' } }] },
    variants: [
      { id: 'control', weight: weights[0] },
      { id: 'treatment', weight: weights[1] },
    ],
  };
}

async function post(url: string, key: string, body: unknown): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.text());
}

/** A database with a row in every table a server and the CLI write: built through them, then the server stopped. */
async function buildSqliteDatabase(t: Parameters<typeof tempDir>[0]): Promise<{ file: string; stopServe: () => Promise<number | null>; check: () => void }> {
  const dir = tempDir(t);
  const file = path.join(dir, 'paywalld.db');
  const keysFile = path.join(dir, 'keys.json');
  const server = await spawnServe(t, ['--db', file, '--keys-file', keysFile], { env: CLEAN });
  const { project, keys } = JSON.parse(fs.readFileSync(keysFile, 'utf8'));
  const client = api({ url: server.url, keys });

  const extra = await runCli(['keys', 'create', '--project', project.id, '--scope', 'sdk', '--json', '--db', file], { env: CLEAN });
  assert.equal(extra.status, 0, extra.stderr);
  assert.equal((await runCli(['keys', 'revoke', JSON.parse(extra.stdout).id, '--db', file], { env: CLEAN })).status, 0);
  await client.putProduct('pro_annual', { name: 'Pro Annual', store_ids: { app_store: 'com.acme.pro.annual', stripe: 'price_annual' } });
  await client.putPaywall('onboarding', paywall([50, 50]));
  await client.publish('onboarding');
  await client.putPaywall('onboarding', paywall([70, 30]));
  await client.publish('onboarding');

  const ts = Date.now();
  const events = Array.from({ length: 40 }, (_, i) => ({
    type: i % 4 === 3 ? 'purchase_complete' : 'screen_impression',
    paywall_id: 'onboarding',
    ts: ts + i,
    id: `event-${i}`,
    user_id: i % 2 === 0 ? 'alice' : 'anon-1',
    variant_id: i % 3 === 0 ? 'control' : 'treatment',
    ...(i % 4 === 3 ? { product_id: 'pro_annual', revenue: 9.99, currency: 'EUR', properties: { 'nested é': [1, 'two'] } } : {}),
    // What COPY's text format escapes: backslashes, tabs and line ends (JSON keeps them escaped, the backslash stays).
    ...(i === 0 ? { user_id: 'tab\there\\n\nline\r', properties: { path: 'C:\\dir\\new' } } : {}),
  }));
  assert.equal((await ingest(server.url, keys.sdk, { events })).accepted, 40);
  await post(`${server.url}/api/purchases`, keys.secret, {
    purchases: [
      {
        id: 'renewal-1',
        user_id: 'alice',
        type: 'renewal',
        ts,
        store: 'app_store',
        store_product_id: 'com.acme.pro.annual',
        revenue: 59.99,
        currency: 'EUR',
        original_transaction_id: '2000000123',
      },
      { id: 'refund-1', user_id: 'alice', type: 'refund', ts: ts + 1, product_id: 'pro_annual', revenue: 0.5, currency: 'USD' },
    ],
  });
  await post(`${server.url}/api/sdk/identify`, keys.sdk, { anonymous_id: 'anon-1', user_id: 'alice' });
  const integration = await client.request('PUT', '/api/integrations/revenuecat', {
    body: { authorization: 'Bearer a-long-random-value-you-also-give-revenuecat' },
  });
  assert.equal(integration.status, 200, await integration.text());
  return {
    file,
    stopServe: () => server.stop(),
    check: () => assert.equal(server.child.exitCode, null, 'serve still running'),
  };
}

async function postgresTables(sql: Sql): Promise<string[]> {
  return (await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`)
    .map((r) => r.name)
    .sort();
}

/** Every row of `table` in both databases, as JSON text sorted: the column list is PostgreSQL's, values as each driver gives them. */
async function bothSides(db: ReturnType<typeof openDatabase>, sql: Sql, table: string): Promise<[string[], string[]]> {
  const columns = (
    await sql<
      { name: string }[]
    >`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`
  ).map((r) => r.name);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const normalize = (rows: unknown[][]) => rows.map((row) => JSON.stringify(row)).sort();
  const sqlite = normalize(db.prepare(`SELECT ${list} FROM ${table}`).raw().all() as unknown[][]);
  const postgres = normalize((await sql.unsafe(`SELECT ${list} FROM ${table}`).values()) as unknown[][]);
  return [sqlite, postgres];
}

test('migrate-to copies every table of a SQLite database built through the server; a second run is refused', needs(POSTGRES), async (t) => {
  const source = await buildSqliteDatabase(t);
  const { url } = await postgresDatabase(t);
  const target = url.replace('postgres://postgres@', `postgres://postgres:${SECRET}@`);

  // While serve runs on the file, it is refused: the copy would miss what serve takes meanwhile.
  const busy = await runCli(['migrate-to', target, '--from', source.file], { env: CLEAN });
  assert.equal(busy.status, 1, busy.stderr);
  assert.match(busy.stderr, /in use by another paywalld serve \(pid \d+\)/);
  source.check();
  assert.equal(await source.stopServe(), 0);
  const sql = testPool(t, url);
  assert.deepEqual(await postgresTables(sql), [], 'nothing was written while refused');

  const result = await runCli(['migrate-to', target, '--from', source.file], { env: CLEAN });
  assert.equal(result.status, 0, result.stderr);
  assert.ok(!(result.stdout + result.stderr).includes(SECRET));
  const printed = Object.fromEntries([...result.stdout.matchAll(/^(\w+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
  assert.deepEqual(Object.keys(printed), [...COPIED_TABLES]);
  assert.match(result.stdout, /Copied \d+ rows from .*paywalld\.db to postgres:\/\/postgres:\*\*\*@/);

  // Every table is either copied or left out on purpose, on both sides.
  const db = openDatabase(source.file, { mustExist: true });
  t.after(() => db.close());
  const sqliteTables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]).sort();
  assert.deepEqual(sqliteTables, [...COPIED_TABLES, ...SQLITE_TABLES_LEFT].sort());
  assert.deepEqual(await postgresTables(sql), [...COPIED_TABLES, ...POSTGRES_TABLES_LEFT].sort());

  for (const table of COPIED_TABLES) {
    const [sqlite, postgres] = await bothSides(db, sql, table);
    assert.deepEqual(postgres, sqlite, table);
    assert.equal(printed[table], sqlite.length, table);
  }
  // The database was filled in every table the server and the CLI write.
  for (const table of ['projects', 'api_keys', 'products', 'paywalls', 'paywall_phases', 'purchases', 'user_links', 'integrations']) {
    assert.ok(printed[table]! > 0, `${table} has rows`);
  }
  assert.equal(printed.paywall_revisions, 2);
  assert.equal(db.prepare(`SELECT count(*) FROM events WHERE user_id = 'tab\there\\n\nline\r'`).pluck().get(), 1);
  assert.equal(printed.events, 40);
  assert.equal(printed.api_keys, 3);

  // New rows are numbered past the copied ones.
  const [event] = await sql<{ seq: number }[]>`
    INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at) VALUES ('p', 'pw', 'screen_impression', 1, 1, 1) RETURNING seq`;
  const [sqliteMax] = db.prepare('SELECT max(seq) FROM events').raw().all() as [number][];
  assert.equal(event!.seq, sqliteMax![0] + 1);
  await sql`DELETE FROM events WHERE seq = ${event!.seq}`;

  const generation = (await sql<{ generation: number }[]>`SELECT generation FROM config_generation`)[0]!.generation;
  const again = await runCli(['migrate-to', target, '--from', source.file], { env: CLEAN });
  assert.equal(again.status, 1);
  assert.match(
    again.stderr,
    /the PostgreSQL database already holds data \(in projects, api_keys, .*\); migrate-to copies only into an empty database, and wrote nothing/,
  );
  assert.ok(!again.stderr.includes(SECRET));
  for (const table of COPIED_TABLES) {
    const [count] = await sql.unsafe<{ count: number }[]>(`SELECT count(*)::bigint AS count FROM ${table}`);
    assert.equal(count!.count, printed[table], table);
  }
  assert.equal((await sql<{ generation: number }[]>`SELECT generation FROM config_generation`)[0]!.generation, generation);
});

test('migrate-to refuses a source at an older schema and wrong arguments, writing nothing', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const dir = tempDir(t);
  const old = path.join(dir, 'old.db');
  const db = openDatabase(old);
  migrate(db, migrations.slice(0, -1));
  db.close();
  const known = migrations.at(-1)!.version;

  const refused = await runCli(['migrate-to', url, '--from', old], { env: CLEAN });
  assert.equal(refused.status, 1);
  assert.equal(
    refused.stderr,
    `paywalld migrate-to: the SQLite database ${old} is at schema version ${known - 1}, not ${known}; bring it up to date first: paywalld migrate --db ${old}\n`,
  );
  const sql = testPool(t, url);
  assert.deepEqual(await postgresTables(sql), []);

  for (const [args, message] of [
    [['migrate-to', '--from', old], /one postgres:\/\/ \(or postgresql:\/\/\) URL/],
    [['migrate-to', path.join(dir, 'x.db'), '--from', old], /one postgres:\/\//],
    [['migrate-to', url], /needs --from FILE/],
    [['migrate-to', url, '--from', ':memory:'], /--from :memory: is an empty database/],
    [['migrate-to', url, '--from', url], /--from is the SQLite database file to copy, not a URL/],
    [['migrate-to', url, '--from', path.join(dir, 'missing.db')], /missing\.db does not exist/],
  ] as const) {
    const result = await runCli([...args], { env: CLEAN });
    assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
  assert.ok(!fs.existsSync(path.join(dir, 'missing.db')));
  assert.deepEqual(await postgresTables(sql), []);
  // A migrated, empty database is a fine target: the migrations alone are no data.
  await migratePostgres(sql);
  const upToDate = path.join(dir, 'current.db');
  const current = openDatabase(upToDate);
  migrate(current);
  current.close();
  const copied = await runCli(['migrate-to', url, '--from', upToDate], { env: CLEAN });
  assert.equal(copied.status, 0, copied.stderr);
  assert.match(copied.stdout, /^projects +0$/m);
});
