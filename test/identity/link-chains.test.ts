/**
 * Identify links that chain (b is linked as a user, then as an anonymous id)
 * count the same in the results as they arrive and after a restart, links
 * one step (docs/guide/revenue.md, "One user across ids").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { api, single } from '../helpers/paywalls.ts';
import { bearer, serverOn, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

async function exposedUsers(url: string, secret: string): Promise<number | undefined> {
  const response = await fetch(`${url}/api/paywalls/chain/results`, { headers: bearer(secret) });
  // 503 stats_warming_up while a restarted server rebuilds its state.
  if (response.status === 503) return undefined;
  const body = (await response.json()) as Json;
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.variants[0].exposed_users;
}

test('a → b then b → c: one user, then two (a counts as b, b as c), and the same after a restart', async (t) => {
  const server = await startTestServer(t);
  const { url, keys } = server;
  const client = api(server);
  await client.putProduct('pro_annual', { name: 'Pro Annual', store_ids: {} });
  await client.putPaywall('chain', single({ en: { title: 'Go Pro' } }));
  await client.publish('chain');
  const now = Date.now();
  const exposures = ['a', 'b'].map((user) => ({
    id: `seen-${user}`,
    type: 'screen_impression',
    paywall_id: 'chain',
    variant_id: 'only',
    user_id: user,
    ts: now,
  }));
  assert.equal((await ingest(url, keys.sdk, { events: exposures })).accepted, 2);
  await until(async () => (await exposedUsers(url, keys.secret)) === 2, 'two exposed users');
  const identify = async (key: string, anonymous: string, user: string) => {
    const response = await fetch(`${url}/api/sdk/identify`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ anonymous_id: anonymous, user_id: user }),
    });
    assert.equal(response.status, 200, await response.text());
  };
  await identify(keys.sdk, 'a', 'b');
  assert.equal(await exposedUsers(url, keys.secret), 1);
  // b is a's user: the app's backend (secret key) links it further.
  await identify(keys.secret, 'b', 'c');
  assert.equal(await exposedUsers(url, keys.secret), 2);

  await server.server.stop();
  const restarted = await serverOn(t, server.dbPath);
  let afterRestart: number | undefined;
  await until(async () => (afterRestart = await exposedUsers(restarted.url, keys.secret)) !== undefined, 'the results after the restart', 10_000, 100);
  assert.equal(afterRestart, 2);
});
