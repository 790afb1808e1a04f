/**
 * Each webhook event through the real server to a real receiver: it fires
 * once per cause (a duplicate purchase, a repeated revocation, results
 * computed again, none fires twice), only to the endpoints that subscribe,
 * and every delivery carries a signature the receiver verifies as the
 * Standard Webhooks specification says (test/helpers/webhooks.ts, which
 * shares no code with the server).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEBHOOK_EVENTS } from '../../src/webhooks/event-types.ts';
import { ingest } from '../helpers/events.ts';
import { configured, deliver } from '../helpers/hooks.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts, single } from '../helpers/paywalls.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { ALL_EVENTS, putWebhook, type Received, startReceiver, verified } from '../helpers/webhooks.ts';

const SETTINGS = { webhooks: { allowPrivate: true, backoffScale: 0.001 } };

const purchase = (id: string, type: string, revenue: number): Json => ({
  id,
  user_id: 'alice',
  type,
  ts: Date.now(),
  product_id: 'pro_annual',
  revenue,
  currency: 'EUR',
});

/** Two variants with 300 users each, the control converting 10 % and the other nobody: the decision is control_best. */
function decided(paywall: string, at: number): Json[] {
  const events: Json[] = [];
  for (const [variant, buyers] of [
    ['a', 30],
    ['b', 0],
  ] as const) {
    for (let u = 0; u < 300; u++) {
      const user_id = `${variant}-${u}`;
      events.push({ type: 'screen_impression', paywall_id: paywall, ts: at, user_id, variant_id: variant });
      if (u < buyers) events.push({ type: 'purchase_complete', paywall_id: paywall, ts: at + 1000, user_id });
    }
  }
  return events;
}

test('every event fires once per cause, signed so that the receiver verifies it, to the endpoints that subscribe', async (t) => {
  const server = await startTestServer(t, SETTINGS);
  const client = api(server);
  const receiver = await startReceiver(t);
  const keysOnly = await startReceiver(t);
  const all = await putWebhook(server, 'everything', { url: receiver.url, events: ALL_EVENTS });
  assert.equal(all.status, 201);
  assert.match(all.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const keys = await putWebhook(server, 'keys', { url: keysOnly.url, events: ['key.created'] });
  await putWebhook(server, 'off', { url: keysOnly.url, events: ALL_EVENTS, enabled: false });

  await seedProducts(client);
  await client.putPaywall('onboarding', single({ en: { title: 'One' } }));
  await client.publish('onboarding');
  // Publishing the live revision again is a publication of its own (it may start a phase): an event of its own.
  await client.publish('onboarding');
  await client.putPaywall('onboarding', single({ en: { title: 'Two' } }));
  await client.publish('onboarding');
  await client.publish('onboarding', 1);

  const sent = { purchases: [purchase('p1', 'initial_purchase', 9.99), purchase('r1', 'refund', 9.99)] };
  for (let i = 0; i < 2; i++) assert.equal((await client.request('POST', '/api/purchases', { body: sent })).status, 200);
  await configured(server.url, server.keys.secret, 'revenuecat', { authorization: 'Bearer rc-secret-for-webhooks' });
  const rc = JSON.stringify({
    api_version: '1.0',
    event: {
      id: 'rc-1',
      type: 'INITIAL_PURCHASE',
      app_user_id: 'bob',
      product_id: 'com.acme.pro.annual',
      period_type: 'NORMAL',
      purchased_at_ms: Date.now(),
      event_timestamp_ms: Date.now(),
      store: 'APP_STORE',
      transaction_id: 'tx-rc-1',
      original_transaction_id: 'tx-rc-1',
      currency: 'EUR',
      price_in_purchased_currency: 9.99,
    },
  });
  for (let i = 0; i < 2; i++)
    assert.equal((await deliver(server.url, 'revenuecat', server.projectId, rc, { authorization: 'Bearer rc-secret-for-webhooks' })).status, 200);

  const created = await (await client.request('POST', '/api/keys', { body: { scope: 'sdk' } })).json();
  for (let i = 0; i < 2; i++) assert.equal((await client.request('DELETE', `/api/keys/${created.id}`)).status, 200);

  await client.putPaywall('split', {
    ...single({ en: { title: 'Split' } }),
    variants: [
      { id: 'a', weight: 1, control: true },
      { id: 'b', weight: 1 },
    ],
  });
  await client.publish('split');
  assert.deepEqual((await ingest(server.url, server.keys.sdk, { events: decided('split', Date.now()) })).rejected, []);
  const results = async () => {
    const response = await client.request('GET', '/api/paywalls/split/results');
    return response.status === 200 ? (await response.json()).decision.status : undefined;
  };
  await until(async () => (await results()) === 'control_best', 'the decision');
  await results();
  // With an analysis override the decision is a what-if: not the paywall's, never an event.
  await client.request('GET', '/api/paywalls/split/results?analysis=fixed');
  assert.equal((await client.request('POST', '/api/webhooks/everything/test')).status, 202);

  const expected: Record<string, number> = {
    'paywall.published': 4,
    'paywall.rolled_back': 1,
    'purchase.recorded': 2,
    'refund.recorded': 1,
    'experiment.decision_changed': 1,
    'key.created': 1,
    'key.revoked': 1,
    test: 1,
  };
  const count = (received: Received[]) => {
    const counts: Record<string, number> = {};
    for (const r of received) counts[r.event.type] = (counts[r.event.type] ?? 0) + 1;
    return counts;
  };
  const total = Object.values(expected).reduce((a, b) => a + b);
  await until(() => receiver.received.length >= total, `${total} deliveries (got ${receiver.received.length})`);
  // Whatever is still to come would come within this: every delivery is queued by now, and the sender is idle.
  await until(async () =>
    (await fetch(`${server.url}/metrics`, { headers: bearer(server.keys.secret) })).text().then((m) => /paywalld_webhook_deliveries_pending 0\n/.test(m)),
  );
  assert.deepEqual(count(receiver.received), expected);
  assert.deepEqual(Object.keys(expected).sort(), [...WEBHOOK_EVENTS, 'test'].sort(), 'every event type is tested here');
  for (const r of receiver.received) {
    assert.ok(verified(all.body.secret, r), `${r.event.type}: the signature verifies`);
    assert.ok(!verified(keys.body.secret, r), "another endpoint's secret does not verify it");
    assert.equal(r.contentType, 'application/json');
    assert.match(r.id, /^msg_[A-Za-z0-9]+$/);
  }
  assert.equal(new Set(receiver.received.map((r) => r.id)).size, total, 'one webhook-id per delivery');
  // The disabled endpoint got nothing; the one that subscribes to key.created got that only.
  await until(() => keysOnly.received.length >= 1, 'the key.created delivery');
  assert.deepEqual(
    keysOnly.received.map((r) => r.event.type),
    ['key.created'],
  );
  assert.ok(verified(keys.body.secret, keysOnly.received[0]!));

  const of = (type: string) => receiver.received.filter((r) => r.event.type === type).map((r) => r.event.data);
  // Sent concurrently: in no promised order.
  assert.deepEqual(
    of('paywall.published')
      .map((d) => `${d.paywall_id} r${d.revision}`)
      .sort(),
    ['onboarding r1', 'onboarding r1', 'onboarding r2', 'split r1'],
  );
  assert.deepEqual(of('paywall.rolled_back')[0], {
    project_id: server.projectId,
    paywall_id: 'onboarding',
    revision: 1,
    actor: { type: 'key', id: of('paywall.rolled_back')[0]!.actor.id, label: `${server.keys.secret.slice(0, 15)}…` },
    summary: 'rolled back onboarding to r1 (live was r2)',
  });
  assert.deepEqual(
    of('purchase.recorded')
      .map((d) => `${d.purchase.source} ${d.purchase.id} ${d.purchase.type} ${d.purchase.revenue}`)
      .sort(),
    ['api p1 initial_purchase 9.99', 'revenuecat rc-1 initial_purchase 9.99'],
  );
  assert.deepEqual(of('refund.recorded')[0]!.purchase.id, 'r1');
  assert.equal(of('key.created')[0]!.key_id, created.id);
  assert.equal(of('key.revoked')[0]!.key_id, created.id);
  const decision = of('experiment.decision_changed')[0]!;
  assert.deepEqual(
    [decision.paywall_id, decision.phase, decision.audience, decision.previous_status, decision.decision.status],
    ['split', 1, null, 'not_enough_data', 'control_best'],
  );
  assert.equal(of('test')[0]!.webhook_id, 'everything');
});
