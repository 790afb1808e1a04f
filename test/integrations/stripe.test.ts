/** The Stripe connector through the real server: signatures (valid, forged, stale, several v1), mapping, redelivery, unused types. */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { configure, configured, deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

const SECRET = 'whsec_test_0123456789abcdef';

function signature(body: string, secret = SECRET, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

function event(id: string, type: string, object: Record<string, unknown>): string {
  return JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000) - 60, data: { object } });
}

const checkout = (id: string, amount: number, currency = 'usd') =>
  event(id, 'checkout.session.completed', {
    id: `cs_${id}`,
    object: 'checkout.session',
    client_reference_id: 'alice',
    customer: 'cus_1',
    mode: 'subscription',
    subscription: 'sub_1',
    invoice: `in_${id}`,
    amount_total: amount,
    currency,
    metadata: { paywalld_paywall_id: 'onboarding' },
  });

const invoice = (id: string, amount: number, reason = 'subscription_cycle') =>
  event(id, 'invoice.paid', {
    id: `in_${id}`,
    object: 'invoice',
    customer: 'cus_1',
    billing_reason: reason,
    amount_paid: amount,
    currency: 'usd',
    parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1', metadata: {} } },
  });

const refund = (id: string, refunded: number, currency = 'usd', charge = 'ch_1') =>
  event(id, 'charge.refunded', { id: charge, object: 'charge', customer: 'cus_1', amount: 999, amount_refunded: refunded, currency, metadata: {} });

async function setup(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t);
  await configured(server.url, server.keys.secret, 'stripe', { signing_secret: SECRET });
  const send = (body: string, header = signature(body)) => deliver(server.url, 'stripe', server.projectId, body, { 'stripe-signature': header });
  const stored = async () => (await server.server.ctx.purchases.list(server.projectId)).map((p) => [p.type, p.userId, p.revenue, p.currency]);
  return { ...server, send, stored };
}

test('a trial checkout, its conversion, a renewal and two partial refunds become records in major units', async (t) => {
  const { send, stored, server, projectId } = await setup(t);
  for (const body of [checkout('evt_1', 0), invoice('evt_2', 999), invoice('evt_3', 999), refund('evt_4', 300), refund('evt_5', 999)]) {
    const response = await send(body);
    assert.equal(response.status, 200, await response.clone().text());
    assert.deepEqual(await response.json(), { outcome: 'stored', stored: 1 });
  }
  assert.deepEqual(await stored(), [
    ['trial_started', 'alice', 0, 'USD'],
    ['trial_converted', 'alice', 9.99, 'USD'],
    ['renewal', 'alice', 9.99, 'USD'],
    ['refund', 'alice', 3, 'USD'],
    ['refund', 'alice', 6.99, 'USD'],
  ]);
  const first = (await server.ctx.purchases.list(projectId))[0]!;
  assert.equal(first.paywallId, 'onboarding');
  assert.equal(first.originalTransactionId, 'sub_1');
});

test('zero-decimal currencies (JPY) are not divided; ISK stays two-decimal as in Stripe; three-decimal KWD', async (t) => {
  const { send, stored } = await setup(t);
  await send(checkout('evt_jpy', 1200, 'jpy'));
  // What the refunds take back: a refund counts only against what its purchases paid (docs/guide/revenue.md, "Refunds").
  await send(checkout('evt_isk_paid', 60000, 'isk'));
  await send(checkout('evt_kwd_paid', 60000, 'kwd'));
  await send(refund('evt_isk', 50000, 'isk', 'ch_isk'));
  await send(refund('evt_kwd', 52130, 'kwd', 'ch_kwd'));
  assert.deepEqual(await stored(), [
    ['initial_purchase', 'alice', 1200, 'JPY'],
    ['initial_purchase', 'alice', 600, 'ISK'],
    ['initial_purchase', 'alice', 60, 'KWD'],
    ['refund', 'alice', 500, 'ISK'],
    ['refund', 'alice', 52.13, 'KWD'],
  ]);
});

test('forged, stale, future and missing signatures answer 401 and store nothing; any v1 may match', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  const body = checkout('evt_1', 999);
  const now = Math.floor(Date.now() / 1000);
  await problem(await send(body, signature(body, 'whsec_wrong_secret')), 401, 'invalid_signature');
  // A minute past the 300 s tolerance either way: the time the request takes to arrive cannot bring it back inside.
  await problem(await send(body, signature(body, SECRET, now - 360)), 401, 'invalid_signature');
  await problem(await send(body, signature(body, SECRET, now + 360)), 401, 'invalid_signature');
  await problem(await send(body, ''), 401, 'invalid_signature');
  await problem(await send(body, `t=${now}`), 401, 'invalid_signature');
  await problem(await send(body.replace('999', '1'), signature(body)), 401, 'invalid_signature');
  // A v1 that is not 64 hex digits (a base64 HMAC, a truncated copy) is named malformed, not missing.
  const malformed = await problem(
    await send(body, `t=${now},v1=${crypto.createHmac('sha256', SECRET).update(`${now}.${body}`).digest('base64')}`),
    401,
    'invalid_signature',
  );
  assert.match(malformed.detail, /v1= is malformed/);
  assert.deepEqual(await stored(), []);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="stripe",outcome="refused"}'), 7);
  const rolled = `${signature(body, 'whsec_old_secret_xx')},${signature(body).replace(/^t=\d+,/, '')}`;
  assert.equal((await send(body, rolled)).status, 200);
  assert.equal((await stored()).length, 1);
});

test('a redelivered event is stored once; an event type paywalld does not use answers 200 and is counted', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  const body = checkout('evt_1', 999);
  assert.deepEqual(await (await send(body)).json(), { outcome: 'stored', stored: 1 });
  assert.deepEqual(await (await send(body)).json(), { outcome: 'duplicate', stored: 0 });
  assert.deepEqual(await (await send(event('evt_9', 'customer.created', { id: 'cus_9' }))).json(), { outcome: 'unused_type', stored: 0 });
  assert.deepEqual(await (await send(invoice('evt_10', 999, 'subscription_create'))).json(), { outcome: 'unused_type', stored: 0 });
  const unpaid = checkout('evt_11', 999).replace('"mode":"subscription"', '"payment_status":"unpaid","mode":"subscription"');
  assert.deepEqual(await (await send(unpaid)).json(), { outcome: 'unused_type', stored: 0 });
  assert.equal((await stored()).length, 1);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="stripe",outcome="unused_type"}'), 3);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="stripe",outcome="duplicate"}'), 1);
});

test('a checkout that names no user is answered 200 and stores nothing; a signed body that is not an event is 400', async (t) => {
  const { send, stored } = await setup(t);
  const anonymous = checkout('evt_1', 999).replace('"client_reference_id":"alice",', '');
  assert.deepEqual(await (await send(anonymous)).json(), { outcome: 'no_user', stored: 0 });
  await problem(await send('not json'), 400, 'invalid_notification');
  await problem(await send(JSON.stringify({ type: 'invoice.paid' })), 400, 'invalid_notification');
  assert.deepEqual(await stored(), []);
});

test('configuration: secrets are write-only, GET shows a fingerprint; an unconfigured project or provider is 404', async (t) => {
  const { url, keys, projectId } = await startTestServer(t);
  await problem(await deliver(url, 'stripe', projectId, '{}'), 404, 'integration_not_found');
  await problem(await fetch(`${url}/api/integrations/stripe`, { headers: bearer(keys.secret) }), 404, 'integration_not_found');
  await problem(await configure(url, keys.secret, 'paypal', { signing_secret: SECRET }), 404, 'integration_not_found');
  await problem(await configure(url, keys.secret, 'stripe', { signing_secret: 'short' }), 422, 'validation_failed');
  await problem(await configure(url, keys.sdk, 'stripe', { signing_secret: SECRET }), 403, 'insufficient_scope');
  await configured(url, keys.secret, 'stripe', { signing_secret: SECRET });
  const shown = (await (await fetch(`${url}/api/integrations/stripe`, { headers: bearer(keys.secret) })).json()) as any;
  assert.equal(shown.webhook_path, `/hooks/stripe/${projectId}`);
  assert.match(shown.fingerprint, /^sha256:[0-9a-f]{16}$/);
  assert.ok(!JSON.stringify(shown).includes(SECRET));
  await problem(await deliver(url, 'stripe', 'no-such-project', '{}'), 404, 'integration_not_found');
});

test('a body is not parsed before its origin is known: nested brackets without a signature are 401, at an unknown project 404', async (t) => {
  const { send, url, projectId, stored } = await setup(t);
  // A megabyte of '[' costs V8 a long parse; none of it is parsed for a caller that signed nothing.
  const brackets = '['.repeat(512 * 1024);
  await problem(await send(brackets, 't=1,v1=00'), 401, 'invalid_signature');
  await problem(await deliver(url, 'stripe', 'prj_unknown', brackets, { 'stripe-signature': signature(brackets) }), 404, 'integration_not_found');
  await problem(await deliver(url, 'revenuecat', projectId, brackets, { authorization: 'Bearer guess' }), 404, 'integration_not_found');
  await problem(await send(brackets), 400, 'invalid_notification');
  assert.deepEqual(await stored(), []);
});

test('an amount past the revenue bound every source has (2^53−1 cents) is 400 and stores nothing', async (t) => {
  const { send, stored } = await setup(t);
  const huge = await problem(await send(checkout('evt_1', Number.MAX_SAFE_INTEGER)), 400, 'invalid_notification');
  assert.match(huge.detail, /from 0 to 1000000000 in major units/);
  assert.deepEqual(await stored(), []);
  // A renewal of a known customer, as large.
  assert.equal((await send(checkout('evt_2', 999))).status, 200);
  await problem(await send(invoice('evt_3', Number.MAX_SAFE_INTEGER)), 400, 'invalid_notification');
  assert.deepEqual(await stored(), [['initial_purchase', 'alice', 9.99, 'USD']]);
});
