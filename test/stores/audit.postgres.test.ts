/**
 * The audit log's contract, on every backend: an entry is written in the
 * transaction of the change it records (neither without the other), never
 * edited, read newest first with filters and a cursor, pruned by age only.
 */
import assert from 'node:assert/strict';
import type { Change } from '../../src/shared/change.ts';
import { STALE } from '../../src/shared/stale.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { example } from '../helpers/example-paywall.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const alice: Change = { actor: { type: 'user', id: 'usr_alice', label: 'alice@example.com' }, ip: '192.0.2.7' };
const monthly = { name: 'Monthly', store_ids: {} };

async function all(storage: Storage) {
  return storage.audit.list({ limit: 1000 });
}

storeTest('a change and its entry commit together: when the entry cannot be written, the change is not made', async (storage, backend) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const entries = (await all(storage)).length;
  const undo = await backend.refuseInserts(storage, 'audit_log');
  await assert.rejects(storage.products.write(project.id, 'monthly', monthly, undefined, alice));
  await assert.rejects(storage.keys.create(project.id, 'sdk', '', alice));
  await assert.rejects(storage.integrations.put(project.id, 'revenuecat', { authorization: 'x' }, Date.now(), alice));
  await assert.rejects(storage.projects.create('q', alice));
  const revision = { name: 'Onboarding', document: JSON.stringify(example()), products: [] };
  await assert.rejects(storage.paywalls.addRevision(project.id, 'onboarding', revision, undefined, alice));
  await undo();
  assert.equal(await storage.products.get(project.id, 'monthly'), undefined);
  assert.equal((await storage.keys.list(project.id)).length, 2, "only the project's own two keys");
  assert.equal(await storage.integrations.get(project.id, 'revenuecat'), undefined);
  assert.equal((await storage.projects.list()).length, 1);
  assert.equal(await storage.paywalls.get(project.id, 'onboarding'), undefined);
  assert.equal((await all(storage)).length, entries);
});

storeTest('a change refused writes no entry; each change made writes one, naming who, what and from where', async (storage, backend) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const undo = await backend.refuseInserts(storage, 'products');
  await assert.rejects(storage.products.write(project.id, 'monthly', monthly, undefined, alice));
  await undo();
  assert.equal(await storage.products.write(project.id, 'monthly', monthly, 3, alice), STALE);
  const entries = await all(storage);
  assert.deepEqual(
    entries.map((e) => e.action),
    ['project.created'],
  );
  assert.notEqual(await storage.products.write(project.id, 'monthly', monthly, undefined, alice), STALE);
  const [entry] = await all(storage);
  assert.equal(entry!.action, 'product.written');
  assert.equal(entry!.project, project.id);
  assert.deepEqual(entry!.actor, alice.actor);
  assert.deepEqual(entry!.target, { type: 'product', id: 'monthly' });
  assert.equal(entry!.ip, '192.0.2.7');
  assert.equal(entry!.summary, 'created product monthly (Monthly)');
  assert.ok(Math.abs(entry!.at - Date.now()) < 60_000);
});

storeTest('entries are read newest first, filtered, a page at a time; never edited; pruned by age alone', async (storage, backend) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const other = await storage.projects.create('q', alice);
  for (const id of ['a', 'b', 'c', 'd']) await storage.products.write(project.id, id, monthly, undefined, id === 'c' ? alice : TEST_CHANGE);
  await storage.products.delete(project.id, 'a', 1, alice);
  const mine = await storage.audit.list({ project: project.id, limit: 100 });
  assert.deepEqual(
    mine.map((e) => `${e.action} ${e.target.id}`),
    ['product.deleted a', 'product.written d', 'product.written c', 'product.written b', 'product.written a', `project.created ${project.id}`],
  );
  assert.ok(mine.every((e, i) => i === 0 || e.seq < mine[i - 1]!.seq));
  assert.deepEqual(
    (await storage.audit.list({ project: project.id, actor: 'usr_alice', limit: 100 })).map((e) => e.target.id),
    ['a', 'c'],
  );
  assert.deepEqual((await storage.audit.list({ action: 'product.deleted', limit: 100 })).length, 1);
  assert.deepEqual((await storage.audit.list({ target: 'b', limit: 100 })).length, 1);
  assert.deepEqual(
    (await storage.audit.list({ project: other.project.id, limit: 100 })).map((e) => e.action),
    ['project.created'],
  );
  const first = await storage.audit.list({ project: project.id, limit: 2 });
  const second = await storage.audit.list({ project: project.id, limit: 2, before: first.at(-1)!.seq });
  assert.deepEqual(
    second.map((e) => e.target.id),
    ['c', 'b'],
  );
  assert.deepEqual(await storage.audit.list({ project: project.id, since: Date.now() + 60_000, limit: 10 }), []);
  assert.equal((await storage.audit.list({ project: project.id, until: Date.now() - 60_000, limit: 10 })).length, 0);

  // Never edited: the database itself refuses.
  await assert.rejects(backend.run(storage, "UPDATE audit_log SET summary = 'edited'"), /never edited/);
  assert.equal(await storage.audit.prune(Date.now() - 60_000), 0, 'nothing is that old');
  const count = (await all(storage)).length;
  assert.equal(await storage.audit.prune(Date.now() + 60_000), count);
  assert.deepEqual(await all(storage), []);
});
