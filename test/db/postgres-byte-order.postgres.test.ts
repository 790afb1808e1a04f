/**
 * Lists ordered by id come in byte order on PostgreSQL, as SQLite sorts
 * them, whatever the database's collation: the schema sets COLLATE "C" on
 * those ids once (src/db/postgres/migrations/baseline.ts), and no query
 * says it. Checked on a database whose default collation is ICU's en-US,
 * which sorts `_x`, `a`, `B`, `b`, `Z` where bytes sort `B`, `Z`, `_x`, `a`, `b`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import postgres from 'postgres';
import { closePool, openPool } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { openPostgresStorage } from '../../src/storage/postgres.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { POSTGRES, postgresCluster } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

const IDS = ['b', 'Z', '_x', 'B', 'a'];
const BYTE_ORDER = ['B', 'Z', '_x', 'a', 'b'];

test('products, paywalls and webhooks are listed by id in byte order on a database of another collation', needs(POSTGRES), async (t) => {
  const cluster = await postgresCluster();
  const name = `icu_${process.pid}`;
  const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
  t.after(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end({ timeout: 1 });
  });
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`);
  const sql = openPool(cluster.url(name));
  const storage = openPostgresStorage(sql);
  t.after(() => closePool(sql));
  // The database itself sorts otherwise: else this test would show nothing.
  const values = IDS.map((id) => `('${id}')`).join(', ');
  const sorted = await sql.unsafe<{ x: string }[]>(`SELECT x FROM (VALUES ${values}) AS v(x) ORDER BY x`);
  assert.notDeepEqual(
    sorted.map((row) => row.x),
    BYTE_ORDER,
  );

  await migratePostgres(sql);
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  for (const id of IDS) {
    await storage.products.write(project.id, id, { name: id, store_ids: {} }, undefined, TEST_CHANGE);
    await storage.paywalls.addRevision(project.id, id, { name: id, document: JSON.stringify({ name: id }), products: [] }, undefined, TEST_CHANGE);
    // One time for all: the list is ordered by creation time, then id.
    await storage.webhooks.put(project.id, id, { url: 'https://203.0.113.7/hook', events: ['key.created'], enabled: true }, 'whsec_c2VjcmV0', 1, TEST_CHANGE);
  }
  assert.deepEqual(
    (await storage.products.list(project.id)).map((stored) => stored.product.id),
    BYTE_ORDER,
  );
  assert.deepEqual(
    (await storage.paywalls.list(project.id)).map((row) => row.id),
    BYTE_ORDER,
  );
  assert.deepEqual(
    (await storage.webhooks.list(project.id)).map((row) => row.id),
    BYTE_ORDER,
  );
});
