/**
 * The purchases.* facts through a real server, before and after each kind
 * of record (a purchase, a renewal, a refund, an expiry) and an identify
 * link, read from explain=1 (which shows the facts a decision used) and
 * through the decisions themselves: a win-back rule, a trial offer kept
 * from users who had a trial, a paywall audience on purchases.*; and the
 * 400 user_required of a request without a userId.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { askPlacement, livePaywalls, placementAnswer, putPlacement, recordPurchases, shown, titled } from '../helpers/placements.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const DAY = 86_400_000;
const NONE = { is_subscriber: false, had_trial: false, lapsed_days: null, count: 0, products: [], first_purchase_days: null };

/** The facts a placement decision used for this user (explain=1 with the secret key). */
async function factsOf(server: TestServer, userId: string): Promise<Json> {
  const answer = await placementAnswer({ ...server, keys: { ...server.keys, sdk: server.keys.secret } }, { placement: 'offers', userId, explain: '1' });
  return answer.explain.attributes.purchases;
}

async function becomes(server: TestServer, userId: string, expected: Json, what: string): Promise<void> {
  let last: Json | undefined;
  await until(
    async () => {
      last = await factsOf(server, userId);
      return JSON.stringify(last) === JSON.stringify(expected);
    },
    `${what}: ${JSON.stringify(expected)} (last ${JSON.stringify(last)})`,
  );
}

let sequence = 0;
function record(userId: string, type: string, daysAgo: number, extra: Json = {}): Json {
  return {
    id: `r-${++sequence}`,
    user_id: userId,
    type,
    ts: Date.now() - daysAgo * DAY,
    product_id: 'pro_monthly',
    revenue: ['initial_purchase', 'renewal', 'trial_converted', 'refund', 'non_renewing_purchase'].includes(type) ? 9.99 : 0,
    currency: 'USD',
    original_transaction_id: `otx-${userId}`,
    ...extra,
  };
}

test('the facts before and after a purchase, a renewal, an expiry, a refund and an identify link decide the rules', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['winback', 'trial', 'upsell']);
  await putPlacement(server, 'offers', {
    name: 'Offers',
    rules: [
      { audience: { 'purchases.lapsed_days': { $gte: 7 } }, paywall_id: 'winback' },
      { audience: { 'purchases.had_trial': false, 'purchases.is_subscriber': false }, paywall_id: 'trial' },
      { audience: { 'purchases.is_subscriber': false }, paywall_id: 'upsell' },
    ],
  });
  assert.deepEqual(await factsOf(server, 'ann'), NONE);
  assert.equal(await shown(server, { placement: 'offers', userId: 'ann' }), 'trial');

  await recordPurchases(server, [record('ann', 'initial_purchase', 40)]);
  const bought = { is_subscriber: true, had_trial: false, lapsed_days: null, count: 1, products: ['pro_monthly'], first_purchase_days: 40 };
  await becomes(server, 'ann', bought, 'after a purchase');
  assert.equal(await shown(server, { placement: 'offers', userId: 'ann' }), '-no_rule_matched', 'a subscriber gets no offer');

  await recordPurchases(server, [record('ann', 'renewal', 10)]);
  await becomes(server, 'ann', { ...bought, count: 2 }, 'after a renewal');

  await recordPurchases(server, [record('ann', 'expiration', 9)]);
  await becomes(server, 'ann', { ...bought, count: 2, is_subscriber: false, lapsed_days: 9 }, 'after an expiry');
  assert.equal(await shown(server, { placement: 'offers', userId: 'ann' }), 'winback');

  await recordPurchases(server, [record('bob', 'trial_started', 6), record('bob', 'trial_converted', 3, { product_id: 'pro_annual' })]);
  const converted = { is_subscriber: true, had_trial: true, lapsed_days: null, count: 1, products: ['pro_annual'], first_purchase_days: 3 };
  await becomes(server, 'bob', converted, 'after a trial and its conversion');
  await recordPurchases(server, [record('bob', 'refund', 2, { product_id: 'pro_annual' })]);
  await becomes(server, 'bob', { ...converted, is_subscriber: false, lapsed_days: 2 }, 'after a refund');
  assert.equal(await shown(server, { placement: 'offers', userId: 'bob' }), 'upsell', 'lapsed 2 days, had a trial: neither win-back nor trial');

  // carol had a trial on this device, never paid; her anonymous id bought on another before she signed in.
  await recordPurchases(server, [
    record('carol', 'trial_started', 30, { original_transaction_id: 'otx-carol-trial' }),
    record('carol', 'expiration', 23, { original_transaction_id: 'otx-carol-trial' }),
    record('anon-c', 'initial_purchase', 20, { product_id: 'pro_annual' }),
  ]);
  await becomes(server, 'carol', { ...NONE, had_trial: true }, 'a trial that expired unpaid: not lapsed');
  const linked = await fetch(`${server.url}/api/sdk/identify`, {
    method: 'POST',
    headers: { ...bearer(server.keys.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ anonymous_id: 'anon-c', user_id: 'carol' }),
  });
  assert.equal(linked.status, 200, await linked.text());
  const joined = { is_subscriber: true, had_trial: true, lapsed_days: null, count: 1, products: ['pro_annual'], first_purchase_days: 20 };
  await becomes(server, 'carol', joined, 'after the identify link');
  assert.deepEqual(await factsOf(server, 'anon-c'), joined, 'the anonymous id counts as its user');
  // A record of the anonymous id after the link counts for the user too.
  await recordPurchases(server, [record('anon-c', 'expiration', 8)]);
  await becomes(server, 'carol', { ...joined, is_subscriber: false, lapsed_days: 8 }, 'an expiry recorded for the anonymous id');
});

test('a request without a userId whose placement or paywall tests purchases.* answers 400 user_required; others answer', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['plain']);
  const client = api(server);
  await client.putPaywall(
    'targeted',
    titled('targeted', {
      variants: [
        { id: 'a', weight: 1 },
        { id: 'b', weight: 0 },
      ],
      audiences: [{ id: 'subscribers', when: { 'purchases.is_subscriber': true }, weights: { b: 1 } }],
    }),
  );
  await client.publish('targeted');
  await putPlacement(server, 'by_rule', { name: 'R', rules: [{ audience: { 'purchases.count': { $gt: 0 } }, paywall_id: 'plain' }] });
  await putPlacement(server, 'by_paywall', { name: 'P', rules: [{ paywall_id: 'targeted' }] });
  await putPlacement(server, 'plain', { name: 'N', rules: [{ paywall_id: 'plain' }] });
  await problem(await askPlacement(server, { placement: 'by_rule' }), 400, 'user_required');
  await problem(await askPlacement(server, { placement: 'by_paywall' }), 400, 'user_required');
  await problem(await client.resolve({ paywallId: 'targeted' }), 400, 'user_required');
  assert.equal(await shown(server, { placement: 'plain' }), 'plain');
  assert.equal((await client.resolve({ paywallId: 'plain' })).status, 200);

  const before = await (await client.resolve({ paywallId: 'targeted', userId: 'dan' })).json();
  assert.deepEqual([before.variant.id, before.variant.audience], ['a', null]);
  await recordPurchases(server, [record('dan', 'initial_purchase', 1)]);
  await until(async () => (await (await client.resolve({ paywallId: 'targeted', userId: 'dan' })).json()).variant.id === 'b', "dan's purchase in his facts");
  const explained = await (await client.resolve({ paywallId: 'targeted', userId: 'dan', explain: '1' }, bearer(server.keys.secret))).json();
  assert.equal(explained.explain.attributes.purchases.is_subscriber, true);
  assert.equal((await placementAnswer(server, { placement: 'by_paywall', userId: 'dan' })).paywall.variant.id, 'b');
  assert.equal(await shown(server, { placement: 'by_rule', userId: 'dan' }), 'plain');
  assert.equal(await shown(server, { placement: 'by_rule', userId: 'eve' }), '-no_rule_matched');
});

test('a purchase recorded through this server is in its facts when POST /api/purchases answers', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['winback']);
  await putPlacement(server, 'offers', { name: 'Offers', rules: [{ audience: { 'purchases.lapsed_days': { $gte: 7 } }, paywall_id: 'winback' }] });
  for (const user of ['fay', 'gus', 'hal']) {
    await recordPurchases(server, [record(user, 'initial_purchase', 40), record(user, 'expiration', 9)]);
    // No wait: the answer to the POST means the facts have it (the watch alone would take up to its interval).
    assert.equal(await shown(server, { placement: 'offers', userId: user }), 'winback', `${user} lapsed as soon as recorded`);
  }
});
