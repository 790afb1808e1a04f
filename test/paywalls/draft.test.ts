/** POST /api/paywalls/{id}/validate and /preview: the server's validation and resolve of a document that is not stored. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { example } from '../helpers/example-paywall.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

async function setup(t: import('node:test').TestContext) {
  const client = api(await startTestServer(t));
  await seedProducts(client);
  return client;
}

test('validate answers 200 with the warnings a PUT would give, and stores nothing', async (t) => {
  const client = await setup(t);
  const response = await client.request('POST', '/api/paywalls/onboarding/validate', { body: example() });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body = await response.json();
  assert.equal(body.valid, true);
  const put = await client.putPaywall('onboarding', example());
  assert.deepEqual(body.warnings, put.warnings);
  assert.ok(body.warnings.some((w: Json) => w.code === 'no_restore_button'));
  // The PUT above created the paywall: validate before it stored nothing.
  assert.equal(put.revision, 1);
});

test('validate answers the 422 of a PUT, each error at its JSON pointer', async (t) => {
  const client = await setup(t);
  const document = example();
  document.root.children[0].type = 'txt';
  document.slots.primary = 'no_such_product';
  const body = await problem(await client.request('POST', '/api/paywalls/onboarding/validate', { body: document }), 422, 'validation_failed');
  const put = await problem(await client.request('PUT', '/api/paywalls/onboarding', { body: document }), 422, 'validation_failed');
  assert.deepEqual(body.errors, put.errors);
  assert.ok(
    body.errors.some((e: Json) => e.path === '/root/children/0/type'),
    JSON.stringify(body.errors),
  );
  assert.equal((await client.request('GET', '/api/paywalls/onboarding')).status, 404);
});

test('validate refuses what a PUT refuses: bad JSON, another content type, a bad id, an oversized document, no key, an sdk key', async (t) => {
  const client = await setup(t);
  await problem(await client.request('POST', '/api/paywalls/x/validate', { body: '{"name":' }), 400, 'malformed_json');
  await problem(
    await client.request('POST', '/api/paywalls/x/validate', { body: JSON.stringify(example()), headers: { 'content-type': 'text/plain' } }),
    415,
    'unsupported_media_type',
  );
  await problem(await client.request('POST', '/api/paywalls/-bad/validate', { body: example() }), 422, 'invalid_id');
  const huge = { ...example(), metadata: { blob: 'x'.repeat(1024 * 1024) } };
  const tooBig = await problem(await client.request('POST', '/api/paywalls/x/validate', { body: huge }), 422, 'validation_failed');
  assert.match(tooBig.errors[0].message, /larger than 1 MiB/);
  const anonymous = await fetch(`${client.url}/api/paywalls/x/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await problem(anonymous, 401, 'missing_api_key');
  await problem(await client.request('POST', '/api/paywalls/x/validate', { body: example(), key: client.sdk }), 403, 'insufficient_scope');
});

test('preview resolves a draft for the chosen variant, locale, platform and country, as the SDK endpoint would serve it', async (t) => {
  const client = await setup(t);
  const response = await client.request('POST', '/api/paywalls/onboarding/preview', {
    body: { document: example(), variant: 'annual_first', locale: 'de', platform: 'ios', country: 'us' },
  });
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.revision, 0);
  assert.deepEqual(body.variant, { id: 'annual_first', audience: 'us_ios', assignment: 'default' });
  assert.equal(body.locale, 'de');
  assert.equal(body.root.children[0].props.text, 'Werde Pro');
  assert.equal(body.root.children[1].product.store_product_id, 'com.acme.pro.monthly');

  // Published, the SDK endpoint serves the same tree to a US iOS user in German.
  await client.putPaywall('onboarding', example());
  await client.publish('onboarding');
  const served = await (await client.resolve({ paywallId: 'onboarding', userId: 'u1', platform: 'ios', country: 'US', locale: 'de' })).json();
  assert.deepEqual(served.root, body.root);

  const control = await (
    await client.request('POST', '/api/paywalls/onboarding/preview', { body: { document: example(), variant: 'control', platform: 'android' } })
  ).json();
  assert.equal(control.variant.id, 'control');
  assert.equal(control.locale, 'en');
  assert.equal(control.root.children[0].props.text, 'Go Pro');
  assert.equal(control.root.children[1].product.store_product_id, 'pro_annual');
});

test('preview without a variant gives what a user without userId gets', async (t) => {
  const client = await setup(t);
  const body = await (await client.request('POST', '/api/paywalls/onboarding/preview', { body: { document: example() } })).json();
  assert.deepEqual(body.variant, { id: 'control', audience: null, assignment: 'default' });
});

test('preview refuses an invalid document with errors under /document, and bad fields at their pointer', async (t) => {
  const client = await setup(t);
  const document = example();
  delete document.root.props.axis;
  const invalid = await problem(await client.request('POST', '/api/paywalls/x/preview', { body: { document } }), 422, 'validation_failed');
  assert.ok(
    invalid.errors.some((e: Json) => e.path === '/document/root/props/axis'),
    JSON.stringify(invalid.errors),
  );
  const unknownVariant = await problem(
    await client.request('POST', '/api/paywalls/x/preview', { body: { document: example(), variant: 'nope' } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(unknownVariant.errors, [{ path: '/variant', message: 'The document has no variant with this id' }]);
  const fields = await problem(
    await client.request('POST', '/api/paywalls/x/preview', { body: { document: example(), country: 'USA', platform: 'tv', extra: 1 } }),
    422,
    'validation_failed',
  );
  const paths = fields.errors.map((e: Json) => e.path).sort();
  assert.deepEqual(paths, ['/country', '/extra', '/platform']);
  const missing = await problem(await client.request('POST', '/api/paywalls/x/preview', { body: {} }), 422, 'validation_failed');
  assert.deepEqual(
    missing.errors.map((e: Json) => e.path),
    ['/document'],
  );
  await problem(await client.request('POST', '/api/paywalls/x/preview', { body: { document: example() }, key: client.sdk }), 403, 'insufficient_scope');
});
