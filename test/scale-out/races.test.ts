/**
 * Check-then-act across instances (docs/operations/scale-out.md, "Stores: writes from several instances"): two instances
 * on one PostgreSQL receive conflicting requests at the same moment, many times over, and the outcome
 * is what one instance alone would give, never a decision taken from a view one of them had not yet
 * caught up on.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { openPool } from '../../src/db/postgres/connection.ts';
import { configured, deliver } from '../helpers/hooks.ts';
import { startInstances } from '../helpers/instances.ts';
import { api, single } from '../helpers/paywalls.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';

const SECRET = 'whsec_races_0123456789abcdef';
const ROUNDS = 25;

function signed(body: string): Record<string, string> {
  const t = Math.floor(Date.now() / 1000);
  return { 'stripe-signature': `t=${t},v1=${crypto.createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}` };
}

const stripeEvent = (id: string, type: string, object: Record<string, unknown>) =>
  JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object } });

const refund = (eventId: string, charge: string, amountRefunded: number) =>
  stripeEvent(eventId, 'charge.refunded', {
    id: charge,
    object: 'charge',
    amount: 1000,
    amount_refunded: amountRefunded,
    currency: 'usd',
    metadata: { paywalld_user_id: 'alice' },
  });

/** Two instances on a fresh database with Stripe configured; a pool to read what they stored. */
async function stripeInstances(t: TestContext) {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2);
  const sql = openPool(url);
  t.after(() => sql.end());
  const [project] = await sql<{ id: string }[]>`SELECT id FROM projects`;
  await configured(instances[0]!.url, keys.secret, 'stripe', { signing_secret: SECRET });
  return { instances, sql, projectId: project!.id };
}

test('two partial refunds of one charge, each sent to two instances at once, are counted once each', needs(POSTGRES), async (t) => {
  const { instances, sql, projectId } = await stripeInstances(t);
  // What the refunds take back: a refund counts only against what its purchases paid (docs/guide/revenue.md, "Refunds").
  const checkout = stripeEvent('evt_paid', 'checkout.session.completed', {
    id: 'cs_1',
    object: 'checkout.session',
    client_reference_id: 'alice',
    mode: 'payment',
    amount_total: 100_000,
    currency: 'usd',
  });
  assert.equal((await deliver(instances[0]!.url, 'stripe', projectId, checkout, signed(checkout))).status, 200);
  for (let round = 0; round < ROUNDS; round++) {
    const charge = `ch_${round}`;
    // 3.00 refunded, then 7.50 in all: Stripe may deliver both at once and retry either; the charge's refunds must add up to 7.50.
    const bodies = [refund(`evt_${round}_a`, charge, 300), refund(`evt_${round}_b`, charge, 750)];
    const answers = await Promise.all(instances.flatMap((instance) => bodies.map((body) => deliver(instance.url, 'stripe', projectId, body, signed(body)))));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    );
  }
  const totals = await sql<{ charge: string; refunded: string }[]>`
    SELECT transaction_id AS charge, round(sum(revenue)::numeric, 2)::text AS refunded FROM purchases WHERE type = 'refund' GROUP BY transaction_id`;
  assert.equal(totals.length, ROUNDS);
  assert.deepEqual(
    totals.filter((row) => row.refunded !== '7.50'),
    [],
    'charges whose refunds were counted twice',
  );
});

const trialCheckout = (id: string, subscription: string) =>
  stripeEvent(id, 'checkout.session.completed', {
    id: `cs_${id}`,
    client_reference_id: 'alice',
    mode: 'subscription',
    subscription,
    invoice: `in_${id}`,
    amount_total: 0,
    currency: 'usd',
    metadata: {},
  });

const invoicePaid = (id: string, subscription: string) =>
  stripeEvent(id, 'invoice.paid', {
    id: `in_${id}`,
    billing_reason: 'subscription_cycle',
    amount_paid: 999,
    currency: 'usd',
    parent: { type: 'subscription_details', subscription_details: { subscription, metadata: { paywalld_user_id: 'alice' } } },
  });

test('two paid invoices of one subscription after its trial, each sent to two instances at once: one conversion, one renewal', needs(POSTGRES), async (t) => {
  const { instances, sql, projectId } = await stripeInstances(t);
  const send = (instance: (typeof instances)[number], body: string) => deliver(instance.url, 'stripe', projectId, body, signed(body));
  for (let round = 0; round < ROUNDS; round++) {
    const subscription = `sub_${round}`;
    assert.equal((await send(instances[0]!, trialCheckout(`evt_${round}_trial`, subscription))).status, 200);
    const bodies = [invoicePaid(`evt_${round}_a`, subscription), invoicePaid(`evt_${round}_b`, subscription)];
    const answers = await Promise.all(instances.flatMap((instance) => bodies.map((body) => send(instance, body))));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    );
  }
  const conversions = await sql<{ subscription: string; n: number }[]>`
    SELECT original_transaction_id AS subscription, count(*)::int AS n FROM purchases WHERE type = 'trial_converted' GROUP BY 1`;
  assert.equal(conversions.length, ROUNDS, 'every subscription converted');
  assert.deepEqual(
    conversions.filter((row) => row.n !== 1),
    [],
    'subscriptions converted twice',
  );
});

test('publishing a paywall that uses a product on A while deleting that product on B: never both', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2);
  const [a, b] = instances.map((instance) => api({ url: instance.url, keys }));
  let bothSucceeded = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const product = `product_${round}`;
    await a!.putProduct(product, { name: 'Annual', store_ids: { stripe: `price_${round}` } });
    await a!.putPaywall(`paywall_${round}`, single({ en: { title: 'Hello' } }, { slots: { primary: product } }));
    const etag = (await b!.request('GET', `/api/products/${product}`)).headers.get('etag');
    assert.ok(etag);
    const [published, deleted] = await Promise.all([
      a!.request('POST', `/api/paywalls/paywall_${round}/publish`, { body: {} }),
      b!.request('DELETE', `/api/products/${product}`, { headers: { 'If-Match': etag } }),
    ]);
    if (published.status === 200 && deleted.status === 204) bothSucceeded++;
    // The loser says why: the product is in use, or the revision names a product deleted since.
    assert.ok(published.status === 200 || published.status === 409 || published.status === 422, `publish answered ${published.status}`);
    assert.ok(deleted.status === 204 || deleted.status === 409, `delete answered ${deleted.status}`);
  }
  assert.equal(bothSucceeded, 0, 'rounds in which a live paywall was left with a deleted product');
});
