/** The product catalog through HTTP. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import type { Json } from '../helpers/json.ts';
import { api, single } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

const annual = { name: 'Pro Annual', store_ids: { app_store: 'com.acme.pro.annual', play_store: 'pro_annual' } };

test('PUT creates (201) and replaces (200) a product; GET and the list read it back', async (t) => {
  const client = api(await startTestServer(t));
  const created = await client.request('PUT', '/api/products/pro_annual', { body: annual });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('location'), '/api/products/pro_annual');
  const product = (await created.json()) as Json;
  assert.deepEqual({ id: product.id, name: product.name, store_ids: product.store_ids }, { id: 'pro_annual', ...annual });

  const replaced = await client.request('PUT', '/api/products/pro_annual', { body: { id: 'pro_annual', name: 'Pro Yearly' } });
  assert.equal(replaced.status, 200);
  assert.notEqual(replaced.headers.get('etag'), created.headers.get('etag'));

  const read = await client.request('GET', '/api/products/pro_annual');
  assert.equal(read.headers.get('etag'), replaced.headers.get('etag'));
  const body = (await read.json()) as Json;
  assert.deepEqual([body.name, body.store_ids, body.created_at], ['Pro Yearly', {}, product.created_at]);

  await client.putProduct('basic', { name: 'Basic' });
  const list = (await (await client.request('GET', '/api/products')).json()) as Json;
  assert.deepEqual(
    list.products.map((p: Json) => p.id),
    ['basic', 'pro_annual'],
  );
});

test('an invalid product is a 422 with the path of each problem', async (t) => {
  const client = api(await startTestServer(t));
  const body = await problem(
    await client.request('PUT', '/api/products/pro_annual', { body: { name: '', store_ids: { app_store: 'x', steam: 'y' } } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(body.errors.map((e: Json) => e.path).sort(), ['/name', '/store_ids/steam']);
  assert.equal((await client.request('GET', '/api/products/pro_annual')).status, 404);
});

test('a product name holding NUL or a lone surrogate is a 422 at /name; a surrogate pair is kept', async (t) => {
  const client = api(await startTestServer(t));
  for (const name of ['nul\u0000name', 'lone\ud800']) {
    const body = await problem(await client.request('PUT', '/api/products/pro', { body: { name } }), 422, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: '/name', message: 'must be well-formed Unicode text without NUL (U+0000) or a lone surrogate' }]);
  }
  assert.equal((await client.request('PUT', '/api/products/pro', { body: { name: 'smile \ud83d\ude00' } })).status, 201);
  assert.equal(((await (await client.request('GET', '/api/products/pro')).json()) as Json).name, 'smile \ud83d\ude00');
});

test('an id in the body must be the id of the path', async (t) => {
  const client = api(await startTestServer(t));
  const body = await problem(await client.request('PUT', '/api/products/pro_annual', { body: { id: 'other', name: 'X' } }), 422, 'validation_failed');
  assert.deepEqual(body.errors, [{ path: '/id', message: 'Must be the id in the path' }]);
});

test('a product id outside the id pattern cannot be created', async (t) => {
  const client = api(await startTestServer(t));
  await problem(await client.request('PUT', '/api/products/.hidden', { body: { name: 'X' } }), 422, 'invalid_id');
});

test('a stale If-Match is a 412 on PUT and DELETE', async (t) => {
  const client = api(await startTestServer(t));
  const stale = (await client.request('PUT', '/api/products/pro_annual', { body: annual })).headers.get('etag')!;
  const current = (await client.request('PUT', '/api/products/pro_annual', { body: annual, headers: { 'if-match': stale } })).headers.get('etag')!;
  await problem(await client.request('PUT', '/api/products/pro_annual', { body: annual, headers: { 'if-match': stale } }), 412, 'precondition_failed');
  await problem(await client.request('DELETE', '/api/products/pro_annual', { headers: { 'if-match': stale } }), 412, 'precondition_failed');
  assert.equal((await client.request('DELETE', '/api/products/pro_annual', { headers: { 'if-match': current } })).status, 204);
});

test('DELETE removes a product; written again it is created anew with an ETag never seen before', async (t) => {
  const client = api(await startTestServer(t));
  const first = (await client.request('PUT', '/api/products/pro_annual', { body: annual })).headers.get('etag');
  assert.equal((await client.request('DELETE', '/api/products/pro_annual')).status, 204);
  await problem(await client.request('GET', '/api/products/pro_annual'), 404, 'product_not_found');
  await problem(await client.request('DELETE', '/api/products/pro_annual'), 404, 'product_not_found');
  assert.deepEqual(await (await client.request('GET', '/api/products')).json(), { products: [] });
  const again = await client.request('PUT', '/api/products/pro_annual', { body: annual });
  assert.equal(again.status, 201);
  assert.notEqual(again.headers.get('etag'), first);
});

test('a product in a slot of a live paywall cannot be deleted (409); once the paywall is archived it can', async (t) => {
  const client = api(await startTestServer(t));
  await client.putProduct('pro_annual', annual);
  await client.putPaywall('p', single({ en: { title: 'T' } }));
  await client.publish('p');
  const body = await problem(await client.request('DELETE', '/api/products/pro_annual'), 409, 'product_in_use');
  assert.match(body.detail, /1 live paywall/);
  assert.equal((await client.request('GET', '/api/products/pro_annual')).status, 200);
  await client.request('DELETE', '/api/paywalls/p');
  assert.equal((await client.request('DELETE', '/api/products/pro_annual')).status, 204);
});

test("another project's products are invisible (404) and do not satisfy a slot", async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await client.putProduct('pro_annual', annual);
  const other = await server.server.ctx.projects.create('other', TEST_CHANGE);
  await server.server.ctx.auth.reload();
  const theirs = api({ url: server.url, keys: other.keys });
  await problem(await theirs.request('GET', '/api/products/pro_annual'), 404, 'product_not_found');
  await problem(await theirs.request('DELETE', '/api/products/pro_annual'), 404, 'product_not_found');
  assert.deepEqual(await (await theirs.request('GET', '/api/products')).json(), { products: [] });
  const rejected = await problem(await theirs.request('PUT', '/api/paywalls/p', { body: single({ en: { title: 'T' } }) }), 422, 'validation_failed');
  assert.deepEqual(
    rejected.errors.map((e: Json) => e.path),
    ['/slots/primary'],
  );
});

test('If-None-Match with the ETag answers 304 on product reads', async (t) => {
  const client = api(await startTestServer(t));
  await client.putProduct('pro_annual', annual);
  for (const path of ['/api/products', '/api/products/pro_annual']) {
    const etag = (await client.request('GET', path)).headers.get('etag')!;
    assert.equal((await client.request('GET', path, { headers: { 'if-none-match': etag } })).status, 304, path);
  }
});
