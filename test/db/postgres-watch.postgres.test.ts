/**
 * Configuration changes across instances on PostgreSQL
 * (src/db/postgres/watch.ts): a change committed through one connection
 * reaches another's onChange through LISTEN (how soon, the 1 s promise of
 * docs/operations/scale-out.md, is measured by `npm run bench -- --postgres --only
 * propagation`; a test waits up to 10 s); with the listening
 * connection terminated, the periodic check still sees changes, and LISTEN
 * comes back by itself, also after PostgreSQL restarts. An instance's own
 * changes are not announced to itself.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPool, type Sql } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { watchPostgresConfigChanges } from '../../src/db/postgres/watch.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { until } from '../helpers/until.ts';

/** Longer than any test here: a change seen within it came through LISTEN (or the catch-up when LISTEN is re-established). */
const NEVER = 600_000;

let products = 0;
async function changeConfiguration(sql: Sql): Promise<void> {
  await sql`INSERT INTO products (project_id, id, name, store_ids, version, created_at, updated_at) VALUES ('p', ${`product${++products}`}, 'P', '{}', 1, 1, 1)`;
}

async function listenerPids(sql: Sql, database: string): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = ${database} AND query ILIKE 'listen %paywalld_config%'`;
  return rows.map((row) => row.pid).sort();
}

test('a change committed on one connection calls onChange on another through LISTEN; nothing after stop', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const writer = testPool(t, url);
  await migratePostgres(writer);
  await writer`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`;
  let changes = 0;
  const stop = await watchPostgresConfigChanges(testPool(t, url), { checkEveryMs: NEVER, onChange: () => changes++ });

  for (let expected = 1; expected <= 3; expected++) {
    await changeConfiguration(writer);
    await until(() => changes === expected, `change ${expected} heard`);
  }
  // Events and a statement that changes no configuration row are not changes.
  await writer`INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at) VALUES ('p', 'pw', 'screen_impression', 1, 1, 1)`;
  await writer`UPDATE products SET version = 2 WHERE id = 'no such product'`;
  await changeConfiguration(writer);
  await until(() => changes === 4, 'the next change heard');

  await stop();
  await changeConfiguration(writer);
  // A later notification on a listener of our own: by then the watch would have heard the change.
  const probe = testPool(t, url, 1);
  let heard = 0;
  await probe.listen('paywalld_config', () => heard++);
  await changeConfiguration(writer);
  await until(() => heard === 1, 'the probe heard the last change');
  assert.equal(changes, 4);
});

test('with its listening connection terminated, the periodic check sees a change, and LISTEN comes back by itself', needs(POSTGRES), async (t) => {
  const { url, name, cluster } = await postgresDatabase(t);
  const writer = testPool(t, url, 1);
  const admin = testPool(t, cluster.url('postgres'), 1);
  await migratePostgres(writer);
  await writer`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`;
  // Two instances: one that checks every 200 ms, one that only listens (its check would come after the test).
  let checked = 0;
  let listened = 0;
  const stopChecking = await watchPostgresConfigChanges(testPool(t, url, 1), { checkEveryMs: 200, onChange: () => checked++ });
  const stopListening = await watchPostgresConfigChanges(testPool(t, url, 1), { checkEveryMs: NEVER, onChange: () => listened++ });
  const before = await listenerPids(writer, name);
  assert.equal(before.length, 2);

  // The listeners cannot come back while the database takes no new connection; the pools keep theirs.
  await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  t.after(() => admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {}));
  await writer`SELECT pg_terminate_backend(pid) FROM unnest(${before}::int[]) AS pid`;
  await until(async () => (await listenerPids(writer, name)).length === 0, 'both listeners gone');

  await changeConfiguration(writer);
  await until(() => checked === 1, 'the periodic check saw the change');
  assert.equal(listened, 0, 'nothing but the periodic check could have seen it');
  assert.deepEqual(await listenerPids(writer, name), []);

  await admin.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  await until(async () => (await listenerPids(writer, name)).length === 2, 'both listeners back', 30_000);
  assert.equal((await listenerPids(writer, name)).filter((pid) => before.includes(pid)).length, 0, 'on new connections');
  // Coming back, the listening-only instance reads what it missed.
  await until(() => listened === 1, 'the missed change read when LISTEN came back');

  await changeConfiguration(writer);
  await until(() => listened === 2, 'a change heard through the new LISTEN');
  await until(() => checked === 2, 'and by the other instance');
  await Promise.all([stopChecking(), stopListening()]);
});

test('after PostgreSQL restarts, LISTEN comes back by itself and hears the next change', needs(POSTGRES), async (t) => {
  const { url, name, cluster } = await postgresDatabase(t);
  const writer = testPool(t, url, 1);
  await migratePostgres(writer);
  await writer`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`;
  let listened = 0;
  const stop = await watchPostgresConfigChanges(testPool(t, url, 1), { checkEveryMs: NEVER, onChange: () => listened++ });
  t.after(() => (cluster.running ? undefined : cluster.start()));

  cluster.stop('fast');
  cluster.start();
  // The writer's pool reconnects on its next query (the first may fail on the old connection); the listener on its own.
  await until(async () => (await listenerPids(writer, name).catch(() => [])).length === 1, 'the listener back after the restart', 30_000);
  await changeConfiguration(writer);
  await until(() => listened === 1, 'a change heard through the new LISTEN');
  await stop();
});

test("an instance's own changes call no onChange; another instance's and the CLI's do, also right after its own", needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const own = openPool(url, { size: 1, instance: 'instance-a' });
  const other = openPool(url, { size: 1, instance: 'instance-b' });
  const cli = testPool(t, url, 1);
  t.after(() => Promise.all([own.end(), other.end()]));
  await migratePostgres(cli);
  await cli`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`;
  let changes = 0;
  const stop = await watchPostgresConfigChanges(testPool(t, url, 1), { checkEveryMs: NEVER, onChange: () => changes++, instance: 'instance-a' });
  t.after(stop);
  // Every notification reaches a listener of our own, in commit order: once it heard the last, the watch has heard them all.
  const probe = testPool(t, url, 1);
  const heard: string[] = [];
  await probe.listen('paywalld_config', (payload) => heard.push(payload));
  const settled = (count: number) => until(() => heard.length === count, `${count} notifications`);

  await changeConfiguration(own);
  await own.begin(async (tx) => {
    // Two statements, two generations, one commit: both are this instance's.
    await changeConfiguration(tx as unknown as Sql);
    await changeConfiguration(tx as unknown as Sql);
  });
  await settled(3);
  assert.deepEqual(
    heard.map((payload) => payload.split(' ')[1]),
    ['instance-a', 'instance-a', 'instance-a'],
  );
  assert.equal(changes, 0);

  await changeConfiguration(other);
  await until(() => changes === 1, "the other instance's change heard");
  await changeConfiguration(own);
  await changeConfiguration(cli);
  await until(() => changes === 2, "the CLI's change heard");
  await settled(6);
  // The CLI names no instance.
  assert.equal(heard.at(-1)!.split(' ')[1], '');
  assert.equal(changes, 2);
});
