/**
 * A placement's results through a real server against a brute force over
 * the raw records the test sent: who was shown and who held out (the
 * placement's own answers decide), conversions and net revenue at or after
 * each user's first exposure from purchase events of any paywall and from
 * purchase records (an identify link joining an anonymous id's), users
 * exposed both ways left out; then the statistics of experiments on them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { livePaywalls, placementAnswer, putPlacement, recordPurchases } from '../helpers/placements.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const SALES = ['initial_purchase', 'non_renewing_purchase', 'trial_converted'];

interface Purchase {
  user: string;
  ts: number;
  revenue: number;
  /** A sale converts; a renewal adds revenue; a refund takes it away. */
  kind: 'sale' | 'renewal' | 'refund';
}

test('shown, held out, conversions and net revenue per user are the brute force over the raw records', async (t) => {
  const server = await startTestServer(t);
  await livePaywalls(server, ['offer', 'elsewhere']);
  await putPlacement(server, 'exit', { name: 'Exit', rules: [{ paywall_id: 'offer', holdout_percent: 30 }] });
  const start = Date.now() + 1000;
  const users = Array.from({ length: 300 }, (_, i) => `u${i}`);
  const arm = new Map<string, 'shown' | 'held_out'>();
  for (const userId of users) {
    const answer = await placementAnswer(server, { placement: 'exit', userId });
    arm.set(userId, answer.show ? 'shown' : 'held_out');
  }
  const events: Json[] = [];
  const exposures = new Map<string, { ts: number; arms: Set<string> }>();
  const expose = (user: string, as: 'shown' | 'held_out', ts: number) => {
    events.push({ type: as === 'shown' ? 'screen_impression' : 'placement_holdout', paywall_id: 'offer', ts, user_id: user, placement: 'exit' });
    const seen = exposures.get(user) ?? { ts, arms: new Set() };
    seen.ts = Math.min(seen.ts, ts);
    seen.arms.add(as);
    exposures.set(user, seen);
  };
  const purchases: Purchase[] = [];
  const records: Json[] = [];
  users.forEach((user, i) => {
    const at = start + i * 10;
    expose(user, arm.get(user)!, at);
    if (i % 50 === 7) expose(user, arm.get(user) === 'shown' ? 'held_out' : 'shown', at + 5);
    if (i % 3 === 0) {
      // A purchase through the placement's paywall, or another: any purchase counts.
      const revenue = 1 + (i % 7);
      events.push({ type: 'purchase_complete', paywall_id: i % 2 ? 'offer' : 'elsewhere', ts: at + 100, user_id: user, revenue, currency: 'USD' });
      purchases.push({ user, ts: at + 100, revenue, kind: 'sale' });
    }
    if (i % 5 === 0) {
      const type = SALES[i % 3]!;
      records.push({ id: `s${i}`, user_id: user, type, ts: at + 200, product_id: 'pro', revenue: 4.99, currency: 'USD' });
      purchases.push({ user, ts: at + 200, revenue: 4.99, kind: 'sale' });
      if (i % 10 === 0) {
        records.push({ id: `r${i}`, user_id: user, type: 'refund', ts: at + 300, product_id: 'pro', revenue: 4.99, currency: 'USD' });
        purchases.push({ user, ts: at + 300, revenue: 4.99, kind: 'refund' });
      } else {
        records.push({ id: `n${i}`, user_id: user, type: 'renewal', ts: at + 400, product_id: 'pro', revenue: 2.5, currency: 'USD' });
        purchases.push({ user, ts: at + 400, revenue: 2.5, kind: 'renewal' });
      }
    }
    // Before the exposure: history, not a conversion.
    if (i % 11 === 0) {
      events.push({ type: 'purchase_complete', paywall_id: 'elsewhere', ts: at - 1, user_id: user, revenue: 50, currency: 'USD' });
      purchases.push({ user, ts: at - 1, revenue: 50, kind: 'sale' });
    }
  });
  // An anonymous id's purchase, then linked to u4: it counts for u4.
  records.push({ id: 'anon-sale', user_id: 'anon-4', type: 'non_renewing_purchase', ts: start + 40 + 500, product_id: 'pro', revenue: 7, currency: 'USD' });
  purchases.push({ user: 'u4', ts: start + 40 + 500, revenue: 7, kind: 'sale' });
  for (let from = 0; from < events.length; from += 1000) await ingest(server.url, server.keys.sdk, { events: events.slice(from, from + 1000) });
  await recordPurchases(server, records);
  const linked = await fetch(`${server.url}/api/sdk/identify`, {
    method: 'POST',
    headers: { ...bearer(server.keys.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ anonymous_id: 'anon-4', user_id: 'u4' }),
  });
  assert.equal(linked.status, 200);

  // The brute force.
  const expected = { shown: { exposed: 0, converted: 0, revenue: 0 }, held_out: { exposed: 0, converted: 0, revenue: 0 } };
  let multiple = 0;
  for (const [user, seen] of exposures) {
    if (seen.arms.size > 1) {
      multiple++;
      continue;
    }
    const figures = expected[[...seen.arms][0] as 'shown' | 'held_out'];
    figures.exposed++;
    const after = purchases.filter((p) => p.user === user && p.ts >= seen.ts);
    if (after.some((p) => p.kind === 'sale')) figures.converted++;
    figures.revenue += after.reduce((sum, p) => sum + (p.kind === 'refund' ? -p.revenue : p.revenue), 0);
  }

  let results: Json = {};
  await until(async () => {
    const response = await api(server).request('GET', '/api/placements/exit/results');
    if (response.status !== 200) return false;
    results = await response.json();
    const shown = results.variants.find((v: Json) => v.variant_id === 'shown');
    const revenue = shown?.revenue.find((r: Json) => r.currency === 'USD');
    return shown?.exposed_users === expected.shown.exposed && Math.abs((revenue?.total ?? 0) - expected.shown.revenue) < 1e-6;
  }, 'the results to count every event and record');
  assert.equal(results.placement_id, 'exit');
  assert.equal(results.control, 'held_out');
  assert.equal(results.holdout_percent, 30);
  assert.equal(results.multiple_exposure_users, multiple);
  for (const name of ['shown', 'held_out'] as const) {
    const variant = results.variants.find((v: Json) => v.variant_id === name);
    const want = expected[name];
    assert.equal(variant.exposed_users, want.exposed, name);
    assert.equal(variant.conversions, want.converted, name);
    const usd = variant.revenue.find((r: Json) => r.currency === 'USD');
    assert.ok(Math.abs(usd.total - want.revenue) < 1e-6, `${name}: ${usd.total} vs ${want.revenue}`);
    assert.ok(Math.abs(usd.per_exposed_user - want.revenue / want.exposed) < 1e-9, name);
  }
  const held = expected.held_out.exposed;
  assert.ok(held > 40 && held < 140, `${held} held out of ${users.length}`);
  assert.deepEqual(results.srm.expected, {
    held_out: (expected.shown.exposed + held) * 0.3,
    shown: (expected.shown.exposed + held) * 0.7,
  });
  assert.ok(typeof results.decision.status === 'string' && results.decision.reason.length > 0);
  const shown = results.variants.find((v: Json) => v.variant_id === 'shown');
  assert.equal(shown.uplift === null ? null : typeof shown.uplift.relative, 'number', 'shown is compared with the holdout');
  await problem(await api(server).request('GET', '/api/placements/nope/results'), 404, 'placement_not_found');
  await problem(await api(server).request('GET', '/api/placements/exit/results?analysis=bayes'), 400, 'invalid_query');
});
