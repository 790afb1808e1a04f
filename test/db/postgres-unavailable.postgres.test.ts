/**
 * PostgreSQL failing under a real pool: what is the database's fault becomes
 * database_unavailable with Retry-After 1 (the connection lost, the server
 * stopped or restarting, out of connections, read-only, busy), a bug stays
 * a bug, and the pool recovers by itself once the server is back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import postgres from 'postgres';
import type { Sql } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { asUnavailable } from '../../src/db/postgres/unavailable.ts';
import { DomainError } from '../../src/shared/errors.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { until } from '../helpers/until.ts';

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('the query succeeded');
}

function assertUnavailable(error: unknown, detail: RegExp): void {
  const mapped = asUnavailable(error);
  assert.ok(mapped instanceof DomainError, `not mapped: ${String(error)}`);
  assert.equal(mapped.code, 'database_unavailable');
  assert.equal(mapped.retryAfterSeconds, 1);
  assert.match(mapped.message, detail);
}

/** Polls `sql` until a query goes through, each failure meanwhile being database_unavailable. */
async function untilAnswers(sql: Sql): Promise<void> {
  await until(async () => {
    try {
      return (await sql`SELECT 1 AS one`)[0]?.one === 1;
    } catch (error) {
      assertUnavailable(error, /cannot be reached/);
      return false;
    }
  }, 'the pool to answer again');
}

test('the pool names itself paywalld and bounds statements and idle transactions', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  const [row] = await sql<{ name: string; statement: string; idle: string }[]>`
    SELECT current_setting('application_name') AS name, current_setting('statement_timeout') AS statement,
           current_setting('idle_in_transaction_session_timeout') AS idle`;
  assert.deepEqual({ ...row }, { name: 'paywalld', statement: '15s', idle: '1min' });
  const [numbers] = await sql<{ big: number }[]>`SELECT 1700000000123::bigint AS big`;
  assert.equal(numbers!.big, 1_700_000_000_123);
});

test(
  'the server stopped: queries in flight and new ones answer database_unavailable; started again, the same pool works without help',
  needs(POSTGRES),
  async (t) => {
    const { cluster, url } = await postgresDatabase(t);
    const sql = testPool(t, url);
    await sql`SELECT 1`;
    const inFlight = failure(sql`SELECT pg_sleep(30)`);
    await until(
      async () => (await sql`SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'`).length === 1,
      'the sleep to run',
    );
    cluster.stop('fast');
    t.after(() => {
      if (!cluster.running) cluster.start();
    });
    assertUnavailable(await inFlight, /cannot be reached/);
    assertUnavailable(await failure(sql`SELECT 1`), /cannot be reached/);

    cluster.start();
    await untilAnswers(sql);
  },
);

test('a connection terminated by an administrator: its query answers database_unavailable, and the pool reconnects by itself', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const sql = testPool(t, url, 1);
  const admin = testPool(t, url, 1);
  const [{ pid }] = (await sql`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
  const sleeping = failure(sql`SELECT pg_sleep(30)`);
  await until(async () => (await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid} AND state = 'active'`).length === 1, 'the sleep to run');
  await admin`SELECT pg_terminate_backend(${pid})`;
  assertUnavailable(await sleeping, /cannot be reached/);
  // The driver may hand the server's admin_shutdown (57P01) to the next query: that one is unavailable too, and the one after goes through.
  await untilAnswers(sql);
});

test('too many connections for the role, and a read-only server, answer database_unavailable', needs(POSTGRES), async (t) => {
  // Roles belong to the cluster, which ends with this process.
  const { name, url } = await postgresDatabase(t);
  const admin = testPool(t, url, 1);
  await migratePostgres(admin);
  const full = `full_${name}`;
  const readOnly = `ro_${name}`;
  await admin.unsafe(`CREATE ROLE ${full} LOGIN CONNECTION LIMIT 0`);
  await admin.unsafe(`CREATE ROLE ${readOnly} LOGIN`);
  await admin.unsafe(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${readOnly}`);
  // What a standby promoted away from, or a server set read-only, answers to writes.
  await admin.unsafe(`ALTER ROLE ${readOnly} SET default_transaction_read_only = on`);

  const refused = testPool(t, url.replace('postgres@', `${full}@`), 1);
  const tooMany = await failure(refused`SELECT 1`);
  assert.equal((tooMany as { code?: string }).code, '53300');
  assertUnavailable(tooMany, /out of memory or connections/);

  const reader = testPool(t, url.replace('postgres@', `${readOnly}@`), 1);
  assert.equal((await reader`SELECT count(*)::int AS n FROM projects`)[0]?.n, 0);
  const write = await failure(reader`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`);
  assert.equal((write as { code?: string }).code, '25006');
  assertUnavailable(write, /read-only/);
});

test('a statement past its time limit answers database_unavailable (busy)', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  const timedOut = await failure(
    sql.begin(async (tx) => {
      await tx`SET LOCAL statement_timeout = 50`;
      await tx`SELECT pg_sleep(5)`;
    }),
  );
  assert.equal((timedOut as { code?: string }).code, '57014');
  assertUnavailable(timedOut, /busy/);
});

test('a bug stays a bug: bad SQL, a broken constraint and other errors are not database_unavailable', needs(POSTGRES), async (t) => {
  const sql = testPool(t, (await postgresDatabase(t)).url);
  await migratePostgres(sql);
  assert.equal(asUnavailable(await failure(sql`SELECT * FROM no_such_table`)), undefined);
  await sql`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`;
  const duplicate = await failure(sql`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`);
  assert.ok(duplicate instanceof postgres.PostgresError);
  assert.equal(asUnavailable(duplicate), undefined);
  assert.equal(asUnavailable(new Error('something else')), undefined);
  assert.equal(asUnavailable(Object.assign(new Error('looks like a code'), { code: '57P01' })), undefined);
});
