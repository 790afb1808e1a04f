/** The RevenueCat connector through the real server: the Authorization header, event mapping, aliases, redelivery, unused types. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configured, deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

const AUTHORIZATION = 'Bearer rc-hook-secret-42';

function rcEvent(id: string, type: string, extra: Record<string, unknown> = {}): string {
  const now = Date.now();
  return JSON.stringify({
    api_version: '1.0',
    event: {
      id,
      type,
      app_user_id: 'alice',
      original_app_user_id: '$RCAnonymousID:87c6049c58069238dce29853916d624c',
      aliases: ['$RCAnonymousID:87c6049c58069238dce29853916d624c', 'anon-device-1', 'alice'],
      product_id: 'com.example.pro.monthly',
      period_type: 'NORMAL',
      purchased_at_ms: now - 5000,
      event_timestamp_ms: now - 1000,
      environment: 'PRODUCTION',
      store: 'APP_STORE',
      transaction_id: `tx_${id}`,
      original_transaction_id: 'otx_1',
      currency: 'EUR',
      price: 10.5,
      price_in_purchased_currency: 9.99,
      ...extra,
    },
  });
}

async function setup(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t);
  await configured(server.url, server.keys.secret, 'revenuecat', { authorization: AUTHORIZATION });
  const send = (body: string, authorization = AUTHORIZATION) => deliver(server.url, 'revenuecat', server.projectId, body, { authorization });
  const stored = async () => (await server.server.ctx.purchases.list(server.projectId)).map((p) => [p.type, p.userId, p.revenue, p.currency]);
  return { ...server, send, stored };
}

test('event types map to records: trial through period_type, conversion, renewal, refund as a cancellation, the rest', async (t) => {
  const { send, stored, server, projectId } = await setup(t);
  const events = [
    rcEvent('e1', 'INITIAL_PURCHASE', { period_type: 'TRIAL', price: 0, price_in_purchased_currency: 0 }),
    rcEvent('e2', 'RENEWAL', { is_trial_conversion: true }),
    rcEvent('e3', 'RENEWAL', { is_trial_conversion: false }),
    rcEvent('e4', 'CANCELLATION', { cancel_reason: 'CUSTOMER_SUPPORT', price: -10.5, price_in_purchased_currency: -9.99 }),
    rcEvent('e5', 'CANCELLATION', { cancel_reason: 'UNSUBSCRIBE' }),
    rcEvent('e6', 'EXPIRATION', { expiration_reason: 'UNSUBSCRIBE' }),
    rcEvent('e7', 'NON_RENEWING_PURCHASE', { price_in_purchased_currency: 4.99 }),
    rcEvent('e8', 'PRODUCT_CHANGE'),
    rcEvent('e9', 'INITIAL_PURCHASE', { period_type: 'INTRO', price_in_purchased_currency: 0.99, app_user_id: 'bob', aliases: ['bob'] }),
  ];
  for (const body of events) assert.deepEqual(await (await send(body)).json(), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await stored(), [
    ['trial_started', 'alice', 0, 'EUR'],
    ['trial_converted', 'alice', 9.99, 'EUR'],
    ['renewal', 'alice', 9.99, 'EUR'],
    ['refund', 'alice', 9.99, 'EUR'],
    ['cancellation', 'alice', 0, 'EUR'],
    ['expiration', 'alice', 0, 'EUR'],
    ['non_renewing_purchase', 'alice', 4.99, 'EUR'],
    ['product_change', 'alice', 0, 'EUR'],
    ['initial_purchase', 'bob', 0.99, 'EUR'],
  ]);
  // The app's own anonymous id among the aliases is linked to the user, as identify would; RevenueCat's own are not.
  assert.deepEqual([...(await server.ctx.identity.links(projectId))], [['anon-device-1', 'alice']]);
});

test('an anonymous app_user_id gives way to a real alias', async (t) => {
  const { send, stored } = await setup(t);
  await send(rcEvent('e1', 'INITIAL_PURCHASE', { app_user_id: '$RCAnonymousID:abc', aliases: ['$RCAnonymousID:abc', 'carol'] }));
  assert.deepEqual(await stored(), [['initial_purchase', 'carol', 9.99, 'EUR']]);
});

test('a user id or alias holding NUL or a lone surrogate is 400 invalid_notification and stores nothing', async (t) => {
  const { send, stored, server, projectId } = await setup(t);
  const nul = await problem(
    await send(rcEvent('e1', 'INITIAL_PURCHASE', { app_user_id: 'nul\u0000user', aliases: ['nul\u0000user'] })),
    400,
    'invalid_notification',
  );
  assert.match(nul.detail, /NUL \(U\+0000\) or a lone surrogate/);
  await problem(await send(rcEvent('e2', 'INITIAL_PURCHASE', { aliases: ['anon\ud800', 'alice'] })), 400, 'invalid_notification');
  assert.deepEqual(await stored(), []);
  assert.equal((await server.ctx.identity.links(projectId)).size, 0);
  assert.deepEqual(await (await send(rcEvent('e3', 'INITIAL_PURCHASE', { app_user_id: 'smile \ud83d\ude00', aliases: [] }))).json(), {
    outcome: 'stored',
    stored: 1,
  });
});

test('a wrong or missing Authorization answers 401 and stores nothing', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  const body = rcEvent('e1', 'INITIAL_PURCHASE');
  await problem(await send(body, 'Bearer rc-hook-secret-43'), 401, 'invalid_signature');
  await problem(await send(body, ''), 401, 'invalid_signature');
  await problem(await send(body, AUTHORIZATION.toLowerCase()), 401, 'invalid_signature');
  assert.deepEqual(await stored(), []);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="revenuecat",outcome="refused"}'), 3);
});

test('a retried event (same id) is stored once; TEST and other unused types answer 200 and are counted', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  const body = rcEvent('e1', 'RENEWAL');
  assert.deepEqual(await (await send(body)).json(), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await (await send(body)).json(), { outcome: 'duplicate', stored: 0 });
  assert.deepEqual(await (await send(rcEvent('e2', 'TEST'))).json(), { outcome: 'unused_type', stored: 0 });
  assert.deepEqual(await (await send(rcEvent('e3', 'BILLING_ISSUE'))).json(), { outcome: 'unused_type', stored: 0 });
  assert.equal((await stored()).length, 1);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="revenuecat",outcome="unused_type"}'), 2);
  await problem(await send(rcEvent('e4', 'RENEWAL', { currency: null })), 400, 'invalid_notification');
  await problem(await send(JSON.stringify({ api_version: '1.0' })), 400, 'invalid_notification');
});

test('a body is not parsed before the Authorization header matches', async (t) => {
  const { send, stored } = await setup(t);
  await problem(await send('['.repeat(512 * 1024), 'Bearer guess'), 401, 'invalid_signature');
  await problem(await send('not json'), 400, 'invalid_notification');
  assert.deepEqual(await stored(), []);
});

test('a price past the revenue bound every source has (1e308, or negative 1e308 on a refund) is 400 and stores nothing', async (t) => {
  const { send, stored } = await setup(t);
  const huge = await problem(await send(rcEvent('e1', 'RENEWAL', { price_in_purchased_currency: 1e308 })), 400, 'invalid_notification');
  assert.match(huge.detail, /from 0 to 1000000000 in major units/);
  await problem(
    await send(rcEvent('e2', 'CANCELLATION', { cancel_reason: 'CUSTOMER_SUPPORT', price_in_purchased_currency: -1e308 })),
    400,
    'invalid_notification',
  );
  assert.deepEqual(await stored(), []);
  // At the bound itself, stored.
  assert.deepEqual(await (await send(rcEvent('e3', 'RENEWAL', { price_in_purchased_currency: 1e9 }))).json(), { outcome: 'stored', stored: 1 });
});

test('a time before 2000 or more than a day ahead (2^53 − 1 ms, past what a date can hold) is 400 and stores nothing', async (t) => {
  const { send, stored } = await setup(t);
  const far = await problem(await send(rcEvent('e1', 'RENEWAL', { purchased_at_ms: Number.MAX_SAFE_INTEGER })), 400, 'invalid_notification');
  assert.match(far.detail, /before 2000-01-01 or more than 24 hours ahead/);
  await problem(await send(rcEvent('e2', 'RENEWAL', { purchased_at_ms: Date.UTC(1999, 11, 31) })), 400, 'invalid_notification');
  await problem(
    await send(rcEvent('e3', 'CANCELLATION', { cancel_reason: 'UNSUBSCRIBE', event_timestamp_ms: Date.now() + 2 * 86_400_000 })),
    400,
    'invalid_notification',
  );
  assert.deepEqual(await stored(), []);
  // Within the bounds, stored.
  assert.deepEqual(await (await send(rcEvent('e4', 'RENEWAL', { purchased_at_ms: Date.now() + 3_600_000 }))).json(), { outcome: 'stored', stored: 1 });
});
