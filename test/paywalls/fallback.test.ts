import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { runCli } from '../helpers/cli.ts';
import { example } from '../helpers/example-paywall.ts';
import { metric } from '../helpers/metrics.ts';
import { api, seedProducts, single } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

async function seeded(t: import('node:test').TestContext) {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  await client.putPaywall('onboarding', {
    ...example(),
    strings: { en: { title: 'Go Pro' }, de: { title: 'Werde Pro' }, 'pt-br': { title: 'Seja Pro' } },
    metadata: { theme: 'dark' },
  });
  await client.publish('onboarding');
  await client.putPaywall('second', single({ en: { title: 'Second' } }));
  await client.publish('second');
  await client.putPaywall('draft', single({ en: { title: 'Draft' } }));
  return { server, client };
}

function fallback(url: string, key: string, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/api/sdk/fallback?${query}`, { headers: { ...bearer(key), ...headers } });
}

test("GET /api/sdk/fallback: each live paywall's default variant in every locale, products with every store id, revision and content hash", async (t) => {
  const { server, client } = await seeded(t);
  const response = await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,draft,nowhere&paywallId=second');
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  const etag = response.headers.get('etag');
  assert.match(String(etag), /^"[A-Za-z0-9_-]+"$/);
  const bundle = await response.json();
  assert.equal(bundle.format, 1);
  // Unpublished and unknown paywalls are left out; the order is the request's.
  assert.deepEqual(
    bundle.paywalls.map((p: any) => p.paywall_id),
    ['onboarding', 'second'],
  );
  const [onboarding] = bundle.paywalls;
  assert.equal(onboarding.revision, 1);
  assert.deepEqual(onboarding.variant, { id: 'control', audience: null, assignment: 'default' });
  assert.equal(onboarding.default_locale, 'en');
  assert.deepEqual(onboarding.metadata, { theme: 'dark' });
  assert.deepEqual(Object.keys(onboarding.trees), ['en', 'de', 'pt-BR']);
  assert.equal(onboarding.trees['pt-BR'].children[0].props.text, 'Seja Pro');
  assert.deepEqual(onboarding.product_slots, [
    {
      slot: 'primary',
      product_id: 'pro_annual',
      name: 'Pro Annual',
      store_ids: { app_store: 'com.acme.pro.annual', play_store: 'pro_annual', stripe: 'price_annual' },
    },
    {
      slot: 'secondary',
      product_id: 'pro_monthly',
      name: 'Pro Monthly',
      store_ids: { app_store: 'com.acme.pro.monthly', play_store: 'pro_monthly', stripe: 'price_monthly' },
    },
  ]);
  const { hash, ...content } = onboarding;
  assert.equal(hash, createHash('sha256').update(JSON.stringify(content)).digest('base64url'));

  // Each tree is what the resolve endpoint serves a request without userId or platform in that locale.
  for (const locale of ['en', 'de', 'pt-BR']) {
    const resolved = await (await client.resolve({ paywallId: 'onboarding', locale })).json();
    assert.deepEqual(onboarding.trees[locale], resolved.root);
  }

  // ETag/304 as on the config endpoint; a publish changes both.
  assert.equal((await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second', { 'if-none-match': String(etag) })).status, 304);
  await client.putPaywall('second', single({ en: { title: 'Second, again' } }));
  await client.publish('second');
  const changed = await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second', { 'if-none-match': String(etag) });
  assert.equal(changed.status, 200);
  const next = await changed.json();
  assert.equal(next.paywalls[0].hash, onboarding.hash);
  assert.notEqual(next.paywalls[1].hash, bundle.paywalls[1].hash);
  assert.equal(next.paywalls[1].revision, 2);

  // Archived: gone from the bundle at once.
  assert.equal((await client.request('DELETE', '/api/paywalls/second')).status, 200);
  assert.deepEqual((await (await fallback(server.url, server.keys.sdk, 'paywallId=second')).json()).paywalls, []);
});

test("GET /api/sdk/fallback refuses a missing key, another project's paywalls stay out, and bad queries get 400", async (t) => {
  const { server } = await seeded(t);
  await problem(await fetch(`${server.url}/api/sdk/fallback?paywallId=onboarding`), 401, 'missing_api_key');
  const other = await runCli(['projects', 'create', 'other', '--json', '--db', server.dbPath]);
  assert.equal(other.status, 0, other.stderr);
  const otherKey = JSON.parse(other.stdout).keys.sdk;
  await until(async () => (await fallback(server.url, otherKey, 'paywallId=onboarding')).status === 200, 'the new key to be known');
  assert.deepEqual((await (await fallback(server.url, otherKey, 'paywallId=onboarding')).json()).paywalls, []);

  await problem(await fallback(server.url, server.keys.sdk, ''), 400, 'invalid_query');
  await problem(await fallback(server.url, server.keys.sdk, 'paywallId='), 400, 'invalid_query');
  await problem(await fallback(server.url, server.keys.sdk, 'paywallId=..bad'), 400, 'invalid_query');
  await problem(await fallback(server.url, server.keys.sdk, `paywallId=${'x'.repeat(65)}`), 400, 'invalid_query');
  const tooMany = Array.from({ length: 101 }, (_, i) => `p${i}`).join(',');
  const body = await problem(await fallback(server.url, server.keys.sdk, `paywallId=${tooMany}`), 400, 'invalid_query');
  assert.deepEqual(body.errors, [{ path: '/paywallId', message: 'must name at most 100 paywalls' }]);
});

test('paywalld fallback --out writes the bundle the endpoint serves, from the database alone', async (t) => {
  const { server } = await seeded(t);
  const dir = tempDir(t);
  const file = path.join(dir, 'app', 'fallback.json');
  const all = await runCli(['fallback', '--out', file, '--db', server.dbPath]);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /Wrote onboarding \(revision 1\), second \(revision 1\) to .*fallback\.json/);
  const endpoint = await (await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second')).json();
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), endpoint);

  const one = await runCli(['fallback', '--out', file, '--paywall', 'second', '--project', server.projectId, '--db', server.dbPath]);
  assert.equal(one.status, 0, one.stderr);
  assert.deepEqual(
    JSON.parse(fs.readFileSync(file, 'utf8')).paywalls.map((p: any) => p.paywall_id),
    ['second'],
  );
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['fallback.json']);
});

test('paywalld fallback: wrong usage exits 2, a paywall that is not live or a missing database exits 1 and writes nothing', async (t) => {
  const { server } = await seeded(t);
  const dir = tempDir(t);
  const file = path.join(dir, 'fallback.json');
  const noOut = await runCli(['fallback', '--db', server.dbPath]);
  assert.equal(noOut.status, 2);
  assert.match(noOut.stderr, /needs --out FILE/);
  assert.equal((await runCli(['fallback', 'extra', '--out', file, '--db', server.dbPath])).status, 2);
  assert.equal((await runCli(['fallback', '--out', file, '--unknown', '--db', server.dbPath])).status, 2);

  const draft = await runCli(['fallback', '--out', file, '--paywall', 'onboarding', '--paywall', 'draft', '--db', server.dbPath]);
  assert.equal(draft.status, 1);
  assert.match(draft.stderr, /not live in project prj_\S+: draft/);
  const missingDb = await runCli(['fallback', '--out', file, '--db', path.join(dir, 'nothing.db')]);
  assert.equal(missingDb.status, 2);
  assert.match(missingDb.stderr, /does not exist/);
  const unknownProject = await runCli(['fallback', '--out', file, '--project', 'prj_nope', '--db', server.dbPath]);
  assert.equal(unknownProject.status, 1);
  assert.match(unknownProject.stderr, /there is no project prj_nope/);
  assert.equal((await runCli(['projects', 'create', 'second', '--db', server.dbPath])).status, 0);
  const ambiguous = await runCli(['fallback', '--out', file, '--db', server.dbPath]);
  assert.equal(ambiguous.status, 2);
  assert.match(ambiguous.stderr, /several projects: name one with --project ID/);
  assert.deepEqual(fs.readdirSync(dir), []);
  assert.match((await runCli(['fallback', '--help'])).stdout, /paywalld fallback --out FILE/);
});

test('the fallback command reads the database without the HTTP server: uWebSockets.js is not in its module graph', async () => {
  const result = await build({
    entryPoints: ['src/cli/fallback.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['better-sqlite3'],
  });
  const inputs = Object.keys(result.metafile.inputs);
  assert.ok(inputs.includes('src/paywalls/fallback/bundle.ts'));
  assert.deepEqual(
    inputs.filter((file) => file === 'src/http/server.ts' || file.includes('uWebSockets')),
    [],
  );
});

test('GET /api/sdk/fallback renders each paywall once per live revision: 304s and repeats render nothing, a publish or product change re-renders only what changed', async (t) => {
  const { server, client } = await seeded(t);
  const rendered = () => metric(server.url, server.keys.secret, 'paywalld_fallback_entries_rendered_total');
  assert.equal(await rendered(), 0);
  const first = await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second');
  const etag = String(first.headers.get('etag'));
  const bundle = await first.json();
  assert.equal(await rendered(), 2);

  for (let i = 0; i < 20; i++) {
    const again = await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,draft,second', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('etag'), etag);
  }
  // The same paywalls in another request, and the other order: still rendered once each.
  const reordered = await (await fallback(server.url, server.keys.sdk, 'paywallId=second&paywallId=onboarding')).json();
  assert.deepEqual(reordered.paywalls, [bundle.paywalls[1], bundle.paywalls[0]]);
  assert.equal(await rendered(), 2);

  // A publish moves the answer at once, re-rendering the one paywall it changed.
  await client.putPaywall('second', single({ en: { title: 'Second, again' } }));
  await client.publish('second');
  const published = await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second', { 'if-none-match': etag });
  assert.equal(published.status, 200);
  const afterPublish = await published.json();
  assert.deepEqual(afterPublish.paywalls[0], bundle.paywalls[0]);
  assert.equal(afterPublish.paywalls[1].trees.en.children[0].props.text, 'Second, again');
  assert.equal(await rendered(), 3);

  // A product's change reaches the paywalls that use it.
  const product = await client.request('PUT', '/api/products/pro_annual', { body: { name: 'Pro Yearly', store_ids: { app_store: 'com.acme.pro.annual' } } });
  assert.equal(product.status, 200);
  const renamed = await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second', { 'if-none-match': String(published.headers.get('etag')) });
  assert.equal(renamed.status, 200);
  const slots = (await renamed.json()).paywalls.flatMap((p: any) => p.product_slots.filter((s: any) => s.product_id === 'pro_annual'));
  assert.ok(slots.length > 0);
  for (const slot of slots) assert.equal(slot.name, 'Pro Yearly');

  // Another process publishes (the configuration generation moves): the next answer has it.
  const dir = path.join(tempDir(t), 'config');
  assert.equal((await runCli(['export', dir, '--db', server.dbPath])).status, 0);
  const file = path.join(dir, 'paywalls', 'second.json');
  const document = JSON.parse(fs.readFileSync(file, 'utf8'));
  document.strings.en.title = 'Second, from the CLI';
  fs.writeFileSync(file, JSON.stringify(document));
  const applied = await runCli(['apply', dir, '--db', server.dbPath, '--publish']);
  assert.equal(applied.status, 0, applied.stderr);
  const current = String(renamed.headers.get('etag'));
  await until(
    async () => (await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second', { 'if-none-match': current })).status === 200,
    'the CLI publish to reach the bundle',
  );
  const fromCli = await (await fallback(server.url, server.keys.sdk, 'paywallId=onboarding,second')).json();
  assert.equal(fromCli.paywalls[1].trees.en.children[0].props.text, 'Second, from the CLI');
});

test('GET /api/sdk/fallback keeps at most 512 bundles, however many distinct requests a key sends', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await seedProducts(client);
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  for (const id of ids) {
    await client.putPaywall(id, single({ en: { title: id } }));
    await client.publish(id);
  }
  // Every ordering of one to four of six live paywalls: 6 + 30 + 120 + 360 = 516 distinct bundles.
  const requests: string[] = [];
  const orderings = (prefix: string[], size: number): void => {
    if (prefix.length === size) requests.push(prefix.join(','));
    else for (const id of ids) if (!prefix.includes(id)) orderings([...prefix, id], size);
  };
  for (const size of [1, 2, 3, 4]) orderings([], size);
  const tags = new Map<string, string>();
  for (const query of requests) {
    const response = await fallback(server.url, server.keys.sdk, `paywallId=${query}`);
    assert.equal(response.status, 200);
    tags.set(query, String(response.headers.get('etag')));
    await response.arrayBuffer();
  }
  assert.equal(new Set(requests).size, 516);
  assert.equal(await metric(server.url, server.keys.secret, 'paywalld_fallback_bundles_cached'), 512);
  assert.equal(await metric(server.url, server.keys.secret, 'paywalld_fallback_entries_rendered_total'), ids.length);
  // A bundle that was let go is the same bundle when asked again.
  const [oldest] = requests;
  assert.equal((await fallback(server.url, server.keys.sdk, `paywallId=${oldest}`, { 'if-none-match': tags.get(oldest!)! })).status, 304);
});
