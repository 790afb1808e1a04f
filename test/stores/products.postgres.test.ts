/** The product store's contract, on every backend: writes and deletions happen only at the version the caller read. */
import assert from 'node:assert/strict';
import { STALE } from '../../src/shared/stale.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const monthly = { name: 'Monthly', store_ids: { app_store: 'com.acme.monthly' } };

storeTest('write creates at version 1, replaces at the version read, and answers STALE (writing nothing) at any other', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const created = await storage.products.write(project.id, 'monthly', monthly, undefined, TEST_CHANGE);
  assert.notEqual(created, STALE);
  if (created === STALE) return;
  assert.equal(created.created, true);
  assert.equal(created.stored.version, 1);
  assert.deepEqual(created.stored.product.store_ids, monthly.store_ids);
  assert.equal(created.stored.product.id, 'monthly');

  assert.equal(await storage.products.write(project.id, 'monthly', { ...monthly, name: 'Lost' }, undefined, TEST_CHANGE), STALE, 'it exists');
  assert.equal(await storage.products.write(project.id, 'monthly', { ...monthly, name: 'Lost' }, 7, TEST_CHANGE), STALE, 'not at version 7');
  const replaced = await storage.products.write(project.id, 'monthly', { name: 'Monthly Pro', store_ids: {} }, 1, TEST_CHANGE);
  assert.ok(replaced !== STALE);
  assert.equal(replaced.created, false);
  assert.equal(replaced.stored.version, 2);
  assert.equal(replaced.stored.product.created_at, created.stored.product.created_at);
  assert.deepEqual(await storage.products.get(project.id, 'monthly'), replaced.stored);
  assert.equal(await storage.products.write(project.id, 'yearly', monthly, 1, TEST_CHANGE), STALE, 'a product that does not exist is not at version 1');
  assert.equal(await storage.products.get(project.id, 'yearly'), undefined);
});

storeTest('delete at the version read hides the product; written again it is created, its version still growing', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  await storage.products.write(project.id, 'monthly', monthly, undefined, TEST_CHANGE);
  assert.equal(await storage.products.delete(project.id, 'monthly', 2, TEST_CHANGE), STALE);
  assert.equal((await storage.products.get(project.id, 'monthly'))?.version, 1, 'a stale delete deleted nothing');
  assert.equal(await storage.products.delete(project.id, 'monthly', 1, TEST_CHANGE), undefined);
  assert.equal(await storage.products.get(project.id, 'monthly'), undefined);
  assert.deepEqual(await storage.products.list(project.id), []);
  assert.equal(await storage.products.delete(project.id, 'monthly', 1, TEST_CHANGE), STALE, 'deleted already');
  const again = await storage.products.write(project.id, 'monthly', monthly, undefined, TEST_CHANGE);
  assert.ok(again !== STALE);
  assert.equal(again.created, true);
  assert.equal(again.stored.version, 3);
});

storeTest("list holds the project's live products by id, and no other project's", async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  for (const id of ['b', 'a', 'c']) await storage.products.write(project.id, id, monthly, undefined, TEST_CHANGE);
  await storage.products.write(other.id, 'z', monthly, undefined, TEST_CHANGE);
  await storage.products.delete(project.id, 'c', 1, TEST_CHANGE);
  assert.deepEqual(
    (await storage.products.list(project.id)).map((stored) => [stored.product.id, stored.version]),
    [
      ['a', 1],
      ['b', 1],
    ],
  );
  assert.equal(await storage.products.get(other.id, 'a'), undefined);
});

storeTest(
  "delete refuses a product a live revision puts in a slot, its own or a variant's, naming the paywalls; archived or draft uses do not count",
  async (storage) => {
    const { project } = await storage.projects.create('p', TEST_CHANGE);
    for (const id of ['monthly', 'yearly', 'spare']) await storage.products.write(project.id, id, monthly, undefined, TEST_CHANGE);
    const design = { variants: [{ id: 'a', weight: 100, holdout: false }], audiences: [] };
    const live = async (paywallId: string, document: object, products: string[]) => {
      const row = await storage.paywalls.addRevision(
        project.id,
        paywallId,
        { name: paywallId, document: JSON.stringify(document), products },
        undefined,
        TEST_CHANGE,
      );
      assert.ok(row !== STALE);
      const options = { forceNew: false, reseed: true };
      const published = await storage.paywalls.publish(project.id, paywallId, { revision: 1, design, options, products, now: 1 }, row.version, TEST_CHANGE);
      assert.ok(published !== STALE);
      return published.row;
    };
    await live('b_top', { name: 'b', slots: { primary: 'monthly' } }, ['monthly']);
    await live(
      'a_variant',
      {
        name: 'a',
        variants: [
          { id: 'x', slots: { primary: 'monthly' } },
          { id: 'y', slots: { other: 'yearly' } },
        ],
      },
      ['monthly', 'yearly'],
    );
    const archived = await live('c_archived', { name: 'c', slots: { primary: 'spare' } }, ['spare']);
    assert.ok((await storage.paywalls.archive(project.id, 'c_archived', archived.version, TEST_CHANGE)) !== STALE);
    const draft = await storage.paywalls.addRevision(
      project.id,
      'b_top',
      { name: 'b', document: JSON.stringify({ name: 'b', slots: { p: 'spare' } }), products: ['spare'] },
      2,
      TEST_CHANGE,
    );
    assert.ok(draft !== STALE);

    assert.deepEqual(await storage.products.delete(project.id, 'monthly', 1, TEST_CHANGE), { usedBy: ['a_variant', 'b_top'] });
    assert.deepEqual(await storage.products.delete(project.id, 'yearly', 1, TEST_CHANGE), { usedBy: ['a_variant'] });
    assert.equal((await storage.products.get(project.id, 'monthly'))?.version, 1, 'a refused delete changed nothing');
    assert.equal(await storage.products.delete(project.id, 'monthly', 7, TEST_CHANGE), STALE, 'the version is checked first');
    assert.equal(await storage.products.delete(project.id, 'spare', 1, TEST_CHANGE), undefined);
  },
);
