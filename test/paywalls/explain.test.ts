import assert from 'node:assert/strict';
import { test } from 'node:test';
import { example } from '../helpers/example-paywall.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

async function setUp(t: import('node:test').TestContext) {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  const doc = example();
  // A second audience after the first, and one with a logical clause and a custom attribute.
  doc.audiences.push({ id: 'pro_plan', when: { 'attr.plan': 'pro', $or: [{ platform: 'android' }, { platform: 'web' }] }, weights: { control: 100 } });
  await client.putPaywall('onboarding', doc);
  await client.publish('onboarding');
  const explain = async (query: Record<string, string>, key = client.secret, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/sdk/config?${new URLSearchParams({ paywallId: 'onboarding', explain: '1', ...query })}`, {
      headers: { authorization: `Bearer ${key}`, ...headers },
    });
  return { server, client, explain };
}

test('explain=1 with a secret key: hash, audiences with each condition, variant and why, locale chain', async (t) => {
  const { client, explain } = await setUp(t);
  const response = await explain({ userId: 'user-42', platform: 'ios', country: 'us', locale: 'de-AT' });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body = await response.json();
  const plain = await (await client.resolve({ paywallId: 'onboarding', userId: 'user-42', platform: 'ios', country: 'us', locale: 'de-AT' })).json();
  const { explain: why, ...answer } = body;
  assert.deepEqual(answer, plain, 'the answer itself is what the app gets');

  assert.deepEqual(why.attributes, { userId: 'user-42', platform: 'ios', country: 'US', locale: 'de-AT' });
  assert.equal(why.hash.input, 'onboardinguser-42');
  assert.equal(why.hash.value, why.hash.bucket / 10_000);
  assert.deepEqual(why.audiences[0], {
    id: 'us_ios',
    tried: true,
    matched: true,
    conditions: [
      { path: '/audiences/0/when/country', clause: { country: 'US' }, attribute: 'country', value: 'US', result: true },
      { path: '/audiences/0/when/platform', clause: { platform: 'ios' }, attribute: 'platform', value: 'ios', result: true },
    ],
  });
  assert.deepEqual(why.audiences[1], { id: 'pro_plan', tried: false, matched: false, conditions: [] }, 'audiences after the match are not tried');
  assert.deepEqual(why.split, {
    from: 'audience us_ios',
    ranges: [
      { variant: 'control', weight: 0, buckets: [0, 0] },
      { variant: 'annual_first', weight: 100, buckets: [0, 10_000] },
    ],
  });
  assert.equal(why.variant.id, plain.variant.id);
  assert.match(why.variant.reason, new RegExp(`^bucket ${why.hash.bucket} falls in annual_first's buckets \\[0, 10000\\) of the weights of audience us_ios$`));
  assert.deepEqual(why.locale.walked, [
    { tag: 'de-AT', available: false },
    { tag: 'de', available: true },
  ]);
  assert.equal(why.locale.chosen, 'de');
  assert.equal(why.locale.source, 'locale');
});

test('explain shows why no audience matched and how the paywall weights split the buckets', async (t) => {
  const { explain } = await setUp(t);
  const body = await (
    await explain({ userId: 'someone', platform: 'android', country: 'DE', 'attr.plan': 'free' }, undefined, { 'accept-language': 'fr-CH, it;q=0.5' })
  ).json();
  const why = body.explain;
  assert.deepEqual(
    why.audiences.map((a: any) => [a.id, a.tried, a.matched, a.conditions.map((c: any) => c.result)]),
    [
      ['us_ios', true, false, [false, false]],
      ['pro_plan', true, false, [false, true]],
    ],
  );
  assert.deepEqual(why.audiences[1].conditions[1], {
    path: '/audiences/1/when/$or',
    clause: { $or: [{ platform: 'android' }, { platform: 'web' }] },
    attribute: null,
    value: null,
    result: true,
  });
  assert.equal(why.audiences[1].conditions[0].value, 'free');
  assert.equal(body.variant.audience, null);
  assert.deepEqual(
    why.split.ranges.map((r: any) => r.buckets),
    [
      [0, 5000],
      [5000, 10_000],
    ],
  );
  const range = why.split.ranges.find((r: any) => r.variant === body.variant.id).buckets;
  assert.ok(why.hash.bucket >= range[0] && why.hash.bucket < range[1], "the bucket lies in the chosen variant's range");
  assert.equal(why.locale.source, 'accept-language');
  assert.deepEqual(
    why.locale.walked.map((w: any) => w.tag),
    ['fr-CH', 'fr', 'it'],
  );
  assert.equal(why.locale.chosen, 'en');
  assert.match(why.locale.reason, /default locale en/);
});

test('without a userId explain says the first variant with traffic was served, with no hash', async (t) => {
  const { explain } = await setUp(t);
  const why = (await (await explain({})).json()).explain;
  assert.equal(why.hash, null);
  assert.equal(why.variant.id, 'control');
  assert.match(why.variant.reason, /^no userId: the first variant with weight above 0/);
  assert.equal(why.locale.source, 'none');
});

test('explain=1 is refused with an sdk key, and explain=0 or absent changes nothing', async (t) => {
  const { client, explain } = await setUp(t);
  const refused = await problem(await explain({ userId: 'u' }, client.sdk), 403, 'insufficient_scope');
  assert.match(refused.detail, /explain=1 needs a secret key/);
  const off = await explain({ userId: 'u', explain: '0' }, client.sdk);
  assert.equal(off.status, 200);
  assert.equal((await off.json()).explain, undefined);
  assert.ok(off.headers.get('etag'));
  await problem(await explain({ explain: 'yes' }), 400, 'invalid_query');
  await problem(await explain({ paywallId: 'missing' }), 404, 'paywall_not_found');
});

test('OpenAPI documents the explain parameter and the explain object', async (t) => {
  const { server } = await setUp(t);
  const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
  const operation = doc.paths['/api/sdk/config'].get;
  const parameter = operation.parameters.find((p: any) => p.name === 'explain');
  assert.ok(parameter, 'explain is a documented query parameter');
  assert.match(parameter.description, /secret key/);
  const schema = operation.responses['200'].content['application/json'].schema;
  const explain = schema.properties.explain;
  assert.ok(explain, 'the 200 schema has explain');
  for (const field of ['hash', 'audiences', 'split', 'variant', 'locale', 'attributes']) assert.ok(explain.properties[field], field);
  assert.ok(!schema.required.includes('explain'));
});
