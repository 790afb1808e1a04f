/**
 * The Google Play connector through the real server and a stand-in for Google on loopback
 * (fake-google.ts: real RS256 push tokens, a real service-account assertion verified before a
 * token is issued): a subscription's trial, conversion, renewal, cancellation, refund and expiry,
 * one-time purchases in zero- and three-decimal currencies, partial refunds, redeliveries,
 * outages of the Play API, and what is acknowledged without being stored.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { obfuscatedAccountId } from '../../client/app-account-token.ts';
import type { GoogleEndpoints } from '../../src/integrations/providers/google-endpoints.ts';
import { Logger } from '../../src/log.ts';
import { configured, deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { ACCOUNT_EMAIL, type FakeGoogle, money, pushBody, startFakeGoogle } from './fake-google.ts';

type Json = Record<string, unknown>;

async function setup(t: TestContext, endpoints: Partial<GoogleEndpoints> = {}) {
  const google = await startFakeGoogle(t);
  const lines: string[] = [];
  const log = new Logger('warn', { sink: (text) => lines.push(...text.trim().split('\n')) });
  const server = await startTestServer(t, { google: { ...google.endpoints, ...endpoints } }, log);
  await configured(server.url, server.keys.secret, 'google-play', google.config());
  const linked = await fetch(`${server.url}/api/sdk/identify`, {
    method: 'POST',
    headers: { ...bearer(server.keys.sdk), 'content-type': 'application/json' },
    body: JSON.stringify({ anonymous_id: 'device-1', user_id: 'user-1' }),
  });
  assert.equal(linked.status, 200);
  const sendBody = (body: string) => deliver(server.url, 'google-play', server.projectId, body, { authorization: `Bearer ${google.pushToken()}` });
  const send = async (notification: Json) => sendBody(pushBody(notification));
  const outcome = async (notification: Json) => (await send(notification)).json();
  const purchases = () => server.server.ctx.purchases.list(server.projectId);
  const stored = async () => (await purchases()).map((p) => [p.type, p.userId, p.revenue, p.currency]);
  return { ...server, google, lines, send, sendBody, outcome, purchases, stored };
}

const USER_1 = obfuscatedAccountId('user-1');

/** A SubscriptionPurchaseV2 of user-1's monthly plan at 9.99 EUR, its line item changed by `item`. */
function subscription(item: Json, extra: Json = {}): Json {
  return {
    kind: 'androidpublisher#subscriptionPurchaseV2',
    regionCode: 'DE',
    startTime: new Date().toISOString(),
    subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
    acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
    externalAccountIdentifiers: { obfuscatedExternalAccountId: USER_1 },
    lineItems: [
      {
        productId: 'pro_monthly',
        expiryTime: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: money('EUR', 9, 990_000_000) },
        offerDetails: { basePlanId: 'monthly', offerTags: [] },
        ...item,
      },
    ],
    ...extra,
  };
}

function order(orderId: string, total: Json, extra: Json = {}): Json {
  return {
    orderId,
    purchaseToken: 'tok-1',
    state: 'PROCESSED',
    createTime: new Date().toISOString(),
    total,
    lineItems: [{ productId: 'pro_monthly' }],
    ...extra,
  };
}

function subscriptionPush(notificationType: number, purchaseToken = 'tok-1'): Json {
  return { subscriptionNotification: { version: '1.0', notificationType, purchaseToken, subscriptionId: 'pro_monthly' } };
}

const TRIAL_ORDER = 'GPA.3372-4150-8203-17209';

function paidPeriod(google: FakeGoogle, n: number, offerPhase: Json = { basePrice: {} }): string {
  const orderId = `${TRIAL_ORDER}..${n}`;
  google.subscriptions.set('tok-1', subscription({ offerPhase, latestSuccessfulOrderId: orderId }));
  google.orders.set(orderId, order(orderId, money('EUR', 9, 990_000_000)));
  return orderId;
}

test('a trial, its conversion, a renewal, a cancellation, a refund and the expiry, as the Play API describes them; the user from obfuscatedExternalAccountId', async (t) => {
  const { google, outcome, stored, purchases } = await setup(t);
  google.subscriptions.set('tok-1', subscription({ offerPhase: { freeTrial: {} }, latestSuccessfulOrderId: TRIAL_ORDER }));
  google.orders.set(TRIAL_ORDER, order(TRIAL_ORDER, money('EUR', 0)));
  assert.deepEqual(await outcome(subscriptionPush(4)), { outcome: 'stored', stored: 1 });
  paidPeriod(google, 0);
  assert.deepEqual(await outcome(subscriptionPush(2)), { outcome: 'stored', stored: 1 });
  const renewal = paidPeriod(google, 1);
  assert.deepEqual(await outcome(subscriptionPush(2)), { outcome: 'stored', stored: 1 });
  // Pub/Sub delivers at least once: the same renewal again is the same order.
  assert.deepEqual(await outcome(subscriptionPush(2)), { outcome: 'duplicate', stored: 0 });
  const canceled = { autoRenewEnabled: false, recurringPrice: money('EUR', 9, 990_000_000) };
  google.subscriptions.set('tok-1', subscription({ latestSuccessfulOrderId: renewal, autoRenewingPlan: canceled }));
  assert.deepEqual(await outcome(subscriptionPush(3)), { outcome: 'stored', stored: 1 });
  // After the renewal's order was made: a refund is never dated before what it refunds (docs/guide/revenue.md).
  const refundTime = new Date().toISOString();
  google.orders.set(
    renewal,
    order(renewal, money('EUR', 9, 990_000_000), {
      state: 'REFUNDED',
      orderHistory: { refundEvent: { eventTime: refundTime, refundDetails: { total: money('EUR', 9, 990_000_000) } } },
    }),
  );
  const voided = { voidedPurchaseNotification: { purchaseToken: 'tok-1', orderId: renewal, productType: 1, refundType: 1 } };
  assert.deepEqual(await outcome(voided), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await outcome(voided), { outcome: 'duplicate', stored: 0 });
  assert.deepEqual(await outcome(subscriptionPush(12)), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await outcome(subscriptionPush(13)), { outcome: 'duplicate', stored: 0 }, 'a revocation and the expiry are one end');
  assert.deepEqual(await stored(), [
    ['trial_started', 'user-1', 0, 'EUR'],
    ['trial_converted', 'user-1', 9.99, 'EUR'],
    ['renewal', 'user-1', 9.99, 'EUR'],
    ['cancellation', 'user-1', 0, 'EUR'],
    ['refund', 'user-1', 9.99, 'EUR'],
    ['expiration', 'user-1', 0, 'EUR'],
  ]);
  const records = await purchases();
  assert.ok(
    records.every((r) => r.source === 'google-play' && r.store === 'play_store' && r.storeProductId === 'pro_monthly' && r.originalTransactionId === 'tok-1'),
  );
  assert.deepEqual(
    records.map((r) => r.transactionId),
    [TRIAL_ORDER, `${TRIAL_ORDER}..0`, renewal, renewal, renewal, renewal],
  );
  assert.equal(records[4]!.ts, Date.parse(refundTime), "the refund's time is the order's refund event");
  // One access token for every call: exchanged once, from an assertion the token endpoint verified.
  assert.equal(google.calls.token, 1);
  assert.deepEqual(Object.keys(google.assertions[0]!).sort(), ['aud', 'exp', 'iat', 'iss', 'scope']);
  assert.equal(google.assertions[0]!.iss, ACCOUNT_EMAIL);
});

test('a paid first period is an initial purchase at the intro price; an upgrade continues what was bought and converts no one', async (t) => {
  const { google, outcome, stored } = await setup(t);
  const intro = 'GPA.1000-0000-0000-00001';
  google.subscriptions.set('tok-1', subscription({ offerPhase: { introductoryPrice: {} }, latestSuccessfulOrderId: intro }));
  google.orders.set(intro, order(intro, money('EUR', 1, 990_000_000)));
  assert.deepEqual(await outcome(subscriptionPush(4)), { outcome: 'stored', stored: 1 });
  const upgrade = 'GPA.1000-0000-0000-00002';
  google.subscriptions.set('tok-2', subscription({ productId: 'pro_yearly', latestSuccessfulOrderId: upgrade }, { linkedPurchaseToken: 'tok-1' }));
  google.orders.set(upgrade, order(upgrade, money('EUR', 59, 990_000_000)));
  assert.deepEqual(await outcome(subscriptionPush(4, 'tok-2')), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await stored(), [
    ['initial_purchase', 'user-1', 1.99, 'EUR'],
    ['renewal', 'user-1', 59.99, 'EUR'],
  ]);
});

test('one-time purchases: amounts by the ISO 4217 exponent (JPY 0, KWD 3 decimals); partial refunds as a running total', async (t) => {
  const { google, send, outcome, stored } = await setup(t);
  const purchase = (orderId: string, purchaseState = 0) => ({
    kind: 'androidpublisher#productPurchase',
    purchaseTimeMillis: String(Date.now() - 5000),
    purchaseState,
    consumptionState: 0,
    orderId,
    acknowledgementState: 1,
    obfuscatedExternalAccountId: USER_1,
    regionCode: 'JP',
    quantity: 3,
  });
  google.products.set('coins_100/tok-jpy', purchase('GPA.2000-0000-0000-00001'));
  google.orders.set('GPA.2000-0000-0000-00001', order('GPA.2000-0000-0000-00001', money('JPY', 480)));
  google.products.set('coins_100/tok-kwd', purchase('GPA.2000-0000-0000-00002'));
  google.orders.set('GPA.2000-0000-0000-00002', order('GPA.2000-0000-0000-00002', money('KWD', 3, 456_700_000), { lineItems: [{ productId: 'coins_100' }] }));
  google.products.set('coins_100/tok-pending', purchase('GPA.2000-0000-0000-00003', 2));
  const bought = (purchaseToken: string) => ({ oneTimeProductNotification: { version: '1.0', notificationType: 1, purchaseToken, sku: 'coins_100' } });
  assert.deepEqual(await outcome(bought('tok-jpy')), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await outcome(bought('tok-kwd')), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await outcome(bought('tok-pending')), { outcome: 'unused_type', stored: 0 });
  // Two of the three KWD items refunded, one after the other: each notification reads the order's refunds so far.
  const kwd = google.orders.get('GPA.2000-0000-0000-00002')!;
  const partial = (units: number, nanos: number, processed = true) => ({
    createTime: new Date().toISOString(),
    ...(processed ? { processTime: new Date().toISOString() } : {}),
    refundDetails: { total: money('KWD', units, nanos) },
  });
  const voided = { voidedPurchaseNotification: { purchaseToken: 'tok-kwd', orderId: 'GPA.2000-0000-0000-00002', productType: 2, refundType: 2 } };
  google.orders.set('GPA.2000-0000-0000-00002', { ...kwd, orderHistory: { partialRefundEvents: [partial(1, 152_233_333, false)] } });
  await problem(await send(voided), 503, 'store_unavailable');
  google.orders.set('GPA.2000-0000-0000-00002', { ...kwd, orderHistory: { partialRefundEvents: [partial(1, 152_233_333)] } });
  assert.deepEqual(await outcome(voided), { outcome: 'stored', stored: 1 });
  google.orders.set('GPA.2000-0000-0000-00002', { ...kwd, orderHistory: { partialRefundEvents: [partial(1, 152_233_333), partial(1, 152_233_333)] } });
  assert.deepEqual(await outcome(voided), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await outcome(voided), { outcome: 'duplicate', stored: 0 });
  assert.deepEqual(await stored(), [
    ['non_renewing_purchase', 'user-1', 480, 'JPY'],
    ['non_renewing_purchase', 'user-1', 3.457, 'KWD'],
    ['refund', 'user-1', 1.152, 'KWD'],
    ['refund', 'user-1', 1.152, 'KWD'],
  ]);
});

test('a test notification is acknowledged and stores nothing; types paywalld does not use or know, and other apps, are acknowledged (the unknown logged)', async (t) => {
  const { google, outcome, stored, lines } = await setup(t);
  assert.deepEqual(await outcome({ testNotification: { version: '1.0' } }), { outcome: 'unused_type', stored: 0 });
  assert.deepEqual(await outcome(subscriptionPush(5)), { outcome: 'unused_type', stored: 0 }, 'on hold');
  assert.deepEqual(await outcome({ oneTimeProductNotification: { notificationType: 2, purchaseToken: 't', sku: 's' } }), { outcome: 'unused_type', stored: 0 });
  assert.equal(google.calls.api, 0, 'what is not used is not looked up');
  assert.equal(lines.filter((line) => line.includes('acknowledged, nothing stored')).length, 0);
  assert.deepEqual(await outcome(subscriptionPush(99)), { outcome: 'unused_type', stored: 0 });
  assert.deepEqual(await outcome({ someFutureNotification: {} }), { outcome: 'unused_type', stored: 0 });
  assert.deepEqual(await outcome({ ...subscriptionPush(4), packageName: 'com.example.other' }), { outcome: 'unused_type', stored: 0 });
  const warned = lines.filter((line) => line.includes('acknowledged, nothing stored')).map((line) => JSON.parse(line));
  assert.deepEqual(
    warned.map((line) => [line.level, line.provider, line.type]),
    [
      ['warn', 'google-play', 'subscriptionNotification 99'],
      ['warn', 'google-play', 'unknown notification'],
      ['warn', 'google-play', 'another package'],
    ],
  );
  // A purchase whose account id is not one the client made, or that has none, names no user.
  google.subscriptions.set(
    'tok-1',
    subscription({ offerPhase: { freeTrial: {} } }, { externalAccountIdentifiers: { obfuscatedExternalAccountId: 'not-ours' } }),
  );
  assert.deepEqual(await outcome(subscriptionPush(4)), { outcome: 'no_user', stored: 0 });
  google.subscriptions.set('tok-1', subscription({ offerPhase: { freeTrial: {} } }, { externalAccountIdentifiers: undefined }));
  assert.deepEqual(await outcome(subscriptionPush(4)), { outcome: 'no_user', stored: 0 });
  assert.deepEqual(await stored(), []);
});

test('a Play API outage answers 503 store_unavailable and stores nothing; the redelivery is stored once', async (t) => {
  const { google, sendBody, outcome, stored, lines, url, keys } = await setup(t);
  const renewal = paidPeriod(google, 0);
  const body = pushBody(subscriptionPush(2));
  google.playOutage = 'error';
  const refused = await problem(await sendBody(body), 503, 'store_unavailable');
  assert.match(refused.detail, /Play Developer API \(purchases\.subscriptionsv2\.get\) answered 503/);
  assert.ok(!refused.detail.includes('tok-1'), 'the detail names no purchase token');
  google.playOutage = undefined;
  google.orders.delete(renewal);
  await problem(await sendBody(body), 503, 'store_unavailable');
  assert.deepEqual(await stored(), []);
  paidPeriod(google, 0);
  assert.deepEqual(await (await sendBody(body)).json(), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await (await sendBody(body)).json(), { outcome: 'duplicate', stored: 0 });
  assert.deepEqual(await outcome(subscriptionPush(2)), { outcome: 'duplicate', stored: 0 });
  assert.deepEqual(await stored(), [['initial_purchase', 'user-1', 9.99, 'EUR']]);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="google-play",outcome="unavailable"}'), 2);
  const warned = lines.filter((line) => line.includes('the store did not answer')).map((line) => JSON.parse(line).why);
  assert.equal(warned.length, 2);
  assert.match(warned[0], /subscriptionsv2\.get\) answered 503/);
  assert.match(warned[1], /orders\.get\) answered 404/);
});

test('a Play API that does not answer in time is an outage too: 503 with Retry-After, then the redelivery is stored once', async (t) => {
  const { google, sendBody, stored } = await setup(t, { timeoutMs: 500 });
  paidPeriod(google, 0);
  const body = pushBody(subscriptionPush(2));
  google.playOutage = 'hang';
  const response = await sendBody(body);
  assert.equal(response.headers.get('retry-after'), '10');
  const refused = await problem(response, 503, 'store_unavailable');
  assert.match(refused.detail, /no answer within 500 ms/);
  assert.deepEqual(await stored(), []);
  google.playOutage = undefined;
  assert.deepEqual(await (await sendBody(body)).json(), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await stored(), [['initial_purchase', 'user-1', 9.99, 'EUR']]);
});

test('a service account Google does not accept gets no token: 503, nothing stored, and nothing asked of the Play API', async (t) => {
  const { google, url, keys, send, stored } = await setup(t);
  const other = await startFakeGoogle(t);
  // Same account email, another private key: Google's token endpoint refuses its assertion.
  await configured(url, keys.secret, 'google-play', google.config({ service_account_json: other.serviceAccountJson }));
  paidPeriod(google, 0);
  const refused = await problem(await send(subscriptionPush(2)), 503, 'store_unavailable');
  assert.match(refused.detail, /token endpoint answered 400/);
  assert.equal(google.calls.api, 0);
  assert.deepEqual(await stored(), []);
});

test('an access token Google no longer accepts is dropped: 503, then the redelivery exchanges a new one and is stored', async (t) => {
  const { google, send, stored } = await setup(t);
  paidPeriod(google, 0);
  google.subscriptions.set('tok-2', subscription({ offerPhase: { freeTrial: {} } }));
  assert.deepEqual(await (await send(subscriptionPush(4, 'tok-2'))).json(), { outcome: 'stored', stored: 1 });
  assert.equal(google.calls.token, 1);
  google.revokeTokens();
  const refused = await problem(await send(subscriptionPush(2)), 503, 'store_unavailable');
  assert.match(refused.detail, /answered 401/);
  assert.deepEqual(await (await send(subscriptionPush(2))).json(), { outcome: 'stored', stored: 1 });
  assert.equal(google.calls.token, 2);
  assert.deepEqual((await stored()).length, 2);
});

test('an answer that redirects is not followed (the token stays with Google) and one larger than 1 MiB is not read: 503 both', async (t) => {
  const { google, send, stored } = await setup(t);
  paidPeriod(google, 0);
  google.playOutage = 'redirect';
  const redirected = await problem(await send(subscriptionPush(2)), 503, 'store_unavailable');
  assert.match(redirected.detail, /connection failed/);
  assert.equal(google.calls.elsewhere, 0);
  google.playOutage = undefined;
  google.subscriptions.set('tok-1', subscription({ offerPhase: { freeTrial: {} } }, { padding: 'x'.repeat(1100 * 1024) }));
  const oversized = await problem(await send(subscriptionPush(4)), 503, 'store_unavailable');
  assert.match(oversized.detail, /more than 1048576 bytes/);
  assert.deepEqual(await stored(), []);
});
