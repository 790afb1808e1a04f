/** The paywall management API through HTTP: revisions, publishing, rollback, archiving, preconditions, isolation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import { example } from '../helpers/example-paywall.ts';
import type { Json } from '../helpers/json.ts';
import { type Api, api, seedProducts, single } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

async function setup(t: Parameters<typeof startTestServer>[0]): Promise<{ server: TestServer; client: Api }> {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  return { server, client };
}

/** The title a resolve for `paywallId` shows (the text of the root's first child). */
async function servedTitle(client: Api, paywallId: string): Promise<{ status: number; title?: string; revision?: number }> {
  const response = await client.resolve({ paywallId });
  if (response.status !== 200) return { status: response.status };
  const body = (await response.json()) as Json;
  return { status: 200, title: body.root.children[0].props.text, revision: body.revision };
}

test('PUT creates a paywall with revision 1, and each further PUT writes the next revision', async (t) => {
  const { client } = await setup(t);
  const created = await client.request('PUT', '/api/paywalls/onboarding', { body: example() });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('location'), '/api/paywalls/onboarding');
  const first = (await created.json()) as Json;
  assert.deepEqual(
    { id: first.id, name: first.name, status: first.status, revision: first.revision, live_revision: first.live_revision },
    { id: 'onboarding', name: 'Onboarding', status: 'draft', revision: 1, live_revision: null },
  );

  const second = await client.request('PUT', '/api/paywalls/onboarding', { body: { ...example(), name: 'Onboarding v2' } });
  assert.equal(second.status, 200);
  assert.equal(((await second.json()) as Json).revision, 2);

  const read = await client.request('GET', '/api/paywalls/onboarding');
  assert.equal(read.status, 200);
  assert.equal(read.headers.get('etag'), second.headers.get('etag'));
  const detail = (await read.json()) as Json;
  assert.equal(detail.revision, 2);
  assert.equal(detail.document.name, 'Onboarding v2');
  assert.deepEqual(detail.document.root, example().root);

  const list = (await (await client.request('GET', '/api/paywalls')).json()) as Json;
  assert.deepEqual(
    list.paywalls.map((p: Json) => [p.id, p.name, p.revision]),
    [['onboarding', 'Onboarding v2', 2]],
  );

  const revisions = (await (await client.request('GET', '/api/paywalls/onboarding/revisions')).json()) as Json;
  assert.deepEqual(
    revisions.revisions.map((r: Json) => [r.revision, r.name, r.live]),
    [
      [2, 'Onboarding v2', false],
      [1, 'Onboarding', false],
    ],
  );
  const old = (await (await client.request('GET', '/api/paywalls/onboarding/revisions/1')).json()) as Json;
  assert.equal(old.document.name, 'Onboarding');
  await problem(await client.request('GET', '/api/paywalls/onboarding/revisions/3'), 404, 'revision_not_found');
  await problem(await client.request('GET', '/api/paywalls/onboarding/revisions/x'), 404, 'revision_not_found');
});

test('a write lists warnings for a paywall that is valid but incomplete, and stores it', async (t) => {
  const { client } = await setup(t);
  const doc = example();
  doc.strings.en.subtitle = 'Unlock everything';
  doc.root.children.splice(2, 1);
  const written = await client.putPaywall('onboarding', doc);
  assert.deepEqual(
    written.warnings.map((w: Json) => [w.path, w.code]),
    [
      ['/root', 'no_privacy_link'],
      ['/root', 'no_purchase_button'],
      ['/root', 'no_restore_button'],
      ['/root', 'no_terms_link'],
      ['/strings/de', 'missing_translations'],
    ],
  );
  assert.equal((await client.request('GET', '/api/paywalls/onboarding')).status, 200);
});

test('a rejected write of an existing paywall adds no revision', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', example());
  const bad = example();
  bad.root.type = 'carousel';
  await problem(await client.request('PUT', '/api/paywalls/onboarding', { body: bad }), 422, 'validation_failed');
  const revisions = (await (await client.request('GET', '/api/paywalls/onboarding/revisions')).json()) as Json;
  assert.equal(revisions.revisions.length, 1);
});

test('drafts never reach the SDK endpoint: only the published revision is served', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', single({ en: { title: 'First' } }));
  assert.deepEqual(await servedTitle(client, 'onboarding'), { status: 404 });

  await client.publish('onboarding');
  assert.deepEqual(await servedTitle(client, 'onboarding'), { status: 200, title: 'First', revision: 1 });

  await client.putPaywall('onboarding', single({ en: { title: 'Second draft' } }));
  assert.deepEqual(await servedTitle(client, 'onboarding'), { status: 200, title: 'First', revision: 1 });
  const detail = (await (await client.request('GET', '/api/paywalls/onboarding')).json()) as Json;
  assert.deepEqual([detail.status, detail.revision, detail.live_revision], ['live', 2, 1]);

  const published = await client.publish('onboarding');
  assert.equal(published.live_revision, 2);
  assert.deepEqual(await servedTitle(client, 'onboarding'), { status: 200, title: 'Second draft', revision: 2 });
});

test('publishing an older revision rolls back to it', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', single({ en: { title: 'One' } }));
  await client.putPaywall('onboarding', single({ en: { title: 'Two' } }));
  await client.publish('onboarding');
  assert.equal((await servedTitle(client, 'onboarding')).title, 'Two');

  const rolledBack = await client.publish('onboarding', 1);
  assert.deepEqual([rolledBack.revision, rolledBack.live_revision], [2, 1]);
  assert.deepEqual(await servedTitle(client, 'onboarding'), { status: 200, title: 'One', revision: 1 });
  const revisions = (await (await client.request('GET', '/api/paywalls/onboarding/revisions')).json()) as Json;
  assert.deepEqual(
    revisions.revisions.map((r: Json) => [r.revision, r.live, r.published_at !== null]),
    [
      [2, false, true],
      [1, true, true],
    ],
  );
});

test('publishing a revision that does not exist is a 404, a malformed body a 422', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', example());
  await problem(await client.request('POST', '/api/paywalls/onboarding/publish', { body: { revision: 7 } }), 404, 'revision_not_found');
  const body = await problem(await client.request('POST', '/api/paywalls/onboarding/publish', { body: { revision: 'latest' } }), 422, 'validation_failed');
  assert.deepEqual(
    body.errors.map((e: Json) => e.path),
    ['/revision'],
  );
  await problem(await client.request('POST', '/api/paywalls/nothing-here/publish'), 404, 'paywall_not_found');
});

test('a revision naming a product deleted since cannot be published (409)', async (t) => {
  const { client } = await setup(t);
  await client.putProduct('pro_lifetime', { name: 'Lifetime' });
  await client.putPaywall('onboarding', single({ en: { title: 'T' } }, { slots: { primary: 'pro_lifetime' } }));
  assert.equal((await client.request('DELETE', '/api/products/pro_lifetime')).status, 204);
  const body = await problem(await client.request('POST', '/api/paywalls/onboarding/publish'), 409, 'revision_invalid');
  assert.deepEqual(
    body.errors.map((e: Json) => e.path),
    ['/slots/primary'],
  );
  // The answer names what is missing and the ways forward.
  assert.equal(
    body.detail,
    'revision 1 cannot be published: it puts pro_lifetime in a slot, deleted from the catalog since. Create that product again (PUT /api/products/{id}), or publish a revision without it; see errors',
  );
  assert.equal((await client.resolve({ paywallId: 'onboarding' })).status, 404);
  // Creating the product again is the way back.
  assert.equal((await client.request('PUT', '/api/products/pro_lifetime', { body: { name: 'Lifetime' } })).status, 201);
  assert.equal((await client.request('POST', '/api/paywalls/onboarding/publish')).status, 200);
});

test('a stale If-Match is refused with 412 on PUT, publish and DELETE; the current ETag is accepted', async (t) => {
  const { client } = await setup(t);
  const created = await client.request('PUT', '/api/paywalls/onboarding', { body: example() });
  const stale = created.headers.get('etag')!;
  const updated = await client.request('PUT', '/api/paywalls/onboarding', { body: example(), headers: { 'if-match': stale } });
  assert.equal(updated.status, 200);
  const current = updated.headers.get('etag')!;
  assert.notEqual(current, stale);

  await problem(await client.request('PUT', '/api/paywalls/onboarding', { body: example(), headers: { 'if-match': stale } }), 412, 'precondition_failed');
  await problem(await client.request('POST', '/api/paywalls/onboarding/publish', { headers: { 'if-match': stale } }), 412, 'precondition_failed');
  await problem(await client.request('DELETE', '/api/paywalls/onboarding', { headers: { 'if-match': stale } }), 412, 'precondition_failed');
  const revisions = (await (await client.request('GET', '/api/paywalls/onboarding/revisions')).json()) as Json;
  assert.equal(revisions.revisions.length, 2, 'the refused PUT stored nothing');
  assert.equal(((await (await client.request('GET', '/api/paywalls/onboarding')).json()) as Json).status, 'draft');

  const published = await client.request('POST', '/api/paywalls/onboarding/publish', { headers: { 'if-match': current } });
  assert.equal(published.status, 200);
});

test('If-Match on a paywall that does not exist, and If-None-Match: * on one that does, are 412', async (t) => {
  const { client } = await setup(t);
  await problem(await client.request('PUT', '/api/paywalls/onboarding', { body: example(), headers: { 'if-match': '"1"' } }), 412, 'precondition_failed');
  assert.equal((await client.request('PUT', '/api/paywalls/onboarding', { body: example(), headers: { 'if-none-match': '*' } })).status, 201);
  await problem(await client.request('PUT', '/api/paywalls/onboarding', { body: example(), headers: { 'if-none-match': '*' } }), 412, 'precondition_failed');
});

test('reads carry an ETag, and If-None-Match with it answers 304', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', example());
  for (const path of ['/api/paywalls', '/api/paywalls/onboarding', '/api/paywalls/onboarding/revisions', '/api/paywalls/onboarding/revisions/1']) {
    const first = await client.request('GET', path);
    const etag = first.headers.get('etag');
    assert.ok(etag, path);
    const again = await client.request('GET', path, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304, path);
    assert.equal(await again.text(), '');
  }
});

test('DELETE archives: the SDK endpoint stops serving it, the paywall stays readable, publishing restores it', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', example());
  await client.publish('onboarding');
  assert.equal((await client.resolve({ paywallId: 'onboarding' })).status, 200);

  const archived = await client.request('DELETE', '/api/paywalls/onboarding');
  assert.equal(archived.status, 200);
  assert.equal(((await archived.json()) as Json).status, 'archived');
  await problem(await client.resolve({ paywallId: 'onboarding' }), 404, 'paywall_not_found');
  assert.equal(((await (await client.request('GET', '/api/paywalls/onboarding')).json()) as Json).status, 'archived');

  await client.publish('onboarding');
  assert.equal((await client.resolve({ paywallId: 'onboarding' })).status, 200);
});

test("another project's paywall is a 404 everywhere, and the same id can exist in both", async (t) => {
  const { server, client } = await setup(t);
  await client.putPaywall('onboarding', single({ en: { title: 'Ours' } }));
  await client.publish('onboarding');

  const other = await server.server.ctx.projects.create('other', TEST_CHANGE);
  await server.server.ctx.auth.reload();
  const theirs = api({ url: server.url, keys: other.keys });
  for (const [method, path] of [
    ['GET', '/api/paywalls/onboarding'],
    ['GET', '/api/paywalls/onboarding/revisions'],
    ['GET', '/api/paywalls/onboarding/revisions/1'],
    ['POST', '/api/paywalls/onboarding/publish'],
    ['DELETE', '/api/paywalls/onboarding'],
  ] as const) {
    const response = await theirs.request(method, path);
    assert.equal(response.status, 404, `${method} ${path}`);
    assert.ok(!(await response.text()).includes('Ours'));
  }
  assert.deepEqual(await (await theirs.request('GET', '/api/paywalls')).json(), { paywalls: [] });
  await problem(await theirs.resolve({ paywallId: 'onboarding' }), 404, 'paywall_not_found');

  await theirs.putProduct('pro_annual', { name: 'Theirs' });
  await theirs.putPaywall('onboarding', single({ en: { title: 'Theirs' } }));
  await theirs.publish('onboarding');
  assert.equal((await servedTitle(theirs, 'onboarding')).title, 'Theirs');
  assert.equal((await servedTitle(client, 'onboarding')).title, 'Ours');
});

test('an sdk key is refused on every management endpoint (403)', async (t) => {
  const { client } = await setup(t);
  await client.putPaywall('onboarding', example());
  for (const [method, path, body] of [
    ['GET', '/api/paywalls', undefined],
    ['GET', '/api/paywalls/onboarding', undefined],
    ['PUT', '/api/paywalls/onboarding', example()],
    ['POST', '/api/paywalls/onboarding/publish', undefined],
    ['GET', '/api/paywalls/onboarding/revisions', undefined],
    ['GET', '/api/paywalls/onboarding/revisions/1', undefined],
    ['DELETE', '/api/paywalls/onboarding', undefined],
    ['GET', '/api/products', undefined],
    ['GET', '/api/products/pro_annual', undefined],
    ['PUT', '/api/products/pro_annual', { name: 'x' }],
    ['DELETE', '/api/products/pro_annual', undefined],
  ] as const) {
    await problem(await client.request(method, path, { key: client.sdk, body }), 403, 'insufficient_scope');
  }
  assert.equal(((await (await client.request('GET', '/api/paywalls/onboarding')).json()) as Json).status, 'draft');
});

test('a paywall id outside [A-Za-z0-9][A-Za-z0-9_.-]{0,63} cannot be created (422)', async (t) => {
  const { client } = await setup(t);
  for (const id of ['-leading-dash', 'a'.repeat(65), 'sp%20ace']) {
    await problem(await client.request('PUT', `/api/paywalls/${id}`, { body: example() }), 422, 'invalid_id');
  }
  assert.equal((await client.request('PUT', `/api/paywalls/${'a'.repeat(64)}`, { body: example() })).status, 201);
});
