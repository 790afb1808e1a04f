/**
 * Configuration changes in PostgreSQL bump the generation and announce it on
 * `paywalld_config` when they commit (migration 4), with the instance that
 * made them (migration 11); events, rolled-back changes and statements that
 * change no row do neither.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closePool, openPool } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { POSTGRES, postgresDatabase, testPool } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { until } from '../helpers/until.ts';

test(
  'each configuration statement that commits a change bumps the generation once and notifies it; events, rollbacks and statements that change nothing do not',
  needs(POSTGRES),
  async (t) => {
    const { url } = await postgresDatabase(t);
    // A serve process's pool names its instance; the CLI's (testPool) names none.
    const sql = openPool(url, { instance: 'instance-a' });
    t.after(() => closePool(sql));
    const listener = testPool(t, url, 1);
    await migratePostgres(sql);
    const heard: string[] = [];
    await listener.listen('paywalld_config', (payload) => heard.push(payload));
    const generation = async () => (await sql<{ generation: number }[]>`SELECT generation FROM config_generation`)[0]!.generation;

    await sql`INSERT INTO projects (id, name, created_at) VALUES ('p', 'P', 1)`;
    await sql`INSERT INTO api_keys (id, project_id, scope, prefix, hash, created_at) VALUES ('k1', 'p', 'sdk', 'x', 'h1', 1), ('k2', 'p', 'secret', 'y', 'h2', 1)`;
    await sql`INSERT INTO products (project_id, id, name, store_ids, version, created_at, updated_at) VALUES ('p', 'pro', 'Pro', '{}', 1, 1, 1)`;
    await sql`INSERT INTO paywalls (project_id, id, name, latest_revision, version, created_at, updated_at) VALUES ('p', 'pw', 'PW', 1, 1, 1, 1)`;
    await sql`INSERT INTO paywall_revisions (project_id, paywall_id, revision, document, created_at) VALUES ('p', 'pw', 1, '{}', 1)`;
    await sql`UPDATE api_keys SET revoked_at = 2 WHERE project_id = 'p'`;
    await until(() => heard.length === 6, 'six notifications');
    assert.deepEqual(
      heard,
      ['1', '2', '3', '4', '5', '6'].map((generation) => `${generation} instance-a`),
    );
    assert.equal(await generation(), 6);

    await sql`UPDATE products SET version = version + 1 WHERE id = 'no such product'`;
    await sql`INSERT INTO events (project_id, paywall_id, type, ts, client_ts, received_at, event_id) VALUES ('p', 'pw', 'screen_impression', 1, 1, 1, 'e')`;
    await sql
      .begin(async (tx) => {
        await tx`DELETE FROM products WHERE id = 'pro'`;
        throw new Error('rolled back');
      })
      .catch(() => {});
    // A later change's notification arrives after anything the statements above could have sent.
    await testPool(t, url, 1)`UPDATE paywalls SET version = 2`;
    await until(() => heard.length === 7, 'the seventh notification');
    assert.deepEqual(heard.slice(6), ['7 ']);
    assert.equal(await generation(), 7);
  },
);
