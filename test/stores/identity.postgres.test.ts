/** The identity store's contract, on every backend: the first link of an id wins, the sdk key's rule, and every linked user's appAccountToken is remembered with it. */
import assert from 'node:assert/strict';
import { appAccountToken } from '../../src/identity/app-account-token.ts';
import { type LinkOutcome, MAX_LINKS_PER_USER } from '../../src/identity/store.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

/** One link request; `secret` as the app's backend makes it. */
async function link(storage: Storage, projectId: string, anonymousId: string, userId: string, now: number, secret = false): Promise<LinkOutcome> {
  const [outcome] = await storage.identity.link([{ projectId, anonymousId, userId, secret }], now);
  return outcome!;
}

storeTest('link stores the first link of an anonymous id; a later one answers the user it is linked to', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  assert.deepEqual(await link(storage, project.id, 'anon', 'alice', 1), { userId: 'alice', created: true });
  assert.deepEqual(await link(storage, project.id, 'anon', 'bob', 2), { userId: 'alice', created: false });
  assert.deepEqual(await link(storage, project.id, 'anon', 'alice', 3, true), { userId: 'alice', created: false });
  await link(storage, project.id, 'other-device', 'alice', 4);
  assert.deepEqual([...(await storage.identity.links(project.id))].sort(), [
    ['anon', 'alice'],
    ['other-device', 'alice'],
  ]);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  assert.equal((await storage.identity.links(other.id)).size, 0);
});

storeTest('the requests of one call are linked in order, each seeing those before it, across projects', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  const outcomes = await storage.identity.link(
    [
      { projectId: project.id, anonymousId: 'anon', userId: 'alice', secret: false },
      { projectId: project.id, anonymousId: 'anon', userId: 'bob', secret: false },
      { projectId: other.id, anonymousId: 'anon', userId: 'bob', secret: false },
      // alice is now a user other ids are linked to: the sdk key may not link her.
      { projectId: project.id, anonymousId: 'alice', userId: 'mallory', secret: false },
    ],
    1,
  );
  assert.deepEqual(outcomes, [
    { userId: 'alice', created: true },
    { userId: 'alice', created: false },
    { userId: 'bob', created: true },
    { refused: 'link_needs_secret_key' },
  ]);
});

storeTest('the sdk key may not link an id with purchase records or other ids linked to it; a secret key may; nothing refused is stored', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  await storage.purchases.insert(project.id, {
    records: [
      {
        source: 'api',
        id: 'r1',
        userId: 'alice',
        type: 'initial_purchase',
        ts: 1,
        productId: null,
        store: null,
        storeProductId: null,
        revenue: 9.99,
        currency: 'USD',
        transactionId: null,
        originalTransactionId: null,
        paywallId: null,
      },
    ],
    receivedAt: 1,
  });
  await link(storage, project.id, 'device', 'bob', 2);
  assert.deepEqual(await link(storage, project.id, 'alice', 'mallory', 3), { refused: 'link_needs_secret_key' });
  assert.deepEqual(await link(storage, project.id, 'bob', 'mallory', 3), { refused: 'link_needs_secret_key' });
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('mallory')), undefined);
  assert.deepEqual([...(await storage.identity.links(project.id))], [['device', 'bob']]);
  // What the sdk key may still do: link a fresh id to alice (a second device), or an id already linked (answers the link).
  assert.deepEqual(await link(storage, project.id, 'phone', 'alice', 4), { userId: 'alice', created: true });
  assert.deepEqual(await link(storage, project.id, 'device', 'mallory', 4), { userId: 'bob', created: false });
  // The backend vouches for its own users.
  assert.deepEqual(await link(storage, project.id, 'alice', 'alice-2', 5, true), { userId: 'alice-2', created: true });
  assert.deepEqual(await link(storage, project.id, 'bob', 'carol', 5, true), { userId: 'carol', created: true });
});

storeTest("link remembers both ids' appAccountTokens, found in any case and only in their project", async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  await link(storage, project.id, 'anon', 'alice', 1);
  const token = appAccountToken('alice');
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, token), 'alice');
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, token.toUpperCase()), 'alice');
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('anon')), 'anon');
  assert.equal(await storage.identity.userOfAppAccountToken(other.id, token), undefined);
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('nobody')), undefined);
});

storeTest('a call is one transaction: when a token cannot be stored, no link of it is', async (storage, backend) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const undo = await backend.refuseInserts(storage, 'user_tokens');
  await assert.rejects(
    storage.identity.link(
      [
        { projectId: project.id, anonymousId: 'anon', userId: 'alice', secret: false },
        { projectId: project.id, anonymousId: 'other', userId: 'bob', secret: false },
      ],
      1,
    ),
  );
  await undo();
  assert.equal((await storage.identity.links(project.id)).size, 0);
});

storeTest('catching up with the event users of a project that has none has nothing more to do', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  assert.equal(await storage.identity.catchUpWithEventUsers(project.id), false);
});

storeTest('a user has at most MAX_LINKS_PER_USER links: a new one past it is refused, a store alias past it is not linked', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const requests = Array.from({ length: MAX_LINKS_PER_USER }, (_, i) => ({
    projectId: project.id,
    anonymousId: `device-${i}`,
    userId: 'alice',
    secret: false,
  }));
  const outcomes = await storage.identity.link(requests, 1);
  assert.ok(outcomes.every((outcome) => 'created' in outcome && outcome.created));
  assert.deepEqual(await link(storage, project.id, 'one-more', 'alice', 2), { refused: 'too_many_links' });
  assert.deepEqual(await link(storage, project.id, 'one-more', 'alice', 2, true), { refused: 'too_many_links' }, 'the secret key too');
  // An id linked already still answers its link; another user may still be linked.
  assert.deepEqual(await link(storage, project.id, 'device-0', 'alice', 3), { userId: 'alice', created: false });
  assert.deepEqual(await link(storage, project.id, 'one-more', 'bob', 3), { userId: 'bob', created: true });
  // A store's aliases past the limit: the record is stored, the alias is not linked.
  const stored = await storage.purchases.insert(project.id, {
    records: [
      {
        source: 'revenuecat',
        id: 'rc-1',
        userId: 'alice',
        type: 'initial_purchase',
        ts: 1,
        productId: null,
        store: 'app_store',
        storeProductId: 'pro',
        revenue: 9.99,
        currency: 'USD',
        transactionId: null,
        originalTransactionId: null,
        paywallId: null,
      },
    ],
    receivedAt: 4,
    aliases: { ids: ['alias-device'], userId: 'alice' },
  });
  assert.equal(stored.inserted, 1);
  const links = await storage.identity.links(project.id);
  assert.equal(links.get('alias-device'), undefined);
  assert.equal(links.size, MAX_LINKS_PER_USER + 1);
});
