/**
 * Keys a client chooses (variant ids, string keys, slots, metadata,
 * condition attributes, event types) that are also names on
 * Object.prototype: kept and served as data, or refused with a clear error,
 * never dropped and never read from the prototype.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingest, publishPaywall } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

/** A document whose maps use prototype names as keys; JSON text, because an object literal cannot hold an own `__proto__`. */
function prototypeDocument(): string {
  return `{
    "name": "Prototype names",
    "default_locale": "en",
    "strings": { "en": { "constructor": "Built", "toString": "Text", "prototype": "Proto" } },
    "slots": { "constructor": "pro_annual" },
    "metadata": { "constructor": "c", "__proto__": { "polluted": true }, "hasOwnProperty": 1 },
    "root": { "type": "stack", "props": { "axis": "vertical" }, "children": [
      { "type": "text", "props": { "text_key": "constructor" } },
      { "type": "product", "props": { "slot": "constructor" } }
    ] },
    "variants": [
      { "id": "constructor", "weight": 0, "metadata": { "prototype": "p" } },
      { "id": "prototype", "weight": 1 }
    ],
    "audiences": [
      { "id": "by-proto", "when": { "attr.constructor": "yes" }, "weights": { "constructor": 1 } },
      { "id": "leaves-constructor-out", "when": { "attr.toString": "yes" }, "weights": { "prototype": 1 } }
    ]
  }`;
}

test('a variant named constructor, and other prototype names as keys, are stored and served as written', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  const put = await client.request('PUT', '/api/paywalls/protos', { body: prototypeDocument() });
  assert.equal(put.status, 201, await put.text());
  const read = (await (await client.request('GET', '/api/paywalls/protos')).json()) as Json;
  assert.ok(JSON.stringify(read).includes('"__proto__":{"polluted":true}'), 'the __proto__ metadata key is kept as data');
  assert.ok(JSON.stringify(read).includes('"weights":{"constructor":1}'), 'the audience weight of variant constructor is kept');
  assert.ok(JSON.stringify(read).includes('"en":{"constructor":"Built","toString":"Text","prototype":"Proto"}'), 'string keys are kept in order');
  await client.publish('protos');

  const resolve = async (query: Record<string, string>) => {
    const response = await client.resolve({ paywallId: 'protos', userId: 'user-1', ...query });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return JSON.parse(text) as Json;
  };
  const chosen = await resolve({ 'attr.constructor': 'yes' });
  assert.deepEqual(chosen.variant, { id: 'constructor', audience: 'by-proto', assignment: 'hashed' });
  assert.equal(chosen.root.children[0].props.text, 'Built');
  assert.equal(chosen.root.children[1].product.id, 'pro_annual');
  assert.equal(JSON.stringify(chosen.metadata), '{"constructor":"c","__proto__":{"polluted":true},"hasOwnProperty":1,"prototype":"p"}');
  // An audience that leaves variant constructor out gives it weight 0, not Object.prototype.constructor.
  for (let i = 0; i < 20; i++) {
    const other = await resolve({ userId: `user-${i}`, 'attr.toString': 'yes' });
    assert.deepEqual(other.variant, { id: 'prototype', audience: 'leaves-constructor-out', assignment: 'hashed' });
  }
  assert.equal((await resolve({})).variant.id, 'prototype');
  // explain=1 (secret key) computes the same weights the same way.
  const explained = await client.resolve(
    { paywallId: 'protos', userId: 'user-1', 'attr.toString': 'yes', explain: '1' },
    { authorization: `Bearer ${client.secret}` },
  );
  const text = await explained.text();
  assert.equal(explained.status, 200, text);
  assert.deepEqual(
    (JSON.parse(text) as Json).explain.split.ranges.map((r: Json) => [r.variant, r.weight]),
    [
      ['constructor', 0],
      ['prototype', 1],
    ],
  );
  assert.equal(({} as Json).polluted, undefined);
});

test('__proto__ where an id is expected is refused at its pointer, not dropped', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  const cases: [string, string][] = [
    ['"strings": { "en": { "title": "T", "__proto__": "x" } }', '/strings/en/__proto__'],
    ['"strings": { "en": { "title": "T" } }, "slots": { "__proto__": "pro_annual" }', '/slots/__proto__'],
  ];
  for (const [fields, path] of cases) {
    const body = `{ "name": "P", "default_locale": "en", ${fields},
      "root": { "type": "text", "props": { "text_key": "title" } } }`;
    const response = await client.request('PUT', '/api/paywalls/refused', { body });
    const problemBody = await problem(response, 422, 'validation_failed');
    assert.ok(
      problemBody.errors.some((e: Json) => e.path === path),
      `${path} in ${JSON.stringify(problemBody.errors)}`,
    );
  }
  const weights = `{ "name": "P", "default_locale": "en", "strings": { "en": { "title": "T" } },
    "root": { "type": "text", "props": { "text_key": "title" } },
    "variants": [{ "id": "a", "weight": 1 }],
    "audiences": [{ "id": "x", "when": {}, "weights": { "__proto__": 1, "a": 1 } }] }`;
  const refused = await problem(await client.request('PUT', '/api/paywalls/refused', { body: weights }), 422, 'validation_failed');
  assert.ok(
    refused.errors.some((e: Json) => e.path === '/audiences/0/weights/__proto__'),
    JSON.stringify(refused.errors),
  );
});

test('an event type named constructor is counted like any other in the statistics', async (t) => {
  const server = await startTestServer(t);
  await publishPaywall(server.url, server.keys.secret, 'pw');
  const ts = Date.now();
  const result = await ingest(server.url, server.keys.sdk, {
    events: [
      { id: 'c1', type: 'constructor', paywall_id: 'pw', ts, user_id: 'u1', variant_id: 'a' },
      { id: 'c2', type: 'constructor', paywall_id: 'pw', ts, user_id: 'u2', variant_id: 'a' },
      { id: 'c3', type: 'tostring', paywall_id: 'pw', ts, user_id: 'u1', variant_id: 'a' },
      { id: 'c4', type: 'screen_impression', paywall_id: 'pw', ts, user_id: 'u1', variant_id: 'a' },
    ],
  });
  assert.equal(result.accepted, 4);
  const response = await fetch(`${server.url}/api/paywalls/pw/stats`, { headers: bearer(server.keys.secret) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const stats = JSON.parse(text) as Json;
  const variant = stats.variants.find((v: Json) => v.variant_id === 'a');
  assert.equal(variant.totals.counts.constructor, 2);
  assert.equal(variant.totals.counts.tostring, 1);
  assert.equal(variant.totals.counts.screen_impression, 1);
  assert.equal(variant.days[0].counts.constructor, 2);
});
