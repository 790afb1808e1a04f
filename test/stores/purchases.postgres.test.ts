/**
 * The purchase store's contract, on every backend: a batch is stored once
 * (by source and id), with the users' appAccountTokens, its customer and
 * aliases, all in one transaction.
 */
import assert from 'node:assert/strict';
import { appAccountToken } from '../../src/identity/app-account-token.ts';
import type { PurchaseRecord } from '../../src/purchases/schema.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { storeTest } from '../helpers/storage-backends.ts';

function record(id: string, change: Partial<PurchaseRecord> = {}): PurchaseRecord {
  return {
    source: 'stripe',
    id,
    userId: 'alice',
    type: 'initial_purchase',
    ts: 1_700_000_000_000,
    productId: null,
    store: 'stripe',
    storeProductId: 'price_1',
    revenue: 9.99,
    currency: 'EUR',
    transactionId: `in_${id}`,
    originalTransactionId: 'sub_1',
    paywallId: null,
    ...change,
  };
}

storeTest('insert stores each record once by source and id, answers how many were new, and list gives them back in order', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const { project: other } = await storage.projects.create('q', TEST_CHANGE);
  assert.equal((await storage.purchases.insert(project.id, { records: [record('a'), record('b')], receivedAt: 5 })).inserted, 2);
  assert.equal(
    (await storage.purchases.insert(project.id, { records: [record('b'), record('c'), record('b', { source: 'api' })], receivedAt: 6 })).inserted,
    2,
  );
  assert.equal((await storage.purchases.insert(other.id, { records: [record('a')], receivedAt: 7 })).inserted, 1);
  const stored = await storage.purchases.list(project.id);
  assert.deepEqual(
    stored.map((p) => [p.source, p.id, p.receivedAt]),
    [
      ['stripe', 'a', 5],
      ['stripe', 'b', 5],
      ['stripe', 'c', 6],
      ['api', 'b', 6],
    ],
  );
  assert.deepEqual(stored[0], { ...record('a'), projectId: project.id, receivedAt: 5, setAside: 0, setAsideReason: null });
});

const typesOf = async (storage: Storage, projectId: string, subscription: string) =>
  (await storage.purchases.list(projectId)).filter((p) => p.originalTransactionId === subscription).map((p) => [p.id, p.type]);

storeTest("paid periods are typed from their subscription's records before them: conversion after a trial, renewal after a paid period", async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const paid = (id: string, subscription: string, source: PurchaseRecord['source'] = 'stripe') =>
    record(id, { type: 'renewal', originalTransactionId: subscription, source });
  await storage.purchases.insert(project.id, { records: [record('t', { type: 'trial_started', revenue: 0, originalTransactionId: 'sub_1' })], receivedAt: 1 });
  await storage.purchases.insert(project.id, { records: [paid('p1', 'sub_1')], receivedAt: 2, paidPeriods: true });
  await storage.purchases.insert(project.id, { records: [paid('p2', 'sub_1')], receivedAt: 3, paidPeriods: true });
  await storage.purchases.insert(project.id, { records: [paid('p3', 'sub_1', 'app-store')], receivedAt: 4, paidPeriods: true });
  await storage.purchases.insert(project.id, { records: [paid('q1', 'sub_2'), paid('q2', 'sub_2')], receivedAt: 5, paidPeriods: true });
  await storage.purchases.insert(project.id, { records: [paid('r1', 'sub_3')], receivedAt: 6 });
  assert.deepEqual(await typesOf(storage, project.id, 'sub_1'), [
    ['t', 'trial_started'],
    ['p1', 'trial_converted'],
    ['p2', 'renewal'],
    ['p3', 'initial_purchase'],
  ]);
  assert.deepEqual(await typesOf(storage, project.id, 'sub_2'), [
    ['q1', 'initial_purchase'],
    ['q2', 'renewal'],
  ]);
  assert.deepEqual(await typesOf(storage, project.id, 'sub_3'), [['r1', 'renewal']], 'without the option, as given');
});

storeTest('concurrent paid periods of one subscription after its trial: one conversion, the rest renewals', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  for (let round = 0; round < 20; round++) {
    const subscription = `sub_${round}`;
    await storage.purchases.insert(project.id, {
      records: [record(`t_${round}`, { type: 'trial_started', revenue: 0, originalTransactionId: subscription })],
      receivedAt: 0,
    });
    // Two invoices delivered at once after an outage, each twice.
    await Promise.all(
      ['a', 'b', 'a', 'b'].map((invoice, i) =>
        storage.purchases.insert(project.id, {
          records: [record(`${invoice}_${round}`, { type: 'renewal', originalTransactionId: subscription })],
          receivedAt: i,
          paidPeriods: true,
        }),
      ),
    );
    const types = (await typesOf(storage, project.id, subscription)).map(([, type]) => type).sort();
    assert.deepEqual(types, ['renewal', 'trial_converted', 'trial_started'], subscription);
  }
});

/** A Stripe refund notification: the charge's running total refunded. */
function refundTotal(eventId: string, total: number, charge = 'ch_1'): PurchaseRecord {
  return record(eventId, { type: 'refund', revenue: total, transactionId: charge, originalTransactionId: null });
}

const refundsOf = async (storage: Storage, projectId: string) =>
  (await storage.purchases.list(projectId)).filter((p) => p.type === 'refund').map((p) => [p.id, p.transactionId, p.revenue]);

/** What the refunds below take back: a payment far larger than they are. */
const PAID = record('paid', { revenue: 1000, originalTransactionId: null });

storeTest('cumulative refunds store what is new for their payment, nothing for a total already counted', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  await storage.purchases.insert(project.id, { records: [PAID], receivedAt: 0 });
  const cumulativeRefunds = { decimals: 2 };
  assert.equal((await storage.purchases.insert(project.id, { records: [refundTotal('e1', 2.5)], receivedAt: 1, cumulativeRefunds })).inserted, 1);
  assert.equal((await storage.purchases.insert(project.id, { records: [refundTotal('e2', 3.6)], receivedAt: 2, cumulativeRefunds })).inserted, 1);
  assert.equal((await storage.purchases.insert(project.id, { records: [refundTotal('e2', 3.6)], receivedAt: 3, cumulativeRefunds })).inserted, 0, 'a retry');
  assert.equal(
    (await storage.purchases.insert(project.id, { records: [refundTotal('e1', 2.5)], receivedAt: 4, cumulativeRefunds })).inserted,
    0,
    'an older total, late',
  );
  assert.equal((await storage.purchases.insert(project.id, { records: [refundTotal('e3', 1, 'ch_2')], receivedAt: 5, cumulativeRefunds })).inserted, 1);
  assert.equal(
    (await storage.purchases.insert(project.id, { records: [refundTotal('e4', 4), refundTotal('e5', 5)], receivedAt: 6, cumulativeRefunds })).inserted,
    2,
    'two totals of one payment in one batch',
  );
  assert.deepEqual(await refundsOf(storage, project.id), [
    ['e1', 'ch_1', 2.5],
    ['e2', 'ch_1', 1.1],
    ['e3', 'ch_2', 1],
    ['e4', 'ch_1', 0.4],
    ['e5', 'ch_1', 1],
  ]);
  assert.equal((await storage.purchases.insert(project.id, { records: [refundTotal('e6', 9)], receivedAt: 7 })).inserted, 1, 'without the option, as given');
});

storeTest('concurrent cumulative refunds of one payment never count the same amount twice', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  await storage.purchases.insert(project.id, { records: [PAID], receivedAt: 0 });
  const cumulativeRefunds = { decimals: 2 };
  for (let round = 0; round < 20; round++) {
    const charge = `ch_${round}`;
    // Two partial refunds delivered at once, each twice (Stripe retries), in any order: the payment's refunds must add up to the last total.
    const totals = [1.25, 3, 1.25, 3];
    await Promise.all(
      totals.map((total, i) =>
        storage.purchases.insert(project.id, { records: [refundTotal(`e_${round}_${total}`, total, charge)], receivedAt: i, cumulativeRefunds }),
      ),
    );
  }
  const byCharge = new Map<string, number>();
  for (const [, charge, revenue] of await refundsOf(storage, project.id)) {
    byCharge.set(charge as string, Number(((byCharge.get(charge as string) ?? 0) + (revenue as number)).toFixed(2)));
  }
  assert.equal(byCharge.size, 20);
  for (const [charge, refunded] of byCharge) assert.equal(refunded, 3, charge);
});

const T = 1_700_000_000_000;

storeTest('a refund counts at most what its purchases paid before it, net of earlier refunds; the rest is kept aside with why', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const refund = (id: string, revenue: number, change: Partial<PurchaseRecord> = {}) => record(id, { type: 'refund', revenue, ts: T + 10, ...change });
  await storage.purchases.insert(project.id, { records: [record('p1', { revenue: 10, ts: T })], receivedAt: 1 });
  await storage.purchases.insert(project.id, {
    records: [record('carol-paid', { userId: 'carol', originalTransactionId: null, revenue: 5, ts: T })],
    receivedAt: 1,
  });
  const answers = [];
  for (const r of [
    refund('r1', 4),
    refund('r2', 1e9),
    refund('r3', 5),
    refund('r4', 3, { userId: 'bob', originalTransactionId: null }),
    refund('r5', 3, { userId: 'carol', originalTransactionId: null, ts: T - 1 }),
    refund('r6', 2, { currency: 'USD' }),
  ]) {
    answers.push((await storage.purchases.insert(project.id, { records: [r], receivedAt: 2 })).setAside);
  }
  // A purchase and its refund in one batch; a retry of a refund is a duplicate, not set aside again.
  const batch = await storage.purchases.insert(project.id, {
    records: [
      record('d1', { userId: 'dave', originalTransactionId: 'sub_d', revenue: 7 }),
      refund('d2', 9, { userId: 'dave', originalTransactionId: 'sub_d' }),
      refund('r4', 3, { userId: 'bob', originalTransactionId: null }),
    ],
    receivedAt: 3,
  });
  assert.deepEqual(answers, [
    [],
    [{ index: 0, reason: 'over_paid', amount: 999999994 }],
    [{ index: 0, reason: 'over_paid', amount: 5 }],
    [{ index: 0, reason: 'no_purchase', amount: 3 }],
    [{ index: 0, reason: 'before_purchase', amount: 3 }],
    [{ index: 0, reason: 'no_purchase', amount: 2 }],
  ]);
  assert.deepEqual(batch, { inserted: 2, setAside: [{ index: 1, reason: 'over_paid', amount: 2 }] });
  const refunds = (await storage.purchases.list(project.id)).filter((p) => p.type === 'refund');
  assert.deepEqual(
    refunds.map((p) => [p.id, p.revenue, p.setAside, p.setAsideReason]),
    [
      ['r1', 4, 0, null],
      ['r2', 6, 999999994, 'over_paid'],
      ['r3', 0, 5, 'over_paid'],
      ['r4', 0, 3, 'no_purchase'],
      ['r5', 0, 3, 'before_purchase'],
      ['r6', 0, 2, 'no_purchase'],
      ['d2', 7, 2, 'over_paid'],
    ],
  );
});

storeTest('concurrent refunds of one purchase never count more than it paid', async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  for (let round = 0; round < 10; round++) {
    const subscription = `sub_${round}`;
    await storage.purchases.insert(project.id, { records: [record(`p_${round}`, { originalTransactionId: subscription, revenue: 10 })], receivedAt: 0 });
    await Promise.all(
      ['a', 'b', 'c', 'a'].map((id, i) =>
        storage.purchases.insert(project.id, {
          records: [record(`${id}_${round}`, { type: 'refund', revenue: 4, originalTransactionId: subscription })],
          receivedAt: i,
        }),
      ),
    );
    const refunds = (await storage.purchases.list(project.id)).filter((p) => p.type === 'refund' && p.originalTransactionId === subscription);
    assert.equal(Number(refunds.reduce((sum, p) => sum + p.revenue, 0).toFixed(2)), 10, subscription);
    assert.equal(Number(refunds.reduce((sum, p) => sum + p.setAside, 0).toFixed(2)), 2, subscription);
  }
});

storeTest("a batch remembers its users' appAccountTokens, its customer (the first named stays) and links its aliases as identify would", async (storage) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  await storage.identity.link([{ projectId: project.id, anonymousId: 'device-2', userId: 'carol', secret: false }], 1);
  await storage.purchases.insert(project.id, {
    records: [record('a', { userId: 'bob' })],
    receivedAt: 10,
    customer: { provider: 'stripe', id: 'cus_1', userId: 'bob' },
    aliases: { ids: ['device-1', 'device-2', 'bob'], userId: 'bob' },
  });
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('bob')), 'bob');
  assert.equal(await storage.integrations.userOfCustomer(project.id, 'stripe', 'cus_1'), 'bob');
  assert.deepEqual([...(await storage.identity.links(project.id))].sort(), [
    ['device-1', 'bob'],
    ['device-2', 'carol'],
  ]);
  await storage.purchases.insert(project.id, {
    records: [record('b', { userId: 'dave' })],
    receivedAt: 11,
    customer: { provider: 'stripe', id: 'cus_1', userId: 'dave' },
  });
  assert.equal(await storage.integrations.userOfCustomer(project.id, 'stripe', 'cus_1'), 'bob');
});

storeTest('a batch is one transaction: when what belongs with the records cannot be stored, no record is', async (storage, backend) => {
  const { project } = await storage.projects.create('p', TEST_CHANGE);
  const undo = await backend.refuseInserts(storage, 'integration_customers');
  await assert.rejects(
    storage.purchases.insert(project.id, { records: [record('a')], receivedAt: 1, customer: { provider: 'stripe', id: 'cus_1', userId: 'alice' } }),
  );
  await undo();
  assert.deepEqual(await storage.purchases.list(project.id), []);
  assert.equal(await storage.identity.userOfAppAccountToken(project.id, appAccountToken('alice')), undefined);
});
