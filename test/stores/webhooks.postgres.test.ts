/**
 * The webhook stores' contract, on every backend: endpoints, the outbox
 * written in the transaction of each cause (a change, a purchase batch, a
 * decision) or not at all, leases that keep two senders off one delivery,
 * settling, retrying, and decisions queued once.
 */
import assert from 'node:assert/strict';
import { DomainError } from '../../src/shared/errors.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { testEvent } from '../../src/webhooks/events.ts';
import { MAX_WEBHOOKS } from '../../src/webhooks/schema.ts';
import type { Settlement } from '../../src/webhooks/store.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

const code = (expected: string) => (error: unknown) => error instanceof DomainError && error.code === expected;
const ALL = ['paywall.published', 'purchase.recorded', 'refund.recorded', 'key.created', 'key.revoked', 'experiment.decision_changed'] as const;

async function withEndpoint(storage: Storage, events: readonly (typeof ALL)[number][] = ALL) {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  await storage.webhooks.put(project.id, 'hook', { url: 'https://203.0.113.7/hook', events: [...events], enabled: true }, 'whsec_c2VjcmV0', 1, TEST_CHANGE);
  const deliveries = () => storage.webhooks.deliveries(project.id, 'hook', undefined, 100);
  return { projectId: project.id, deliveries };
}

const purchase = (id: string, type: 'initial_purchase' | 'refund' = 'initial_purchase') => ({
  source: 'api' as const,
  id,
  userId: 'u',
  type,
  ts: 1_700_000_000_000,
  productId: 'pro',
  store: null,
  storeProductId: null,
  revenue: 5,
  currency: 'EUR',
  transactionId: null,
  originalTransactionId: null,
  paywallId: null,
});

storeTest('put creates with the given secret, replaces keeping it, lists and deletes with their audit entries', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const first = await storage.webhooks.put(
    project.id,
    'a',
    { url: 'https://203.0.113.7/a', events: ['key.created'], enabled: true },
    'whsec_one',
    10,
    TEST_CHANGE,
  );
  assert.equal(first.created, true);
  assert.deepEqual(first.row, {
    project_id: project.id,
    id: 'a',
    url: 'https://203.0.113.7/a',
    events: ['key.created'],
    enabled: true,
    created_at: 10,
    updated_at: 10,
  });
  const second = await storage.webhooks.put(
    project.id,
    'a',
    { url: 'https://203.0.113.8/a', events: ['key.revoked'], enabled: false },
    'whsec_two',
    20,
    TEST_CHANGE,
  );
  assert.equal(second.created, false);
  assert.deepEqual(
    [second.row.url, second.row.events, second.row.enabled, second.row.created_at, second.row.updated_at],
    ['https://203.0.113.8/a', ['key.revoked'], false, 10, 20],
  );
  await storage.webhooks.queueTo(project.id, 'a', testEvent(project.id, 'a', 30));
  const claimed = await storage.outbox.claim('me', Date.now(), 30_000, 10);
  assert.equal(claimed[0]!.secret, 'whsec_one', 'a replaced endpoint keeps the secret it was created with');
  assert.deepEqual(
    (await storage.webhooks.list(project.id)).map((row) => row.id),
    ['a'],
  );
  assert.equal((await storage.webhooks.remove(project.id, 'a', TEST_CHANGE))?.id, 'a');
  assert.equal(await storage.webhooks.remove(project.id, 'a', TEST_CHANGE), undefined);
  assert.equal(await storage.webhooks.get(project.id, 'a'), undefined);
  assert.equal(await storage.outbox.pending(), undefined, "a deleted endpoint's deliveries go with it");
  const actions = (await storage.audit.list({ project: project.id, limit: 10 })).map((entry) => entry.action);
  assert.deepEqual(actions.slice(0, 3), ['webhook.deleted', 'webhook.written', 'webhook.written']);
});

storeTest(`a project has at most ${MAX_WEBHOOKS} endpoints; replacing one is no creation`, async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const fields = { url: 'https://203.0.113.7/', events: ['key.created' as const], enabled: true };
  for (let i = 0; i < MAX_WEBHOOKS; i++) await storage.webhooks.put(project.id, `h${i}`, fields, 'whsec_x', 1, TEST_CHANGE);
  await assert.rejects(storage.webhooks.put(project.id, 'one-more', fields, 'whsec_x', 1, TEST_CHANGE), code('too_many_webhooks'));
  assert.equal((await storage.webhooks.put(project.id, 'h0', fields, 'whsec_x', 2, TEST_CHANGE)).created, false);
});

storeTest(
  'a change queues its event for the endpoints that subscribe, enabled ones only, or, when the outbox refuses, is not made',
  async (storage, backend) => {
    const { projectId, deliveries } = await withEndpoint(storage);
    await storage.webhooks.put(projectId, 'off', { url: 'https://203.0.113.7/off', events: [...ALL], enabled: false }, 'whsec_x', 1, TEST_CHANGE);
    await storage.webhooks.put(projectId, 'revocations', { url: 'https://203.0.113.7/r', events: ['key.revoked'], enabled: true }, 'whsec_x', 1, TEST_CHANGE);
    const key = await storage.keys.create(projectId, 'sdk', 'ci', TEST_CHANGE);
    const [queued] = await deliveries();
    assert.deepEqual([queued!.type, queued!.status, queued!.attempts], ['key.created', 'pending', 0]);
    assert.equal(JSON.parse(queued!.body).data.key_id, key.id);
    assert.deepEqual(await storage.webhooks.deliveries(projectId, 'off', undefined, 10), []);
    assert.deepEqual(await storage.webhooks.deliveries(projectId, 'revocations', undefined, 10), []);

    const undo = await backend.refuseInserts(storage, 'webhook_deliveries');
    await assert.rejects(storage.keys.create(projectId, 'sdk', 'lost', TEST_CHANGE));
    await assert.rejects(storage.purchases.insert(projectId, { records: [purchase('lost')], receivedAt: 1 }));
    await undo();
    assert.ok(!(await storage.keys.list(projectId)).some((row) => row.name === 'lost'), 'no key without its delivery');
    assert.deepEqual(await storage.purchases.list(projectId), [], 'no purchase without its delivery');
    assert.equal((await storage.audit.list({ project: projectId, action: 'key.created', limit: 10 })).length, 1, 'nor its audit entry');
  },
);

storeTest('a purchase batch queues one event per record stored, none for a duplicate; a refund is refund.recorded', async (storage) => {
  const { projectId, deliveries } = await withEndpoint(storage);
  const batch = { records: [purchase('p1'), purchase('p1'), purchase('r1', 'refund')], receivedAt: 1_700_000_000_500 };
  assert.equal((await storage.purchases.insert(projectId, batch)).inserted, 2);
  assert.equal((await storage.purchases.insert(projectId, batch)).inserted, 0);
  const queued = (await deliveries()).reverse();
  assert.deepEqual(
    queued.map((row) => [row.type, JSON.parse(row.body).data.purchase.id]),
    [
      ['purchase.recorded', 'p1'],
      ['refund.recorded', 'r1'],
    ],
  );
  assert.equal(JSON.parse(queued[0]!.body).timestamp, new Date(1_700_000_000_500).toISOString());
});

storeTest('a claimed delivery is leased: no other sender claims it until the lease expires or is released', async (storage) => {
  const { projectId, deliveries } = await withEndpoint(storage);
  await storage.keys.create(projectId, 'sdk', '', TEST_CHANGE);
  const now = Date.now();
  const [mine] = await storage.outbox.claim('a', now, 30_000, 10);
  assert.equal(mine!.url, 'https://203.0.113.7/hook');
  assert.deepEqual(await storage.outbox.claim('b', now, 30_000, 10), []);
  assert.deepEqual(
    (await storage.outbox.claim('b', now + 30_000, 30_000, 10)).map((d) => d.id),
    [mine!.id],
    'an expired lease is free',
  );
  const outcome: Settlement = { at: now, status: 'pending', nextAttemptAt: now + 1000, responseStatus: 500, responseBody: 'no', error: null };
  assert.equal(await storage.outbox.settle(mine!.id, 'a', outcome), false, "a lease lost is not the loser's to settle");
  assert.equal(await storage.outbox.settle(mine!.id, 'b', outcome), true);
  const [row] = await deliveries();
  assert.deepEqual([row!.status, row!.attempts, row!.next_attempt_at, row!.response_status, row!.response_body], ['pending', 1, now + 1000, 500, 'no']);
  assert.deepEqual(await storage.outbox.claim('a', now, 30_000, 10), [], 'not due yet');
  const [again] = await storage.outbox.claim('a', now + 1000, 30_000, 10);
  await storage.outbox.release('a');
  assert.equal((await storage.outbox.claim('b', now + 1000, 30_000, 10))[0]?.id, again!.id, 'a released lease is free at once');
  assert.deepEqual(await storage.outbox.pending(), { count: 1, nextDue: now + 1000, oldest: row!.created_at });
});

storeTest('a failed delivery retried by hand starts its schedule over; a settled one leaves the outbox', async (storage) => {
  const { projectId, deliveries } = await withEndpoint(storage);
  await storage.keys.create(projectId, 'sdk', '', TEST_CHANGE);
  const [claimed] = await storage.outbox.claim('a', Date.now(), 30_000, 10);
  await storage.outbox.settle(claimed!.id, 'a', { at: 5, status: 'failed', nextAttemptAt: null, responseStatus: null, responseBody: null, error: 'refused' });
  assert.equal(await storage.outbox.pending(), undefined);
  assert.equal(await storage.webhooks.retry(projectId, 'hook', 'msg_unknown', 100), undefined);
  assert.equal(await storage.webhooks.retry(projectId, 'other', claimed!.id, 100), undefined);
  const retried = await storage.webhooks.retry(projectId, 'hook', claimed!.id, 100);
  assert.deepEqual([retried!.status, retried!.attempts, retried!.window_start, retried!.next_attempt_at, retried!.error], ['pending', 0, 100, 100, 'refused']);
  assert.equal((await storage.outbox.claim('a', 100, 30_000, 10))[0]?.id, claimed!.id);
  await storage.outbox.settle(claimed!.id, 'a', { at: 101, status: 'succeeded', nextAttemptAt: null, responseStatus: 204, responseBody: '', error: null });
  assert.deepEqual(
    (await deliveries()).map((row) => [row.status, row.attempts]),
    [['succeeded', 1]],
  );
});

storeTest('a decision queues its change once: a phase first seen at not_enough_data is no change, a status seen again neither', async (storage) => {
  const { projectId, deliveries } = await withEndpoint(storage);
  const key = { projectId, paywallId: 'pw', phase: 1, audience: null };
  const readout = (status: string) => ({ status, variant: null, guardrail: null, reason: status });
  assert.equal(await storage.outbox.decided(key, readout('not_enough_data'), 1), false);
  assert.deepEqual(
    await Promise.all([storage.outbox.decided(key, readout('winner'), 2), storage.outbox.decided(key, readout('winner'), 2)]).then((r) => r.sort()),
    [false, true],
  );
  assert.equal(await storage.outbox.decided(key, readout('winner'), 3), false);
  assert.equal(await storage.outbox.decided({ ...key, audience: 'fr' }, readout('winner'), 3), true, 'each segment apart');
  assert.equal(await storage.outbox.decided(key, readout('keep_running'), 4), true);
  const changes = (await deliveries()).reverse().map((row) => JSON.parse(row.body).data);
  assert.deepEqual(
    changes.map((data) => [data.audience, data.previous_status, data.decision.status]),
    [
      [null, 'not_enough_data', 'winner'],
      ['fr', 'not_enough_data', 'winner'],
      [null, 'winner', 'keep_running'],
    ],
  );
});

storeTest('deliveries page newest first by seq', async (storage) => {
  const { projectId } = await withEndpoint(storage);
  for (let i = 0; i < 5; i++) await storage.webhooks.queueTo(projectId, 'hook', testEvent(projectId, 'hook', i));
  const first = await storage.webhooks.deliveries(projectId, 'hook', undefined, 3);
  const rest = await storage.webhooks.deliveries(projectId, 'hook', first.at(-1)!.seq, 3);
  assert.deepEqual(
    [...first, ...rest].map((row) => JSON.parse(row.body).timestamp),
    [4, 3, 2, 1, 0].map((ms) => new Date(ms).toISOString()),
  );
  assert.equal(await storage.webhooks.queueTo(projectId, 'nope', testEvent(projectId, 'nope', 0)), undefined);
});

storeTest('a batch of 1,000 records for 20 endpoints queues its 20,000 deliveries in its transaction', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  for (let i = 0; i < 20; i++) {
    await storage.webhooks.put(project.id, `h${i}`, { url: 'https://203.0.113.7/', events: ['purchase.recorded'], enabled: true }, 'whsec_x', 1, TEST_CHANGE);
  }
  const records = Array.from({ length: 1000 }, (_, i) => purchase(`p${i}`));
  assert.equal((await storage.purchases.insert(project.id, { records, receivedAt: 1 })).inserted, 1000);
  assert.equal((await storage.outbox.pending())?.count, 20_000);
});

storeTest('prune deletes the deliveries settled before a time, never a pending one', async (storage) => {
  const { projectId, deliveries } = await withEndpoint(storage);
  for (let i = 0; i < 3; i++) await storage.keys.create(projectId, 'sdk', '', TEST_CHANGE);
  const claimed = await storage.outbox.claim('a', Date.now(), 30_000, 10);
  const settle = (i: number, status: 'succeeded' | 'failed', at: number) =>
    storage.outbox.settle(claimed[i]!.id, 'a', { at, status, nextAttemptAt: null, responseStatus: 200, responseBody: '', error: null });
  await settle(0, 'succeeded', 1000);
  await settle(1, 'failed', 1000);
  await settle(2, 'succeeded', 3000);
  await storage.keys.create(projectId, 'sdk', '', TEST_CHANGE);
  assert.equal(await storage.outbox.prune(2000), 2);
  assert.deepEqual((await deliveries()).map((row) => row.status).sort(), ['pending', 'succeeded']);
});

storeTest('sealSecrets replaces the secrets stored in plaintext, once, and leaves sealed ones and everything else as they were', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const fields = { url: 'https://203.0.113.7/hook', events: ['key.created' as const], enabled: true };
  await storage.webhooks.put(project.id, 'old', fields, 'whsec_b2xk', 1, TEST_CHANGE);
  await storage.webhooks.put(project.id, 'new', fields, '{"sealed":"aes-256-gcm","key":"k","data":"d"}', 1, TEST_CHANGE);
  const seen: string[] = [];
  const sealed = await storage.webhooks.sealSecrets((projectId, id, secret) => {
    seen.push(`${projectId} ${id} ${secret}`);
    return `{"sealed":"${id}"}`;
  });
  assert.equal(sealed, 1);
  assert.deepEqual(seen, [`${project.id} old whsec_b2xk`]);
  assert.equal(await storage.webhooks.sealSecrets(() => assert.fail('nothing is left in plaintext')), 0);
  const claimed = await storage.outbox.claim('me', Date.now() + 1, 1000, 10);
  assert.deepEqual(claimed, [], 'no delivery was queued by sealing');
  assert.deepEqual((await storage.webhooks.get(project.id, 'old'))?.updated_at, 1);
});
