/** The integration store's contract, on every backend: one configuration per project and provider, replaced whole. */
import assert from 'node:assert/strict';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

storeTest('put creates or replaces the configuration of a provider; get reads it back with its time, per project', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  assert.equal(await storage.integrations.get(project.id, 'stripe'), undefined);
  await storage.integrations.put(project.id, 'stripe', { signing_secret: 'whsec_1' }, 100, TEST_CHANGE);
  assert.deepEqual(await storage.integrations.get(project.id, 'stripe'), { config: { signing_secret: 'whsec_1' }, updatedAt: 100 });
  await storage.integrations.put(project.id, 'stripe', { signing_secret: 'whsec_2', nested: { list: [1, 'x'] } }, 200, TEST_CHANGE);
  assert.deepEqual(await storage.integrations.get(project.id, 'stripe'), { config: { signing_secret: 'whsec_2', nested: { list: [1, 'x'] } }, updatedAt: 200 });
  assert.equal(await storage.integrations.get(project.id, 'revenuecat'), undefined);
  assert.equal(await storage.integrations.get(other.id, 'stripe'), undefined);
});

storeTest('userOfCustomer answers undefined for a customer no batch named', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  assert.equal(await storage.integrations.userOfCustomer(project.id, 'stripe', 'cus_unknown'), undefined);
});
