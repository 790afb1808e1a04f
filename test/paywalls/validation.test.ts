/** Every write-time rejection of a paywall document, through HTTP: 422, the exact JSON pointer, nothing stored. */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { example } from '../helpers/example-paywall.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

/** PUTs `doc` as a new paywall and checks the 422 lists exactly `paths`, and that no paywall was stored. */
async function rejects(t: TestContext, doc: Json | string, paths: string[]): Promise<{ path: string; message: string }[]> {
  const client = api(await startTestServer(t));
  await seedProducts(client);
  const body = await problem(await client.request('PUT', '/api/paywalls/onboarding', { body: doc }), 422, 'validation_failed');
  assert.deepEqual(
    body.errors.map((error: { path: string }) => error.path),
    paths,
  );
  await problem(await client.request('GET', '/api/paywalls/onboarding'), 404, 'paywall_not_found');
  assert.deepEqual(await (await client.request('GET', '/api/paywalls')).json(), { paywalls: [] });
  return body.errors;
}

/** A stack nested `depth` levels deep (the root is level 1) with a text at the bottom. */
function nested(depth: number): Json {
  let node: Json = { type: 'text', props: { text: 'deep' } };
  for (let level = 1; level < depth; level++) node = { type: 'stack', props: { axis: 'vertical' }, children: [node] };
  return node;
}

test('the reference example document is accepted', async (t) => {
  const client = api(await startTestServer(t));
  await seedProducts(client);
  const response = await client.request('PUT', '/api/paywalls/onboarding', { body: example() });
  assert.equal(response.status, 201);
});

test('an unknown component type', async (t) => {
  const doc = example();
  doc.root.children[0].type = 'carousel';
  await rejects(t, doc, ['/root/children/0/type']);
});

test('an unknown prop', async (t) => {
  const doc = example();
  doc.root.children[1].props.bogus = true;
  const errors = await rejects(t, doc, ['/root/children/1/props/bogus']);
  assert.equal(errors[0]!.message, 'Unknown property');
});

test('a slot that the document does not define', async (t) => {
  const doc = example();
  doc.root.children[1].props.slot = 'tertiary';
  await rejects(t, doc, ['/root/children/1/props/slot']);
});

test('a slot naming a product that does not exist', async (t) => {
  const doc = example();
  doc.slots.secondary = 'pro_lifetime';
  const errors = await rejects(t, doc, ['/slots/secondary']);
  assert.equal(errors[0]!.message, 'No product with this id exists in the project');
});

test('a text_key missing from the default locale', async (t) => {
  const doc = example();
  doc.root.children[0].props.text_key = 'subtitle';
  await rejects(t, doc, ['/root/children/0/props/text_key']);
});

test('duplicate variant ids', async (t) => {
  const doc = example();
  doc.variants[1].id = 'control';
  doc.audiences = [];
  const errors = await rejects(t, doc, ['/variants/1/id']);
  assert.equal(errors[0]!.message, 'Duplicate variant id');
});

test('an audience naming an unknown variant', async (t) => {
  const doc = example();
  doc.audiences[0].weights = { ghost: 100 };
  await rejects(t, doc, ['/audiences/0/weights/ghost']);
});

test('an invalid condition', async (t) => {
  const doc = example();
  doc.audiences[0].when = { country: { $in: 'US' } };
  await rejects(t, doc, ['/audiences/0/when/country/$in']);
});

test('an invalid regex in a condition', async (t) => {
  const doc = example();
  doc.audiences[0].when = { 'attr.plan': { $regex: '(free|trial' } };
  await rejects(t, doc, ['/audiences/0/when/attr.plan/$regex']);
});

test('a tree deeper than 32 levels', async (t) => {
  await rejects(t, { ...example(), root: nested(33) }, [`/root${'/children/0'.repeat(32)}`]);
});

test('a fallback counts as one level deeper than its node', async (t) => {
  const root = nested(32);
  let deepest = root;
  while (deepest.children) deepest = deepest.children[0];
  deepest.fallback = { type: 'text', props: { text: 'older apps' } };
  await rejects(t, { ...example(), root }, [`/root${'/children/0'.repeat(31)}/fallback`]);
});

test('a tree of more than 2,000 nodes', async (t) => {
  const root = { type: 'stack', props: { axis: 'vertical' }, children: Array.from({ length: 2000 }, () => ({ type: 'spacer' })) };
  await rejects(t, { ...example(), root }, ['/root']);
});

test('a document over 1 MiB', async (t) => {
  const doc = example();
  doc.strings.en.legal = 'x'.repeat(1024 * 1024);
  const errors = await rejects(t, doc, ['']);
  assert.match(errors[0]!.message, /larger than 1 MiB/);
});

test('a fallback node is validated like any node', async (t) => {
  const doc = example();
  doc.root.children[0].fallback = { type: 'text', props: { text: 'Pro', size: 3 } };
  await rejects(t, doc, ['/root/children/0/fallback/props/size']);
});

test('a body past 4 MiB is not read at all: 413', async (t) => {
  const client = api(await startTestServer(t));
  const response = await client.request('PUT', '/api/paywalls/onboarding', { body: JSON.stringify({ pad: 'x'.repeat(4 * 1024 * 1024) }) });
  await problem(response, 413, 'body_too_large');
});

test('error messages never quote the document', async (t) => {
  const doc = example();
  const secret = 'SECRET-VALUE-123';
  doc.root.children[0].type = secret;
  doc.root.props.axis = secret;
  doc.slots.primary = secret;
  const client = api(await startTestServer(t));
  await seedProducts(client);
  const response = await client.request('PUT', '/api/paywalls/onboarding', { body: doc });
  const text = await response.text();
  assert.equal(response.status, 422);
  assert.ok(!text.includes(secret), text);
});

test("a slot's product without a store id for a platform the project sells on is warned of per platform, when written and when published", async (t) => {
  const client = api(await startTestServer(t));
  await seedProducts(client);
  // Sold on the web only: its slot offers nothing to buy on iOS and Android, where the catalog sells.
  await client.putProduct('web_only', { name: 'Web only', store_ids: { stripe: 'price_web' } });
  const doc = example();
  doc.variants[1].slots = { primary: 'web_only' };
  const written = await client.request('PUT', '/api/paywalls/onboarding', { body: doc });
  assert.equal(written.status, 201);
  const warnings = (await written.json()).warnings.filter((w: Json) => w.code === 'no_store_id');
  assert.deepEqual(
    warnings.map((w: Json) => [w.path, w.message]),
    [
      ['/variants/1/slots/primary', 'Product web_only has no app_store id: on iOS, where the project sells, this slot offers nothing to buy'],
      ['/variants/1/slots/primary', 'Product web_only has no play_store id: on Android, where the project sells, this slot offers nothing to buy'],
    ],
  );
  const published = await client.request('POST', '/api/paywalls/onboarding/publish', { headers: { 'If-Match': written.headers.get('etag')! } });
  assert.equal(published.status, 200);
  assert.deepEqual(
    (await published.json()).warnings.filter((w: Json) => w.code === 'no_store_id').map((w: Json) => w.path),
    ['/variants/1/slots/primary', '/variants/1/slots/primary'],
  );
  // Every product with every store's id: nothing to warn of.
  const complete = await client.request('PUT', '/api/paywalls/complete', { body: example() });
  assert.deepEqual(
    (await complete.json()).warnings.filter((w: Json) => w.code === 'no_store_id'),
    [],
  );
});
