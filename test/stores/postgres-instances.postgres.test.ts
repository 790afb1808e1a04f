/**
 * Several instances on one PostgreSQL database: each has a pool of its own,
 * and writes from all of them at the same version, at the same moment, let
 * exactly one through (the others are STALE, and the service reads again),
 * as If-Match across instances needs; the active key limit holds when
 * instances create keys at once; a paywall created at once by two is
 * created once.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { openPool } from '../../src/db/postgres/connection.ts';
import { migratePostgres } from '../../src/db/postgres/migrate.ts';
import { MAX_ACTIVE_KEYS } from '../../src/keys/store.ts';
import { DomainError } from '../../src/shared/errors.ts';
import { STALE } from '../../src/shared/stale.ts';
import { openPostgresStorage } from '../../src/storage/postgres.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

const INSTANCES = 4;

/** `INSTANCES` storages on one fresh database, each on its own pool, connected before the test races them. */
async function instances(t: TestContext): Promise<Storage[]> {
  const { url } = await postgresDatabase(t);
  const pools = Array.from({ length: INSTANCES }, () => openPool(url));
  await migratePostgres(pools[0]!);
  await Promise.all(pools.map((sql) => sql`SELECT 1`));
  const storages = pools.map(openPostgresStorage);
  t.after(() => Promise.all(storages.map((storage) => storage.close())));
  return storages;
}

const notStale = <T>(results: (T | typeof STALE)[]): T[] => results.filter((result): result is T => result !== STALE);

test('products: writes and deletes at the same version from every instance at once let exactly one through', needs(POSTGRES), async (t) => {
  const storages = await instances(t);
  const { project } = await storages[0]!.projects.create('p', TEST_CHANGE);
  const write = (name: string) => ({ name, store_ids: {} });

  const created = notStale(await Promise.all(storages.map((s, i) => s.products.write(project.id, 'pro', write(`n${i}`), undefined, TEST_CHANGE))));
  assert.equal(created.length, 1);
  const replaced = notStale(await Promise.all(storages.map((s, i) => s.products.write(project.id, 'pro', write(`m${i}`), 1, TEST_CHANGE))));
  assert.equal(replaced.length, 1);
  assert.equal(replaced[0]!.stored.version, 2);
  const deleted = await Promise.all(storages.map((s) => s.products.delete(project.id, 'pro', 2, TEST_CHANGE)));
  assert.equal(deleted.filter((result) => result !== STALE).length, 1);
  assert.equal(await storages[1]!.products.get(project.id, 'pro'), undefined);
});

test('a product deleted on one instance while another publishes a paywall using it: never both', needs(POSTGRES), async (t) => {
  const [publisher, deleter] = await instances(t);
  const { project } = await publisher!.projects.create('p', TEST_CHANGE);
  const design = { variants: [{ id: 'a', weight: 100, holdout: false }], audiences: [] };
  const options = { forceNew: false, reseed: true };
  for (let round = 0; round < 30; round++) {
    const product = `pro_${round}`;
    await publisher!.products.write(project.id, product, { name: 'Pro', store_ids: {} }, undefined, TEST_CHANGE);
    const document = JSON.stringify({ name: 'p', slots: { primary: product } });
    const row = await publisher!.paywalls.addRevision(project.id, `pw_${round}`, { name: 'p', document, products: [product] }, undefined, TEST_CHANGE);
    assert.ok(row !== STALE);
    const [published, deleted] = await Promise.all([
      publisher!.paywalls.publish(project.id, `pw_${round}`, { revision: 1, design, options, products: [product], now: round }, row.version, TEST_CHANGE),
      deleter!.products.delete(project.id, product, 1, TEST_CHANGE),
    ]);
    // One of them sees the other: the publication finds the product gone (STALE), or the deletion finds it live.
    assert.ok((published === STALE) !== (deleted !== undefined), `round ${round}: ${String(published === STALE)} ${JSON.stringify(deleted)}`);
  }
});

test('paywalls: creation, revisions, publication and archiving from every instance at once let exactly one through', needs(POSTGRES), async (t) => {
  const storages = await instances(t);
  const { project } = await storages[0]!.projects.create('p', TEST_CHANGE);
  const revision = (name: string) => ({ name, document: JSON.stringify({ name }), products: [] });
  const design = { variants: [{ id: 'a', weight: 100, holdout: false }], audiences: [] };

  assert.equal(
    notStale(await Promise.all(storages.map((s, i) => s.paywalls.addRevision(project.id, 'pw', revision(`r${i}`), undefined, TEST_CHANGE)))).length,
    1,
  );
  assert.equal(notStale(await Promise.all(storages.map((s, i) => s.paywalls.addRevision(project.id, 'pw', revision(`s${i}`), 1, TEST_CHANGE)))).length, 1);
  assert.equal((await storages[2]!.paywalls.revisions(project.id, 'pw')).length, 2);
  const publications = notStale(
    await Promise.all(
      storages.map((s) =>
        s.paywalls.publish(project.id, 'pw', { revision: 2, design, options: { forceNew: true, reseed: true }, products: [], now: Date.now() }, 2, TEST_CHANGE),
      ),
    ),
  );
  assert.equal(publications.length, 1);
  assert.equal((await storages[3]!.phases.phases(project.id, 'pw')).length, 1, 'one publication, one phase');
  assert.equal(notStale(await Promise.all(storages.map((s) => s.paywalls.archive(project.id, 'pw', 3, TEST_CHANGE)))).length, 1);
  assert.equal((await storages[0]!.paywalls.get(project.id, 'pw'))?.version, 4);
});

test(`keys: instances creating keys at once never take a project past ${MAX_ACTIVE_KEYS} active keys`, needs(POSTGRES), async (t) => {
  const storages = await instances(t);
  const { project } = await storages[0]!.projects.create('p', TEST_CHANGE);
  // The project has 2 keys already; fill it to 2 below the limit.
  for (let i = 2; i < MAX_ACTIVE_KEYS - 2; i++) await storages[i % INSTANCES]!.keys.create(project.id, 'sdk', '', TEST_CHANGE);
  const results = await Promise.allSettled(
    storages.flatMap((s) => [s.keys.create(project.id, 'sdk', '', TEST_CHANGE), s.keys.create(project.id, 'secret', '', TEST_CHANGE)]),
  );
  assert.equal(results.filter((result) => result.status === 'fulfilled').length, 2);
  for (const result of results) {
    if (result.status === 'rejected') assert.ok(result.reason instanceof DomainError && result.reason.code === 'too_many_keys', String(result.reason));
  }
  assert.equal((await storages[1]!.keys.allActive()).length, MAX_ACTIVE_KEYS);
});
