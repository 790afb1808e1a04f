/** Which project an event belongs to, and which variant, when the client does not say. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import { exported, ingest, publishPaywall, resolvedVariant } from '../helpers/events.ts';
import { bearer, restartServer, startTestServer } from '../helpers/server.ts';

test("the seed's exact keyless sample is attributed through its paywall's project", async (t) => {
  const { url, keys, server } = await startTestServer(t);
  await publishPaywall(url, keys.secret, 'onboarding');
  const ts = Date.now();
  const response = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: `{"events":[{"type":"screen_impression","paywall_id":"onboarding","ts":${ts}}]}`,
  });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { accepted: 1, duplicates: 0, rejected: [] });
  const [row] = await exported(url, keys.secret);
  assert.equal(row!.paywall_id, 'onboarding');
  assert.equal(row!.ts, ts);
  assert.equal(row!.variant_id, null);
  // Stored for the project that owns the paywall, not for any other.
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  assert.deepEqual(await exported(url, other.keys.secret), []);
});

test("another project's paywall of the same id never takes keyless events: they go to the one serving it the longest", async (t) => {
  const { url, keys, server, dbPath } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  await publishPaywall(url, keys.secret, 'shared');
  const keyless = async (base = url) => {
    const response = await fetch(`${base}/api/sdk/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'shared', ts: Date.now() }] }),
    });
    return response.json();
  };
  assert.deepEqual(await keyless(), { accepted: 1, duplicates: 0, rejected: [] });
  // The other project writes and publishes the same id: told so, and the first keeps its keyless events.
  const put = await fetch(`${url}/api/paywalls/shared`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...bearer(other.keys.secret) },
    body: JSON.stringify({
      name: 'Same id',
      default_locale: 'en',
      strings: { en: { title: 'x' } },
      root: { type: 'text', props: { text_key: 'title' } },
      variants: [{ id: 'a', weight: 100 }],
    }),
  });
  const written = await put.json();
  assert.deepEqual(
    written.warnings.filter((w: { code: string }) => w.code === 'keyless_elsewhere').map((w: { path: string }) => w.path),
    [''],
  );
  await publishPaywall(url, other.keys.secret, 'shared');
  assert.deepEqual(await keyless(), { accepted: 1, duplicates: 0, rejected: [] });
  assert.equal((await exported(url, keys.secret)).length, 2);
  assert.equal((await exported(url, other.keys.secret)).length, 0);
  // Its own key says which project an event is for.
  assert.equal((await ingest(url, other.keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'shared', ts: Date.now() }] })).accepted, 1);
  assert.equal((await exported(url, other.keys.secret)).length, 1);
  // After a restart, the same owner.
  await server.stop();
  const again = await restartServer(t, dbPath);
  assert.deepEqual(await keyless(again), { accepted: 1, duplicates: 0, rejected: [] });
  assert.equal((await exported(again, keys.secret)).length, 3);
  // The first project archives its paywall: the id passes on, and publishing it again later does not take it back.
  assert.equal((await fetch(`${again}/api/paywalls/shared`, { method: 'DELETE', headers: bearer(keys.secret) })).status, 200);
  assert.deepEqual(await keyless(again), { accepted: 1, duplicates: 0, rejected: [] });
  await publishPaywall(again, keys.secret, 'shared');
  assert.deepEqual(await keyless(again), { accepted: 1, duplicates: 0, rejected: [] });
  assert.equal((await exported(again, other.keys.secret)).length, 3);
  assert.equal((await exported(again, keys.secret)).length, 3);
});

test('an archived paywall no longer attributes keyless events', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publishPaywall(url, keys.secret, 'old');
  const archive = await fetch(`${url}/api/paywalls/old`, { method: 'DELETE', headers: bearer(keys.secret) });
  assert.equal(archive.status, 200, await archive.text());
  const response = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'old', ts: Date.now() }] }),
  });
  assert.deepEqual(
    (await response.json()).rejected.map((r: { code: string }) => r.code),
    ['unattributable'],
  );
});

test('without variant_id the variant is the one the resolve endpoint assigns the user; a sent variant_id wins', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publishPaywall(url, keys.secret, 'split');
  const users = Array.from({ length: 40 }, (_, i) => `user-${i}`);
  const now = Date.now();
  await ingest(url, keys.sdk, {
    events: [
      ...users.map((user_id, i) => ({ type: 'screen_impression', paywall_id: 'split', ts: now, id: `e${i}`, user_id })),
      { type: 'screen_impression', paywall_id: 'split', ts: now, id: 'explicit', user_id: 'user-0', variant_id: 'sent-by-client' },
      { type: 'screen_impression', paywall_id: 'split', ts: now, id: 'anonymous' },
    ],
  });
  const rows = new Map((await exported(url, keys.secret)).map((e) => [e.id, e]));
  const seen = new Set<string>();
  for (const [i, user] of users.entries()) {
    const variant = rows.get(`e${i}`)!.variant_id;
    assert.equal(variant, await resolvedVariant(url, keys.sdk, 'split', user), user);
    seen.add(variant);
  }
  // 40 users on a 50/50 split land in both variants.
  assert.deepEqual([...seen].sort(), ['control', 'treatment']);
  assert.equal(rows.get('explicit')!.variant_id, 'sent-by-client');
  assert.equal(rows.get('anonymous')!.variant_id, null);
});

test('keyless events with a user id get the derived variant as well', async (t) => {
  const { url, keys } = await startTestServer(t);
  await publishPaywall(url, keys.secret, 'split');
  const response = await fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'split', ts: Date.now(), user_id: 'someone' }] }),
  });
  assert.equal((await response.json()).accepted, 1);
  const [row] = await exported(url, keys.secret);
  assert.equal(row!.variant_id, await resolvedVariant(url, keys.sdk, 'split', 'someone'));
});

test('a paywall that is not published yet derives no variant (stored without one)', async (t) => {
  const { url, keys } = await startTestServer(t);
  const put = await fetch(`${url}/api/paywalls/draft`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...bearer(keys.secret) },
    body: JSON.stringify({
      name: 'Draft',
      default_locale: 'en',
      strings: { en: { t: 'x' } },
      root: { type: 'text', props: { text_key: 't' } },
    }),
  });
  assert.equal(put.status, 201, await put.text());
  await ingest(url, keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'draft', ts: Date.now(), user_id: 'u' }] });
  const [row] = await exported(url, keys.secret);
  assert.equal(row!.variant_id, null);
});

test("another project's draft with the same id does not take a live paywall's keyless events", async (t) => {
  const { url, keys, server } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  await publishPaywall(url, keys.secret, 'onboarding');
  const draft = await fetch(`${url}/api/paywalls/onboarding`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...bearer(other.keys.secret) },
    body: JSON.stringify({
      name: 'Squatter',
      default_locale: 'en',
      strings: { en: { title: 'x' } },
      root: { type: 'text', props: { text_key: 'title' } },
      variants: [{ id: 'a', weight: 100 }],
    }),
  });
  assert.equal(draft.status, 201, await draft.text());
  const keyless = (paywallId: string) =>
    fetch(`${url}/api/sdk/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: paywallId, ts: Date.now() }] }),
    }).then((response) => response.json());
  assert.deepEqual(await keyless('onboarding'), { accepted: 1, duplicates: 0, rejected: [] });
  assert.equal((await exported(url, keys.secret)).length, 1);
  assert.equal((await exported(url, other.keys.secret)).length, 0);
  // Archived in the first project and published in the other: the events follow.
  const mine = await fetch(`${url}/api/paywalls/onboarding`, { method: 'DELETE', headers: bearer(keys.secret) });
  assert.equal(mine.status, 200);
  await publishPaywall(url, other.keys.secret, 'onboarding');
  assert.deepEqual(await keyless('onboarding'), { accepted: 1, duplicates: 0, rejected: [] });
  assert.equal((await exported(url, other.keys.secret)).length, 1);
});
