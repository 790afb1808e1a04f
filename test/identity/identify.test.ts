/** POST /api/sdk/identify: the first link of an anonymous id wins; the sdk key may not link what the backend vouches for; bad bodies are refused. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import { openTestSql } from '../helpers/database.ts';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

function identify(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${url}/api/sdk/identify`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

test('an anonymous id is linked once: the first link wins, later ones answer the existing link', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const first = await identify(url, keys.sdk, { anonymous_id: 'anon-1', user_id: 'alice' });
  assert.equal(first.status, 200);
  assert.deepEqual(await first.json(), { anonymous_id: 'anon-1', user_id: 'alice', linked: true });
  assert.deepEqual(await (await identify(url, keys.sdk, { anonymous_id: 'anon-1', user_id: 'alice' })).json(), {
    anonymous_id: 'anon-1',
    user_id: 'alice',
    linked: false,
  });
  assert.deepEqual(await (await identify(url, keys.secret, { anonymous_id: 'anon-1', user_id: 'bob' })).json(), {
    anonymous_id: 'anon-1',
    user_id: 'alice',
    linked: false,
  });
  await identify(url, keys.sdk, { anonymous_id: 'anon-2', user_id: 'alice' });
  assert.deepEqual([...(await server.ctx.identity.links(projectId))].sort(), [
    ['anon-1', 'alice'],
    ['anon-2', 'alice'],
  ]);
});

test('links belong to their project', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  await identify(url, keys.sdk, { anonymous_id: 'anon', user_id: 'alice' });
  assert.deepEqual(await (await identify(url, other.keys.sdk, { anonymous_id: 'anon', user_id: 'bob' })).json(), {
    anonymous_id: 'anon',
    user_id: 'bob',
    linked: true,
  });
  assert.equal((await server.ctx.identity.links(projectId)).get('anon'), 'alice');
});

test('bad bodies are refused with validation_failed and link nothing; a key is required', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  for (const body of [
    { anonymous_id: 'a' },
    { anonymous_id: 'a', user_id: 'a' },
    { anonymous_id: '', user_id: 'b' },
    { anonymous_id: 'a', user_id: 'b', x: 1 },
    [],
  ]) {
    await problem(await identify(url, keys.sdk, body), 422, 'validation_failed');
  }
  await problem(
    await fetch(`${url}/api/sdk/identify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    401,
    'missing_api_key',
  );
  assert.equal((await server.ctx.identity.links(projectId)).size, 0);
});

test('an id holding a lone surrogate or NUL is refused with validation_failed at its pointer; a surrogate pair is kept', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const rule = 'must be well-formed Unicode text without NUL (U+0000) or a lone surrogate';
  const lone = await problem(await identify(url, keys.sdk, { anonymous_id: 'anon', user_id: 'a\ud800b' }), 422, 'validation_failed');
  assert.deepEqual(lone.errors, [{ path: '/user_id', message: rule }]);
  const nul = await problem(await identify(url, keys.sdk, { anonymous_id: 'anon\u0000', user_id: 'alice' }), 422, 'validation_failed');
  assert.deepEqual(
    nul.errors.map((error: { path: string }) => error.path),
    ['/anonymous_id'],
  );
  assert.equal((await server.ctx.identity.links(projectId)).size, 0);
  assert.equal((await (await identify(url, keys.sdk, { anonymous_id: 'anon', user_id: 'smile \ud83d\ude00' })).json()).user_id, 'smile \ud83d\ude00');
});

test('every user identify names is known by its appAccountToken (UUID v5, checked against Python uuid.uuid5)', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  await identify(url, keys.sdk, { anonymous_id: 'anon-9', user_id: 'user-1' });
  // python3 -c "import uuid; print(uuid.uuid5(uuid.UUID('ff1445ad-bcbd-4919-a44a-6c50ada1157e'), 'user-1'))"
  assert.equal(await server.ctx.identity.userOfAppAccountToken(projectId, '809e6b54-7522-528c-ad9a-b36f7d3f321d'), 'user-1');
  assert.equal(await server.ctx.identity.userOfAppAccountToken(projectId, '809E6B54-7522-528C-AD9A-B36F7D3F321D'), 'user-1');
  assert.equal(await server.ctx.identity.userOfAppAccountToken(projectId, '00000000-0000-5000-8000-000000000000'), undefined);
});

test("the sdk key cannot move a user's backend-recorded purchases: identify alice → mallory is refused, the secret key may", async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const client = api({ url, keys });
  await client.putPaywall('moved', {
    name: 'Moved',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: 1, control: true },
      { id: 'annual', weight: 1 },
    ],
  });
  await client.publish('moved');
  const phases = (await (await client.request('GET', '/api/paywalls/moved/phases')).json()) as Json;
  const seen = Date.parse(phases.phases.at(-1).started_at) + 1000;
  await ingest(url, keys.sdk, {
    events: [
      { id: 'e1', type: 'screen_impression', paywall_id: 'moved', variant_id: 'control', user_id: 'alice', ts: seen },
      { id: 'e2', type: 'screen_impression', paywall_id: 'moved', variant_id: 'annual', user_id: 'mallory', ts: seen },
    ],
  });
  // The studio's backend records alice's purchase.
  const recorded = await client.request('POST', '/api/purchases', {
    body: {
      purchases: [
        { id: 'r1', user_id: 'alice', type: 'initial_purchase', ts: seen + 1000, store: 'web', store_product_id: 'pro', revenue: 10, currency: 'USD' },
      ],
    },
  });
  assert.equal(((await recorded.json()) as Json).accepted, 1);
  const revenueOf = async () => {
    const body = (await (await client.request('GET', '/api/paywalls/moved/results')).json()) as Json;
    return Object.fromEntries(body.variants.map((v: Json) => [v.variant_id, v.revenue[0]?.total ?? 0]));
  };
  await until(async () => (await revenueOf()).control === 10, "alice's purchase in control");

  const attack = await problem(await identify(url, keys.sdk, { anonymous_id: 'alice', user_id: 'mallory' }), 403, 'link_needs_secret_key');
  assert.doesNotMatch(attack.detail, /alice|mallory/, 'the answer echoes no id');
  assert.deepEqual(await revenueOf(), { control: 10, annual: 0 });
  assert.equal((await server.ctx.identity.links(projectId)).size, 0);

  // An id other ids are linked to is the backend's to link as well.
  await identify(url, keys.sdk, { anonymous_id: 'device', user_id: 'bob' });
  await problem(await identify(url, keys.sdk, { anonymous_id: 'bob', user_id: 'mallory' }), 403, 'link_needs_secret_key');
  // The backend, which knows its users, may.
  const linked = await identify(url, keys.secret, { anonymous_id: 'alice', user_id: 'alice-new-account' });
  assert.deepEqual(await linked.json(), { anonymous_id: 'alice', user_id: 'alice-new-account', linked: true });
});

test('too_many_links: a new link past 1,000 for one user, or 1,000,000 for the project, is refused with 409 and links nothing', async (t) => {
  const { url, keys, dbPath, projectId, server } = await startTestServer(t);
  const sql = openTestSql(t, dbPath);
  // alice's 1,000 devices, numbered as the project's first links (a project's newest seq is its count of links).
  await sql.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
     INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq) SELECT ?, 'device-' || i, 'alice', 0, i FROM n`,
    projectId,
  );
  const full = await problem(await identify(url, keys.sdk, { anonymous_id: 'phone', user_id: 'alice' }), 409, 'too_many_links');
  assert.match(full.detail, /1,000 linked ids/);
  await problem(await identify(url, keys.secret, { anonymous_id: 'phone', user_id: 'alice' }), 409, 'too_many_links');
  assert.deepEqual(await (await identify(url, keys.sdk, { anonymous_id: 'device-7', user_id: 'someone' })).json(), {
    anonymous_id: 'device-7',
    user_id: 'alice',
    linked: false,
  });
  assert.equal((await (await identify(url, keys.sdk, { anonymous_id: 'phone', user_id: 'bob' })).json()).linked, true);
  // The project's millionth link.
  await sql.run("INSERT INTO user_links (project_id, anonymous_id, user_id, linked_at, seq) VALUES (?, 'last-device', 'zed', 0, 1000000)", projectId);
  await problem(await identify(url, keys.sdk, { anonymous_id: 'tablet', user_id: 'carol' }), 409, 'too_many_links');
  const links = await server.ctx.identity.links(projectId);
  assert.equal(links.size, 1002);
  assert.equal(links.get('tablet'), undefined);
});
