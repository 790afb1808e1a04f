/**
 * `$regex` runs on RE2 (linear time): a catastrophic pattern with long
 * inputs from an anonymous client answers at once, and patterns RE2 cannot
 * run are refused when the paywall is written.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { spawnServe } from '../helpers/cli.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts, single } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const CATASTROPHIC = '^(a+)+$';

function targeted(when: Json): Json {
  return single(
    { en: { title: 'T' } },
    {
      variants: [
        { id: 'out', weight: 1 },
        { id: 'in', weight: 0 },
      ],
      audiences: [{ id: 'target', when, weights: { in: 1 } }],
    },
  );
}

test('a catastrophic $regex with long inputs on resolve and on keyless events answers correctly, and /healthz stays up', async (t) => {
  const dbPath = path.join(tempDir(t), 'paywalld.db');
  const setup = await startTestServer(t, { dbPath });
  const client = api(setup);
  await seedProducts(client);
  await client.putPaywall('by-user', targeted({ userId: { $regex: CATASTROPHIC } }));
  await client.publish('by-user');
  await client.putPaywall('by-attr', targeted({ 'attr.name': { $regex: CATASTROPHIC } }));
  await client.publish('by-attr');
  await setup.server.stop();

  // A child process: on a backtracking engine its event loop would freeze, and the aborts below fail the test.
  const child = await spawnServe(t, ['--db', dbPath, '--rate-limit-sdk', '0']);
  const bounded = () => AbortSignal.timeout(60_000);
  const resolve = async (query: Record<string, string>) => {
    const response = await fetch(`${child.url}/api/sdk/config?${new URLSearchParams(query)}`, {
      headers: { authorization: `Bearer ${setup.keys.sdk}` },
      signal: bounded(),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return (JSON.parse(text) as Json).variant.id as string;
  };
  // userId is at most 256 characters; custom attributes have no length rule of their own.
  assert.equal(await resolve({ paywallId: 'by-user', userId: `${'a'.repeat(255)}!` }), 'out');
  assert.equal(await resolve({ paywallId: 'by-user', userId: 'a'.repeat(256) }), 'in');
  assert.equal(await resolve({ paywallId: 'by-attr', userId: 'u', 'attr.name': `${'a'.repeat(10_000)}!` }), 'out');
  assert.equal(await resolve({ paywallId: 'by-attr', userId: 'u', 'attr.name': 'a'.repeat(10_000) }), 'in');

  // A keyless event is attributed to its paywall, and its variant derived from user_id through the same audience.
  const events = await fetch(`${child.url}/api/sdk/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      events: [
        { id: 'e-out', type: 'screen_impression', paywall_id: 'by-user', ts: Date.now(), user_id: `${'a'.repeat(255)}!` },
        { id: 'e-in', type: 'screen_impression', paywall_id: 'by-user', ts: Date.now(), user_id: 'a'.repeat(256) },
      ],
    }),
    signal: bounded(),
  });
  assert.deepEqual(await events.json(), { accepted: 2, duplicates: 0, rejected: [] });
  assert.equal((await fetch(`${child.url}/healthz`, { signal: bounded() })).status, 200);

  const exported = await fetch(`${child.url}/api/events?paywallId=by-user`, { headers: { authorization: `Bearer ${setup.keys.secret}` }, signal: bounded() });
  const variants = Object.fromEntries(
    (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json)
      .map((e) => [e.id, e.variant_id]),
  );
  assert.deepEqual(variants, { 'e-out': 'out', 'e-in': 'in' });
  assert.equal(await child.stop(), 0);
});

test('a $regex the linear-time engine cannot run is refused with 422 at its JSON pointer', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  for (const pattern of ['^(?=pro)', '(a)\\1', '(?<!x)y']) {
    const response = await client.request('PUT', '/api/paywalls/lookaround', { body: targeted({ 'attr.plan': { $regex: pattern } }) });
    const body = await problem(response, 422, 'validation_failed');
    assert.deepEqual(
      body.errors.map((e: Json) => e.path),
      ['/audiences/0/when/attr.plan/$regex'],
      pattern,
    );
    assert.match(body.errors[0].message, /RE2/);
    assert.ok(!JSON.stringify(body).includes(pattern), 'the error does not echo the pattern');
  }
  // JavaScript spellings RE2 knows under another name still work: a named group.
  await client.putPaywall('named', targeted({ 'attr.plan': { $regex: '^(?<tier>pro|team)$' } }));
});
