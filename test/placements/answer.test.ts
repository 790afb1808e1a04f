/**
 * GET /api/sdk/placement through a real server: the first rule whose
 * audience matches decides (client attributes here; purchases.* in
 * facts.test.ts), then the default; a paywall that is not live shows
 * nothing; the holdout is a stable split near its percentage; answers carry
 * the paywall's resolve answer unchanged, an ETag and 304; explain and
 * every refusal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api } from '../helpers/paywalls.ts';
import { askPlacement, livePaywalls, placementAnswer, putPlacement, shown } from '../helpers/placements.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

test('rules are tried in order on the request attributes: the first match decides, then the default, else nothing', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['german', 'ios_pro', 'vip', 'fallback']);
  await putPlacement(server, 'home', {
    name: 'Home',
    rules: [
      { audience: { country: 'DE' }, paywall_id: 'german' },
      { audience: { platform: 'ios', appVersion: { $vgte: '2.0.0' } }, paywall_id: 'ios_pro' },
      { audience: { 'attr.plan': 'vip' }, paywall_id: 'vip' },
    ],
    default: 'fallback',
  });
  assert.equal(await shown(server, { placement: 'home', country: 'de', platform: 'ios', appVersion: '3.0.0' }), 'german', 'the first rule wins');
  assert.equal(await shown(server, { placement: 'home', platform: 'iOS', appVersion: '2.1.0', 'attr.plan': 'vip' }), 'ios_pro');
  assert.equal(await shown(server, { placement: 'home', platform: 'ios', appVersion: '1.9.0', 'attr.plan': 'vip' }), 'vip');
  assert.equal(await shown(server, { placement: 'home', platform: 'android' }), 'fallback');
  const answer = await placementAnswer(server, { placement: 'home', userId: 'u1', platform: 'ios', appVersion: '2.0.0' });
  assert.deepEqual([answer.show, answer.placement, answer.rule, answer.frequency], [true, 'home', 1, null]);
  // The paywall inside is what /api/sdk/config answers for the same request, byte for byte.
  const resolved = await api(server).resolve({ paywallId: 'ios_pro', userId: 'u1', platform: 'ios', appVersion: '2.0.0' });
  assert.deepEqual(answer.paywall, await resolved.json());
  assert.equal((await placementAnswer(server, { placement: 'home' })).rule, null, 'the default paywall has no rule');

  await putPlacement(server, 'home', { name: 'Home', rules: [{ audience: { country: 'DE' }, paywall_id: 'german' }] });
  assert.deepEqual(await placementAnswer(server, { placement: 'home', country: 'FR' }), {
    show: false,
    placement: 'home',
    reason: 'no_rule_matched',
    rule: null,
    paywall_id: null,
  });
  await putPlacement(server, 'home', { name: 'Home', rules: [{ audience: { country: 'DE' }, paywall_id: 'draft' }], default: 'none' });
  assert.deepEqual(await placementAnswer(server, { placement: 'home', country: 'DE' }), {
    show: false,
    placement: 'home',
    reason: 'paywall_not_live',
    rule: 0,
    paywall_id: 'draft',
  });
});

test('the holdout is a split per placement and user: stable across calls, near its percentage over 2,000 users', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer']);
  await putPlacement(server, 'exit', { name: 'Exit', rules: [{ paywall_id: 'offer', holdout_percent: 20 }] });
  await putPlacement(server, 'exit_too', { name: 'Exit too', rules: [{ paywall_id: 'offer', holdout_percent: 20 }] });
  const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`);
  const heldOut = async (placement: string) => {
    const held = new Set<string>();
    for (let from = 0; from < users.length; from += 50) {
      const answers = await Promise.all(users.slice(from, from + 50).map((userId) => placementAnswer(server, { placement, userId })));
      answers.forEach((answer, i) => {
        if (!answer.show) {
          assert.deepEqual([answer.reason, answer.rule, answer.paywall_id], ['holdout', 0, 'offer']);
          held.add(users[from + i]!);
        }
      });
    }
    return held;
  };
  const first = await heldOut('exit');
  // 20 % of 2,000: a binomial's standard deviation is 18 users; 90 is five of them.
  assert.ok(Math.abs(first.size - 400) < 90, `${first.size} held out`);
  assert.deepEqual(await heldOut('exit'), first, 'the same users on every call');
  const other = await heldOut('exit_too');
  const both = [...first].filter((user) => other.has(user)).length;
  // Each placement splits on its own: about 20 % of one's holdout (80 users, give or take 8) is in the other's, not all of it.
  assert.ok(both > 40 && both < 140, `${both} users held out of both`);
  // Without a userId there is nothing to hash: nobody is held out.
  assert.equal(await shown(server, { placement: 'exit' }), 'offer');
});

test('answers carry an ETag that a 304 confirms and a change of the placement or the paywall moves', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer', 'other']);
  await putPlacement(server, 'p', { name: 'P', rules: [{ paywall_id: 'offer' }] });
  const first = await askPlacement(server, { placement: 'p', userId: 'u' });
  const tag = first.headers.get('etag')!;
  assert.equal(first.headers.get('cache-control'), 'private, no-cache');
  assert.equal((await askPlacement(server, { placement: 'p', userId: 'u' }, { 'if-none-match': tag })).status, 304);
  await api(server).putPaywall('offer', { ...(await (await api(server).request('GET', '/api/paywalls/offer')).json()).document, name: 'Changed' });
  await api(server).publish('offer');
  assert.equal((await askPlacement(server, { placement: 'p', userId: 'u' }, { 'if-none-match': tag })).status, 200, 'the paywall changed');
  const second = (await askPlacement(server, { placement: 'p', userId: 'u' })).headers.get('etag')!;
  await putPlacement(server, 'p', { name: 'P', rules: [{ paywall_id: 'other' }] });
  assert.equal((await askPlacement(server, { placement: 'p', userId: 'u' }, { 'if-none-match': second })).status, 200, 'the placement changed');
  await putPlacement(server, 'p', { name: 'P', rules: [] });
  const none = await askPlacement(server, { placement: 'p', userId: 'u' });
  assert.equal((await askPlacement(server, { placement: 'p', userId: 'u' }, { 'if-none-match': none.headers.get('etag')! })).status, 304);
});

test('explain=1 with a secret key says which rule decided and why; refusals have their codes', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer']);
  await putPlacement(server, 'p', {
    name: 'P',
    rules: [
      { audience: { country: 'DE' }, paywall_id: 'offer' },
      { audience: { platform: 'ios' }, paywall_id: 'offer', holdout_percent: 50 },
    ],
  });
  const explained = await placementAnswer(
    { ...server, keys: { ...server.keys, sdk: server.keys.secret } },
    {
      placement: 'p',
      userId: 'u-7',
      platform: 'ios',
      explain: '1',
    },
  );
  assert.equal(explained.explain.rules[0].matched, false);
  assert.deepEqual(explained.explain.rules[0].conditions, [{ clause: { country: 'DE' }, attribute: 'country', value: null, result: false }]);
  assert.equal(explained.explain.rules[1].matched, true);
  assert.equal(explained.explain.holdout.seed, 'placement:p');
  assert.equal(explained.explain.holdout.held_out_below, 5000);
  assert.equal(explained.show, explained.explain.holdout.bucket >= 5000);
  assert.match(explained.explain.reason, /^rule 1 matched/);
  await problem(await askPlacement(server, { placement: 'p', explain: '1' }), 403, 'insufficient_scope');
  await problem(await askPlacement(server, { placement: 'nope' }), 404, 'placement_not_found');
  await problem(await askPlacement(server, {}), 400, 'invalid_query');
  await problem(await askPlacement(server, { placement: 'p', platform: 'tv' }), 400, 'invalid_query');
  await problem(await askPlacement(server, { placement: 'x'.repeat(65) }), 400, 'invalid_query');
  await api(server).request('DELETE', '/api/placements/p');
  await problem(await askPlacement(server, { placement: 'p' }), 404, 'placement_not_found');
});
