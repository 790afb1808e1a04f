/** The client's identity: an anonymous id kept in storage, identify() linking it, every event carrying the current id, appAccountToken. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileStorage, loadClient, ONBOARDING_EVENTS, seededServer } from '../helpers/client.ts';
import { exported } from '../helpers/events.ts';
import { tempDir } from '../helpers/temp.ts';

test('without a user id the client creates one anonymous id, keeps it across restarts, and identify() links it', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const file = path.join(tempDir(t), 'storage.json');
  const first = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  const anonymous = first.currentUserId()!;
  assert.match(anonymous, /^[0-9a-f-]{36}$/);
  const before = first.track({ type: 'screen_impression', paywall_id: 'onboarding' });
  assert.equal(before.user_id, anonymous);
  const shown = await first.getPaywall('onboarding');
  assert.equal(shown.paywall.variant.assignment, 'hashed', 'the anonymous id is the resolve userId');
  await first.close();

  const restarted = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  assert.equal(restarted.currentUserId(), anonymous);
  await restarted.identify('alice');
  assert.equal(restarted.currentUserId(), 'alice');
  const after = restarted.track({ type: 'purchase_complete', paywall_id: 'onboarding', revenue: 4.99, currency: 'EUR' });
  assert.equal(after.user_id, 'alice');
  assert.deepEqual(await restarted.flush(), { pending: 0 });

  assert.equal((await server.server.ctx.identity.links(server.projectId)).get(anonymous), 'alice');
  const users = (await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((event) => [event.type, event.user_id]);
  assert.deepEqual(users, [
    ['screen_impression', anonymous],
    ['purchase_complete', 'alice'],
  ]);
  // Signed in, a restart keeps the user and creates no new anonymous id.
  const again = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  assert.equal(again.currentUserId(), 'alice');
});

test('createClient({ userId }) uses that id from the first event; an explicit user_id on an event wins', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, userId: 'bob' });
  assert.equal(client.track({ type: 'screen_impression', paywall_id: 'onboarding' }).user_id, 'bob');
  assert.equal(client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'carol' }).user_id, 'carol');
  await client.close();
});

test('an asynchronous storage: events tracked before it is read carry the stored id', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const items = new Map<string, string>([['paywalld:identity', JSON.stringify({ anonymous_id: 'stored-anon' })]]);
  const storage = {
    getItem: async (key: string) => items.get(key) ?? null,
    setItem: async (key: string, value: string) => void items.set(key, value),
    removeItem: async (key: string) => void items.delete(key),
  };
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage });
  client.track({ type: 'screen_impression', paywall_id: 'onboarding' });
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.deepEqual(
    (await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((event) => event.user_id),
    ['stored-anon'],
  );
});

test('appAccountToken is UUID v5 in the documented namespace (Python uuid.uuid5 values)', async () => {
  const { appAccountToken, APP_ACCOUNT_TOKEN_NAMESPACE, createClient } = await loadClient();
  assert.equal(APP_ACCOUNT_TOKEN_NAMESPACE, 'ff1445ad-bcbd-4919-a44a-6c50ada1157e');
  assert.equal(appAccountToken('user-1'), '809e6b54-7522-528c-ad9a-b36f7d3f321d');
  assert.equal(appAccountToken('Zoë'), '60992c45-ad24-5569-8719-1ee1d787d89b');
  assert.equal(appAccountToken(''), '95c5bd38-d6fc-53e3-90ad-53d633a2f709');
  const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', userId: 'user-1' });
  assert.equal(client.appAccountToken(), '809e6b54-7522-528c-ad9a-b36f7d3f321d');
});

test("obfuscatedAccountId, Google Play's id of the user, is the user's appAccountToken", async () => {
  const { obfuscatedAccountId, createClient } = await loadClient();
  assert.equal(obfuscatedAccountId('user-1'), '809e6b54-7522-528c-ad9a-b36f7d3f321d');
  assert.equal(obfuscatedAccountId('Zoë'), '60992c45-ad24-5569-8719-1ee1d787d89b');
  const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', userId: 'user-1' });
  assert.equal(client.obfuscatedAccountId(), '809e6b54-7522-528c-ad9a-b36f7d3f321d');
  assert.equal(client.obfuscatedAccountId('Zoë'), '60992c45-ad24-5569-8719-1ee1d787d89b');
});
