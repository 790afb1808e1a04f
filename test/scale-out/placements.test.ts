/**
 * Placements on two `paywalld serve` instances of one PostgreSQL database:
 * a placement written through A is served by B; purchase records stored
 * through A and an identify link made through B reach the other's
 * purchases.* facts (docs/guide/placements.md says within the 250 ms watch
 * interval; measured here, not asserted: the machine may be loaded); an
 * open sent to A counts towards the frequency cap B enforces.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServeProcess } from '../helpers/cli.ts';
import { ingest } from '../helpers/events.ts';
import { type Keys, startInstances, within } from '../helpers/instances.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { recordPurchases, titled } from '../helpers/placements.ts';
import { POSTGRES, postgresDatabase } from '../helpers/postgres.ts';
import { needs } from '../helpers/requirements.ts';
import { bearer, type TestServer } from '../helpers/server.ts';

const DAY = 86_400_000;

function asServer(instance: ServeProcess, keys: Keys): TestServer {
  return { url: instance.url, keys } as TestServer;
}

/** What the instance decides for the user: the paywall shown, or the reason none is, and the facts it used (explain). */
async function decide(instance: ServeProcess, keys: Keys, userId: string): Promise<{ shown: string; facts: Json }> {
  const response = await fetch(`${instance.url}/api/sdk/placement?${new URLSearchParams({ placement: 'lapsed', userId, explain: '1' })}`, {
    headers: bearer(keys.secret),
  });
  const answer = (await response.json()) as Json;
  return { shown: answer.show ? answer.paywall.paywall_id : `-${answer.reason}`, facts: answer.explain?.attributes?.purchases };
}

test('placements, purchases.* facts and frequency caps agree across two instances', needs(POSTGRES), async (t) => {
  const { url } = await postgresDatabase(t);
  const { instances, keys } = await startInstances(t, url, 2);
  const [a, b] = instances as [ServeProcess, ServeProcess];
  const onA = api({ url: a.url, keys });
  await seedProducts(onA);
  await onA.putPaywall('winback', titled('winback'));
  await onA.publish('winback');
  const put = await onA.request('PUT', '/api/placements/lapsed', {
    body: { name: 'Lapsed', rules: [{ audience: { 'purchases.lapsed_days': { $gte: 7 } }, paywall_id: 'winback', frequency: { limit: 1, per: 'ever' } }] },
  });
  assert.equal(put.status, 201, await put.text());
  const placed = await within(10_000, 'the placement on B', async () => (await decide(b, keys, 'ann')).shown === '-no_rule_matched');
  t.diagnostic(`placement served by B ${placed.toFixed(0)} ms after A wrote it`);

  const now = Date.now();
  await recordPurchases(asServer(a, keys), [
    {
      id: 'p1',
      user_id: 'ann',
      type: 'initial_purchase',
      ts: now - 40 * DAY,
      product_id: 'pro_monthly',
      revenue: 9.99,
      currency: 'USD',
      original_transaction_id: 'o1',
    },
    { id: 'p2', user_id: 'ann', type: 'expiration', ts: now - 9 * DAY, product_id: 'pro_monthly', revenue: 0, currency: 'USD', original_transaction_id: 'o1' },
  ]);
  const facts = await within(10_000, "ann's records in B's facts", async () => (await decide(b, keys, 'ann')).shown === 'winback');
  t.diagnostic(`purchase records stored through A reached B's facts in ${facts.toFixed(0)} ms`);
  assert.deepEqual((await decide(b, keys, 'ann')).facts, {
    is_subscriber: false,
    had_trial: false,
    lapsed_days: 9,
    count: 1,
    products: ['pro_monthly'],
    first_purchase_days: 40,
  });

  // An anonymous id's records (stored through A) join its user by a link made through B.
  await recordPurchases(asServer(a, keys), [
    {
      id: 'p3',
      user_id: 'anon-b',
      type: 'initial_purchase',
      ts: now - 30 * DAY,
      product_id: 'pro_monthly',
      revenue: 9.99,
      currency: 'USD',
      original_transaction_id: 'o2',
    },
    {
      id: 'p4',
      user_id: 'anon-b',
      type: 'expiration',
      ts: now - 8 * DAY,
      product_id: 'pro_monthly',
      revenue: 0,
      currency: 'USD',
      original_transaction_id: 'o2',
    },
  ]);
  const linked = await fetch(`${b.url}/api/sdk/identify`, {
    method: 'POST',
    headers: { ...bearer(keys.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ anonymous_id: 'anon-b', user_id: 'bob' }),
  });
  assert.equal(linked.status, 200, await linked.text());
  const link = await within(10_000, "the link in A's facts", async () => (await decide(a, keys, 'bob')).facts?.lapsed_days === 8);
  t.diagnostic(`an identify link made through B reached A's facts in ${link.toFixed(0)} ms`);

  // An open sent to A caps the placement on B.
  await ingest(a.url, keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'winback', ts: Date.now(), user_id: 'ann', placement: 'lapsed' }] });
  const capped = await within(10_000, 'the cap on B', async () => (await decide(b, keys, 'ann')).shown === '-frequency_cap');
  t.diagnostic(`an open sent to A capped the placement on B in ${capped.toFixed(0)} ms`);
});
