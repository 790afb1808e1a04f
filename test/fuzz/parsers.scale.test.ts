/**
 * Property-based fuzzing (fast-check) of the parsers an outside client
 * reaches, through the real server: paywall documents, event batches, the
 * resolve query, purchase records and signed store notifications. Whatever arrives, the answer is a 2xx, or a 4xx
 * problem+json; never a 5xx, never a crash, and the server is healthy after.
 * The run is bounded by count (RUNS per parser: 250 in `npm test`, 1,000
 * under `npm run test:scale`, helpers/scale.ts), not by time; a failure
 * prints the seed and the shrunk input that reproduce it.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { example } from '../helpers/example-paywall.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { scaled } from '../helpers/scale.ts';
import { bearer, startTestServer, type TestServer } from '../helpers/server.ts';

const RUNS = scaled(250, 1000);

/** Keys that have tripped JavaScript maps before, mixed into every generated object. */
const trickyKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '$regex',
  '$in',
  '$elemMatch',
  'attr.plan',
  '',
  'en',
  'de-AT',
);
const key = fc.oneof(fc.string({ maxLength: 12 }), trickyKey);
const leaf = fc.oneof(
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.constantFrom('^(a+)+$', '(?=x)', '(', '\\', 'a{1000}{1000}', 'pro_annual', 'control', 'screen_impression', 'en', '9999-12-31'),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e21, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e14, 1e11),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Replaces the `index`-th node (in a depth-first walk, modulo the count) of `doc` with `replacement`. */
function mutate(doc: unknown, index: number, replacement: unknown): unknown {
  const nodes: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    for (const [k, child] of Object.entries(node)) {
      nodes.push({ parent: node as Record<string, unknown>, key: Array.isArray(node) ? Number(k) : k });
      walk(child);
    }
  };
  walk(doc);
  const target = nodes[index % nodes.length]!;
  (target.parent as Record<string | number, unknown>)[target.key] = replacement;
  return doc;
}

/** Adds `key: extra` to the `index`-th object of `doc`, with defineProperty so that `__proto__` is a key. */
function addKey(doc: unknown, index: number, name: string, extra: unknown): unknown {
  const objects: object[] = [];
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    if (!Array.isArray(node)) objects.push(node);
    for (const child of Object.values(node)) walk(child);
  };
  walk(doc);
  Object.defineProperty(objects[index % objects.length]!, name, { value: extra, enumerable: true, writable: true, configurable: true });
  return doc;
}

/** Bodies: JSON of a random value, of a mutated valid document, or text that is not JSON at all. */
function bodies(valid: () => unknown): fc.Arbitrary<string> {
  return fc.oneof(
    value.map((v) => JSON.stringify(v) ?? 'null'),
    fc.tuple(fc.nat(), value).map(([index, replacement]) => JSON.stringify(mutate(valid(), index, replacement))),
    fc.tuple(fc.nat(), key, value).map(([index, name, extra]) => JSON.stringify(addKey(valid(), index, name, extra))),
    fc.string({ maxLength: 200, unit: 'binary' }),
    fc.constantFrom('', '{', '{"events":', '[]', '{"events":[]}', '\uFEFF{}', '{"a":1}{"b":2}', 'null'),
  );
}

async function assertAnswer(response: Response, what: string): Promise<void> {
  const text = await response.text();
  assert.ok(response.status < 500, `${what}: ${response.status} ${text}`);
  if (response.status >= 400) {
    assert.equal(response.headers.get('content-type'), 'application/problem+json', `${what}: ${text}`);
    const problem = JSON.parse(text) as Json;
    assert.equal(typeof problem.code, 'string', text);
    assert.equal(problem.status, response.status, text);
  } else if (response.status !== 204 && response.status !== 304) {
    JSON.parse(text);
  }
}

async function healthy(server: TestServer): Promise<void> {
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
}

test('fuzzed paywall documents: every answer is 2xx or a 4xx problem', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  // Mostly a valid id, so that most documents reach the document rules.
  const id = fc.oneof(
    { arbitrary: fc.constantFrom('fuzz', 'onboarding', 'constructor'), weight: 8 },
    fc.constantFrom('__proto__', 'a'.repeat(65), '%00', '..', 'x%2Fy'),
    fc.string({ maxLength: 10 }).map(encodeURIComponent),
  );
  await fc.assert(
    fc.asyncProperty(id, bodies(example), async (paywallId, body) => {
      const response = await fetch(`${server.url}/api/paywalls/${paywallId}`, {
        method: 'PUT',
        headers: { ...bearer(server.keys.secret), 'content-type': 'application/json' },
        body,
      });
      await assertAnswer(response, `PUT /api/paywalls/${paywallId} ${body.slice(0, 300)}`);
      if (response.status < 300) await assertAnswer(await client.request('POST', `/api/paywalls/${paywallId}/publish`, { body: {} }), 'publish');
    }),
    { numRuns: RUNS },
  );
  await healthy(server);
});

test('fuzzed event batches, with and without a key: every answer is 2xx or a 4xx problem', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  await client.putPaywall('pw', example());
  await client.publish('pw');
  const validBatch = () => ({
    sent_at: Date.now(),
    events: [
      { id: 'e1', type: 'screen_impression', paywall_id: 'pw', ts: Date.now(), user_id: 'u1', variant_id: 'control', properties: { a: 1 } },
      { type: 'purchase_complete', paywall_id: 'pw', ts: Math.floor(Date.now() / 1000), product_id: 'pro_annual' },
    ],
  });
  await fc.assert(
    fc.asyncProperty(fc.boolean(), bodies(validBatch), async (keyed, body) => {
      const response = await fetch(`${server.url}/api/sdk/events`, {
        method: 'POST',
        headers: { ...(keyed ? bearer(server.keys.sdk) : {}), 'content-type': 'application/json' },
        body,
      });
      await assertAnswer(response, `POST /api/sdk/events ${body.slice(0, 300)}`);
    }),
    { numRuns: RUNS },
  );
  await healthy(server);
  await assertAnswer(await fetch(`${server.url}/api/paywalls/pw/stats`, { headers: bearer(server.keys.secret) }), 'stats');
});

test('fuzzed resolve queries and Accept-Language: every answer is 2xx or a 4xx problem', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  const doc = example();
  doc.audiences = [{ id: 'regex', when: { 'attr.name': { $regex: '^(a+)+$' }, userId: { $regex: '^u' } }, weights: { control: 1 } }, ...doc.audiences];
  await client.putPaywall('pw', doc);
  await client.publish('pw');
  const name = fc.oneof(
    fc.constantFrom(
      'paywallId',
      'userId',
      'platform',
      'locale',
      'country',
      'appVersion',
      'attr.',
      'attr.name',
      'attr.__proto__',
      'attr.constructor',
      '__proto__',
      'constructor',
    ),
    fc.string({ maxLength: 10, unit: 'binary' }),
  );
  const text = fc.oneof(
    fc.constantFrom('pw', 'ios', 'iOS', 'web', 'de-AT', 'zh_Hant_TW', 'US', '1.2.3', '', 'a'.repeat(300)),
    fc.string({ maxLength: 60, unit: 'binary' }),
  );
  const pairs = fc.array(fc.tuple(name, text), { maxLength: 8 }).map((list) => new URLSearchParams([['paywallId', 'pw'], ...list]).toString());
  const raw = fc.string({ maxLength: 80, unit: 'binary-ascii' }).map((s) => s.replace(/[\s#]/g, '').replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)));
  const headerChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,;=.-*_ '.split(''));
  const acceptLanguage = fc.option(fc.string({ unit: headerChar, maxLength: 60 }));
  await fc.assert(
    fc.asyncProperty(fc.oneof(pairs, raw), acceptLanguage, fc.constantFrom(true, true, true, false), async (query, language, keyed) => {
      const headers: Record<string, string> = keyed ? bearer(server.keys.sdk) : {};
      if (language !== null) headers['accept-language'] = language;
      const response = await fetch(`${server.url}/api/sdk/config?${query}`, { headers });
      await assertAnswer(response, `GET /api/sdk/config?${query} (Accept-Language: ${language})`);
    }),
    { numRuns: RUNS },
  );
  await healthy(server);
  assert.equal((await client.resolve({ paywallId: 'pw', userId: 'after' })).status, 200);
});

test('fuzzed purchase records and signed store notifications: every answer is 2xx or a 4xx problem', async (t) => {
  const server = await startTestServer(t);
  const stripeSecret = 'whsec_fuzz_secret_value';
  const revenueCatAuthorization = 'Bearer fuzz-authorization';
  for (const [provider, config] of [
    ['stripe', { signing_secret: stripeSecret }],
    ['revenuecat', { authorization: revenueCatAuthorization }],
  ] as const) {
    const response = await fetch(`${server.url}/api/integrations/${provider}`, {
      method: 'PUT',
      headers: { ...bearer(server.keys.secret), 'content-type': 'application/json' },
      body: JSON.stringify(config),
    });
    assert.equal(response.status, 200);
  }
  const validPurchases = () => ({
    purchases: [{ id: 'p1', user_id: 'u1', type: 'renewal', ts: Date.now(), product_id: 'pro', revenue: 9.99, currency: 'USD', paywall_id: 'pw' }],
  });
  const validStripe = () => ({
    id: 'evt_1',
    type: 'charge.refunded',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'ch_1', customer: 'cus_1', amount_refunded: 500, currency: 'usd', metadata: { paywalld_user_id: 'u1' } } },
  });
  const validRevenueCat = () => ({
    api_version: '1.0',
    event: { id: 'rc1', type: 'RENEWAL', app_user_id: 'u1', aliases: ['u1'], price_in_purchased_currency: 4.99, currency: 'EUR', purchased_at_ms: Date.now() },
  });
  const target = fc.constantFrom('purchases', 'stripe', 'revenuecat');
  await fc.assert(
    fc.asyncProperty(
      target.chain((to) => fc.tuple(fc.constant(to), bodies(to === 'purchases' ? validPurchases : to === 'stripe' ? validStripe : validRevenueCat))),
      async ([to, body]) => {
        const now = Math.floor(Date.now() / 1000);
        const request =
          to === 'purchases'
            ? { url: '/api/purchases', headers: bearer(server.keys.secret) }
            : to === 'stripe'
              ? {
                  url: `/hooks/stripe/${server.projectId}`,
                  headers: { 'stripe-signature': `t=${now},v1=${crypto.createHmac('sha256', stripeSecret).update(`${now}.${body}`).digest('hex')}` },
                }
              : { url: `/hooks/revenuecat/${server.projectId}`, headers: { authorization: revenueCatAuthorization } };
        const response = await fetch(`${server.url}${request.url}`, {
          method: 'POST',
          headers: { ...request.headers, 'content-type': 'application/json' },
          body,
        });
        await assertAnswer(response, `POST ${request.url} ${body.slice(0, 300)}`);
      },
    ),
    { numRuns: RUNS },
  );
  await healthy(server);
});
