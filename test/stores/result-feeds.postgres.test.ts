/**
 * What experiment results read beside the events, on every backend: the
 * purchase records and identity links stored after a seq, in order of
 * storage, and the feeds that read them on from where they stopped
 * (src/purchases/record-feed.ts, src/identity/link-feed.ts), one algorithm
 * for both.
 */
import assert from 'node:assert/strict';
import { LinkFeed } from '../../src/identity/link-feed.ts';
import { PurchaseRecordFeed } from '../../src/purchases/record-feed.ts';
import type { PurchaseRecord } from '../../src/purchases/schema.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

function record(id: string, userId: string, change: Partial<PurchaseRecord> = {}): PurchaseRecord {
  return {
    source: 'api',
    id,
    userId,
    type: 'initial_purchase',
    ts: 1_700_000_000_000,
    productId: 'pro',
    store: null,
    storeProductId: null,
    revenue: 9.99,
    currency: 'EUR',
    transactionId: null,
    originalTransactionId: null,
    paywallId: null,
    ...change,
  };
}

async function link(storage: Storage, projectId: string, anonymousId: string, userId: string, now = Date.now()): Promise<void> {
  await storage.identity.link([{ projectId, anonymousId, userId, secret: true }], now);
}

storeTest("recordsAfter gives the project's records after a seq, in order of storage, at most the limit", async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  await storage.purchases.insert(project.id, {
    records: [record('a', 'alice'), record('b', 'alice', { type: 'refund', revenue: 2, paywallId: 'pw' })],
    receivedAt: 1,
  });
  await storage.purchases.insert(other.id, { records: [record('a', 'olga')], receivedAt: 2 });
  await storage.purchases.insert(project.id, { records: [record('c', 'carol')], receivedAt: 3 });
  const all = await storage.purchases.recordsAfter(project.id, 0, 10);
  assert.deepEqual(
    all.map(({ seq, ...rest }) => rest),
    [
      { userId: 'alice', type: 'initial_purchase', ts: 1_700_000_000_000, revenue: 9.99, currency: 'EUR', paywallId: null },
      { userId: 'alice', type: 'refund', ts: 1_700_000_000_000, revenue: 2, currency: 'EUR', paywallId: 'pw' },
      { userId: 'carol', type: 'initial_purchase', ts: 1_700_000_000_000, revenue: 9.99, currency: 'EUR', paywallId: null },
    ],
  );
  assert.ok(all[0]!.seq < all[1]!.seq && all[1]!.seq < all[2]!.seq);
  assert.deepEqual(
    (await storage.purchases.recordsAfter(project.id, all[0]!.seq, 1)).map((r) => r.type),
    ['refund'],
  );
  assert.deepEqual(await storage.purchases.recordsAfter(project.id, all[2]!.seq, 10), []);
});

storeTest("linksAfter gives the project's links after a seq, in order of storage (not time), at most the limit", async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  // Stored in this order, with clocks that went back: storage decides the order, not the time or the id.
  await link(storage, project.id, 'z-device', 'alice', 3000);
  await link(storage, other.id, 'device', 'olga', 2500);
  await link(storage, project.id, 'a-device', 'bob', 2000);
  // A store's aliases are links too, in the same order.
  await storage.purchases.insert(project.id, { records: [record('r', 'carol')], receivedAt: 1, aliases: { ids: ['m-device'], userId: 'carol' } });
  const all = await storage.identity.linksAfter(project.id, 0, 10);
  assert.deepEqual(
    all.map(({ anonymousId, userId }) => [anonymousId, userId]),
    [
      ['z-device', 'alice'],
      ['a-device', 'bob'],
      ['m-device', 'carol'],
    ],
  );
  assert.ok(all[0]!.seq < all[1]!.seq && all[1]!.seq < all[2]!.seq);
  assert.deepEqual(
    (await storage.identity.linksAfter(project.id, all[0]!.seq, 1)).map((l) => l.anonymousId),
    ['a-device'],
  );
  assert.deepEqual(await storage.identity.linksAfter(project.id, all[2]!.seq, 10), []);
});

storeTest('the feeds read on from where they stopped, page by page, and refreshes at once read nothing twice', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const records = new PurchaseRecordFeed(storage.purchases, 2);
  const links = new LinkFeed(storage.identity, 2);
  for (const [i, user] of ['u1', 'u2', 'u3', 'u4', 'u5'].entries()) {
    await storage.purchases.insert(project.id, { records: [record(`r${i}`, user)], receivedAt: i });
    await link(storage, project.id, `device-${i}`, user);
  }
  await Promise.all([records.refresh(project.id), records.refresh(project.id), links.refresh(project.id), links.refresh(project.id)]);
  const read = records.since(project.id, 0);
  assert.deepEqual(
    read.map((r) => r.userId),
    ['u1', 'u2', 'u3', 'u4', 'u5'],
  );
  assert.deepEqual(
    links.links(project.id).list,
    ['u1', 'u2', 'u3', 'u4', 'u5'].map((user, i) => [`device-${i}`, user]),
  );
  assert.deepEqual(
    records.since(project.id, read[2]!.seq).map((r) => r.userId),
    ['u4', 'u5'],
  );
  const list = links.links(project.id);
  await storage.purchases.insert(project.id, { records: [record('r9', 'u9')], receivedAt: 9 });
  await link(storage, project.id, 'device-9', 'u9');
  await records.refresh(project.id);
  await links.refresh(project.id);
  assert.equal(records.since(project.id, read[4]!.seq).length, 1);
  assert.equal(links.links(project.id), list, 'the same object, appended to');
  assert.deepEqual(list.list.at(-1), ['device-9', 'u9']);
  // Another project's feed is its own.
  assert.deepEqual(records.since('other', 0), []);
  assert.deepEqual(links.links('other').list, []);
});
