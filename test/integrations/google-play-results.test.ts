/**
 * Google Play purchases from push to results: users exposed to a paywall experiment (anonymous,
 * then identified), their trials, purchases, renewals, cancellations and refunds pushed through
 * Pub/Sub and read from the Play API (fake-google.ts), counted in the results as every other
 * source's records are (docs/guide/revenue.md, "Attribution").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { obfuscatedAccountId } from '../../client/app-account-token.ts';
import { ingest } from '../helpers/events.ts';
import { configured, deliver } from '../helpers/hooks.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { money, pushBody, startFakeGoogle } from './fake-google.ts';

const EUR = (units: number, nanos: number) => money('EUR', units, nanos);

test('trials, purchases, renewals, cancellations and refunds from Google Play count in the results like every source', async (t) => {
  const google = await startFakeGoogle(t);
  const server = await startTestServer(t, { google: google.endpoints });
  const client = api(server);
  await configured(server.url, server.keys.secret, 'google-play', google.config());
  await client.putPaywall('play', {
    name: 'Play',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: 1, control: true },
      { id: 'annual', weight: 1 },
    ],
  });
  await client.publish('play');
  const phases = (await (await client.request('GET', '/api/paywalls/play/phases')).json()) as Json;
  const from = Date.parse(phases.phases.at(-1).started_at);

  // Six users, three per variant, exposed anonymously and then signed in.
  const variantOf: Record<string, string> = { u1: 'control', u2: 'control', u3: 'control', u4: 'annual', u5: 'annual', u6: 'annual' };
  const events = Object.entries(variantOf).map(([user, variant], i) => ({
    id: `e${i}`,
    type: 'screen_impression',
    paywall_id: 'play',
    variant_id: variant,
    user_id: `anon-${user}`,
    ts: from + 1000,
  }));
  assert.equal((await ingest(server.url, server.keys.sdk, { events })).accepted, events.length);
  for (const user of Object.keys(variantOf)) {
    const linked = await client.request('POST', '/api/sdk/identify', { body: { anonymous_id: `anon-${user}`, user_id: user }, key: server.keys.sdk });
    assert.equal(linked.status, 200);
  }

  let clock = from + 60_000;
  const push = async (notification: Json) => {
    clock += 60_000;
    const body = pushBody({ ...notification, eventTimeMillis: String(clock) });
    const response = await deliver(server.url, 'google-play', server.projectId, body, { authorization: `Bearer ${google.pushToken()}` });
    assert.deepEqual(await response.json(), { outcome: 'stored', stored: 1 });
  };
  const state = (user: string, token: string, product: string, item: Json) => {
    const line = { productId: product, autoRenewingPlan: { autoRenewEnabled: true, recurringPrice: EUR(9, 990_000_000) }, ...item };
    google.subscriptions.set(token, { externalAccountIdentifiers: { obfuscatedExternalAccountId: obfuscatedAccountId(user) }, lineItems: [line] });
  };
  const paid = (user: string, token: string, product: string, orderId: string, total: Json, type: number) => {
    state(user, token, product, { offerPhase: { basePrice: {} }, latestSuccessfulOrderId: orderId });
    google.orders.set(orderId, { orderId, total, lineItems: [{ productId: product }] });
    return push({ subscriptionNotification: { notificationType: type, purchaseToken: token } });
  };
  const PURCHASED = 4;
  const RENEWED = 2;
  const CANCELED = 3;

  // u1 (control): a free trial, its conversion, a renewal, then that renewal refunded.
  state('u1', 't1', 'pro_monthly', { offerPhase: { freeTrial: {} }, latestSuccessfulOrderId: 'GPA.1' });
  await push({ subscriptionNotification: { notificationType: PURCHASED, purchaseToken: 't1' } });
  await paid('u1', 't1', 'pro_monthly', 'GPA.1..0', EUR(9, 990_000_000), RENEWED);
  await paid('u1', 't1', 'pro_monthly', 'GPA.1..1', EUR(9, 990_000_000), RENEWED);
  google.orders.set('GPA.1..1', {
    orderId: 'GPA.1..1',
    total: EUR(9, 990_000_000),
    lineItems: [{ productId: 'pro_monthly' }],
    orderHistory: { refundEvent: { eventTime: new Date(clock + 30_000).toISOString(), refundDetails: { total: EUR(9, 990_000_000) } } },
  });
  await push({ voidedPurchaseNotification: { purchaseToken: 't1', orderId: 'GPA.1..1', productType: 1, refundType: 1 } });
  // u2 (control): bought at once, then cancelled.
  await paid('u2', 't2', 'pro_monthly', 'GPA.2', EUR(9, 990_000_000), PURCHASED);
  await push({ subscriptionNotification: { notificationType: CANCELED, purchaseToken: 't2' } });
  // u4 (annual): the yearly plan; u5 (annual): a trial, cancelled before it converts.
  await paid('u4', 't4', 'pro_yearly', 'GPA.4', EUR(49, 990_000_000), PURCHASED);
  state('u5', 't5', 'pro_monthly', { offerPhase: { freeTrial: {} }, latestSuccessfulOrderId: 'GPA.5' });
  await push({ subscriptionNotification: { notificationType: PURCHASED, purchaseToken: 't5' } });
  await push({ subscriptionNotification: { notificationType: CANCELED, purchaseToken: 't5' } });

  const results = (await (await fetch(`${server.url}/api/paywalls/play/results`, { headers: bearer(server.keys.secret) })).json()) as Json;
  const variant = (id: string) => results.variants.find((v: Json) => v.variant_id === id);
  const figures = (id: string) => {
    const v = variant(id);
    const eur = (v.revenue as Json[])[0]!;
    return {
      exposed: v.exposed_users,
      conversions: v.conversions,
      trialStarts: v.trial_starts,
      trialConversions: v.trial_conversions,
      currency: eur.currency,
      gross: eur.gross,
      refunded: eur.refunded,
      net: eur.total,
    };
  };
  // u1 converts from its trial, u2 by buying; the renewal is revenue and converts no one; its refund comes off.
  assert.deepEqual(figures('control'), {
    exposed: 3,
    conversions: 2,
    trialStarts: 1,
    trialConversions: 1,
    currency: 'EUR',
    gross: 29.97,
    refunded: 9.99,
    net: 19.98,
  });
  assert.deepEqual(figures('annual'), {
    exposed: 3,
    conversions: 1,
    trialStarts: 1,
    trialConversions: 0,
    currency: 'EUR',
    gross: 49.99,
    refunded: 0,
    net: 49.99,
  });
});
