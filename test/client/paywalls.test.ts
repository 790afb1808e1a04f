import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileStorage, loadClient, seededProcess, seededServer } from '../helpers/client.ts';
import { example } from '../helpers/example-paywall.ts';
import { metric } from '../helpers/metrics.ts';
import { api } from '../helpers/paywalls.ts';
import { tempDir } from '../helpers/temp.ts';

const NOT_MODIFIED = 'paywalld_http_requests_total{route="/api/sdk/config",method="GET",status="304"}';

test('the client revalidates with If-None-Match: the server answers 304 and the client reuses its cached answer', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, platform: 'ios' });

  const first = await client.getPaywall('onboarding', { userId: 'user-42', country: 'US', locale: 'de-AT' });
  assert.equal(first.source, 'network');
  assert.equal(first.paywall.variant.id, 'annual_first');
  assert.equal(first.paywall.variant.audience, 'us_ios');
  assert.equal(first.paywall.locale, 'de');
  assert.deepEqual(first.paywall.product_slots[0], { slot: 'primary', product_id: 'pro_monthly', store_product_id: 'com.acme.pro.monthly' });
  // No 304 yet: the series is not exposed until its first count.
  assert.equal((await metric(server.url, server.keys.secret, NOT_MODIFIED)) ?? 0, 0);

  const second = await client.getPaywall('onboarding', { userId: 'user-42', country: 'US', locale: 'de-AT' });
  assert.equal(second.source, 'network');
  assert.deepEqual(second.paywall, first.paywall);
  assert.equal(await metric(server.url, server.keys.secret, NOT_MODIFIED), 1);

  // refresh: true asks for a full answer.
  const refreshed = await client.getPaywall('onboarding', { userId: 'user-42', country: 'US', locale: 'de-AT', refresh: true });
  assert.deepEqual(refreshed.paywall, first.paywall);
  assert.equal(await metric(server.url, server.keys.secret, NOT_MODIFIED), 1);

  // A publish changes the answer: the old ETag no longer matches and the new revision comes back in full.
  const management = api(server);
  await management.putPaywall('onboarding', {
    ...example(),
    strings: { en: { title: 'Go Pro' }, de: { title: 'Jetzt Pro' } },
  });
  await management.publish('onboarding');
  const changed = await client.getPaywall('onboarding', { userId: 'user-42', country: 'US', locale: 'de-AT' });
  assert.equal(changed.source, 'network');
  assert.equal(changed.paywall.revision, 2);
  assert.equal((changed.paywall.root as any).children[0].props.text, 'Jetzt Pro');
  assert.equal(await metric(server.url, server.keys.secret, NOT_MODIFIED), 1);
});

test('server stopped: the cached answer (from memory, and from storage after a restart); a fresh client gets the fallback bundle', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededProcess(t);
  const dir = tempDir(t);
  const bundle = await (await fetch(`${server.url}/api/sdk/fallback?paywallId=onboarding`, { headers: { authorization: `Bearer ${server.keys.sdk}` } })).json();
  const storage = fileStorage(path.join(dir, 'app-state.json'));
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage, fallback: bundle });
  const online = await client.getPaywall('onboarding', { userId: 'user-7', platform: 'android', locale: 'de' });
  assert.equal(online.source, 'network');

  await server.stop();

  const cached = await client.getPaywall('onboarding', { userId: 'user-7', platform: 'android', locale: 'de' });
  assert.equal(cached.source, 'cache');
  assert.deepEqual(cached.paywall, online.paywall);
  assert.match(String(cached.error?.message), /network error/);

  // The app restarts: the answer comes from its storage.
  const restarted = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(path.join(dir, 'app-state.json')) });
  const fromStorage = await restarted.getPaywall('onboarding', { userId: 'user-7', platform: 'android', locale: 'de' });
  assert.equal(fromStorage.source, 'cache');
  assert.deepEqual(fromStorage.paywall, online.paywall);

  // A fresh install: nothing cached, the bundle shipped in the app, the store ids of the platform filled in.
  const fresh = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, fallback: bundle, platform: 'ios' });
  const fallback = await fresh.getPaywall('onboarding', { userId: 'user-7', locale: 'de-CH' });
  assert.equal(fallback.source, 'fallback');
  assert.equal(fallback.paywall.variant.id, 'control');
  assert.equal(fallback.paywall.variant.assignment, 'default');
  assert.equal(fallback.paywall.locale, 'de');
  assert.equal((fallback.paywall.root as any).children[0].props.text, 'Werde Pro');
  assert.deepEqual((fallback.paywall.root as any).children[1].product, { id: 'pro_annual', name: 'Pro Annual', store_product_id: 'com.acme.pro.annual' });
  assert.deepEqual(fallback.paywall.product_slots, [
    { slot: 'primary', product_id: 'pro_annual', store_product_id: 'com.acme.pro.annual' },
    { slot: 'secondary', product_id: 'pro_monthly', store_product_id: 'com.acme.pro.monthly' },
  ]);
  const english = await fresh.getPaywall('onboarding', { locale: 'fr', platform: 'web' });
  assert.equal(english.paywall.locale, 'en');
  assert.equal((english.paywall.root as any).children[0].props.text, 'Go Pro');
  assert.equal(english.paywall.product_slots[0]!.store_product_id, 'price_annual');

  // Neither cached nor in the bundle: the app is told, with the reason.
  await assert.rejects(fresh.getPaywall('other'), (error: any) => error.name === 'PaywalldError' && error.code === 'unavailable' && error.status === 0);
});

test("a refusal is the app's to see, never hidden behind the cache or the bundle", async (t) => {
  const { createClient, PaywalldError } = await loadClient();
  const server = await seededServer(t);
  const bundle = await (await fetch(`${server.url}/api/sdk/fallback?paywallId=onboarding`, { headers: { authorization: `Bearer ${server.keys.sdk}` } })).json();
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, fallback: bundle });
  await assert.rejects(
    client.getPaywall('missing'),
    (error: any) => error instanceof PaywalldError && error.status === 404 && error.code === 'paywall_not_found',
  );
  const wrongKey = createClient({ baseUrl: server.url, apiKey: 'pwk_sdk_nope', fallback: bundle });
  await assert.rejects(wrongKey.getPaywall('onboarding'), (error: any) => error.status === 401);
  await assert.rejects(client.getPaywall('onboarding', { userId: 'x'.repeat(300) }), (error: any) => error.status === 400 && error.code === 'invalid_query');
});

test('createClient refuses what it cannot work with', async () => {
  const { createClient } = await loadClient();
  assert.throws(() => createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: '' }), TypeError);
  assert.throws(() => createClient({ baseUrl: 'not a url', apiKey: 'k' }), TypeError);
  assert.throws(
    () => createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', fallback: { format: 2, paywalls: [] } as any }),
    /not a paywalld bundle of format 1/,
  );
  assert.throws(() => createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', fallback: { format: 1, paywalls: [{}] } as any }), /not a paywall/);
});

test('a storage that fails costs the offline copy, never the answer: the app hears of it through onError', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const errors: unknown[] = [];
  const broken = {
    getItem: () => {
      throw new Error('storage unreadable');
    },
    setItem: () => {
      throw new Error('quota exceeded');
    },
    removeItem: () => {},
  };
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: broken, onError: (error) => errors.push(error) });
  const first = await client.getPaywall('onboarding');
  assert.equal(first.source, 'network');
  // The answer is still cached in memory, so the next call revalidates it.
  assert.equal((await client.getPaywall('onboarding')).source, 'network');
  assert.equal(await metric(server.url, server.keys.secret, NOT_MODIFIED), 1);
  client.track({ type: 'screen_impression', paywall_id: 'onboarding' });
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.ok(errors.length >= 2);
  assert.ok(errors.every((error) => /quota exceeded/.test(String((error as Error).message))));
});
