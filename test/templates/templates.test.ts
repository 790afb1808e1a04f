/**
 * The template gallery through the real server and the real CLI: served to
 * any key of a project (never without one), each template a document that
 * validates without a warning, publishes and resolves in English and
 * German; `paywalld templates` lists them and `templates show` prints a
 * document as PUT takes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asPerson, firstOwner } from '../helpers/accounts.ts';
import { runCli } from '../helpers/cli.ts';
import { api } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { PRODUCTS } from './fixture.ts';

const IDS = ['single-product', 'annual-vs-monthly', 'free-trial-toggle', 'feature-carousel', 'countdown-sale', 'win-back', 'lifetime-unlock', 'video-hero'];

test('a signed-in person reads the gallery with the session cookie (the dashboard does), and an ended session is refused', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const listed = await fetch(`${server.url}/api/templates`, { headers: asPerson(owner) });
  assert.equal(listed.status, 200);
  assert.equal(((await listed.json()) as { templates: unknown[] }).templates.length, IDS.length);
  assert.equal((await fetch(`${server.url}/api/templates/win-back`, { headers: asPerson(owner) })).status, 200);
  await problem(await fetch(`${server.url}/api/templates`, { headers: asPerson({ token: 'not-a-session' }) }), 401, 'invalid_session');
});

test('GET /api/templates and /api/templates/{id} answer any key of the project, and no request without one', async (t) => {
  const server = await startTestServer(t);
  for (const key of [server.keys.sdk, server.keys.secret]) {
    const listed = await fetch(`${server.url}/api/templates`, { headers: bearer(key) });
    assert.equal(listed.status, 200);
    const { templates } = (await listed.json()) as { templates: Record<string, any>[] };
    assert.deepEqual(
      templates.map((template) => template.id),
      IDS,
    );
    for (const template of templates) assert.deepEqual(Object.keys(template).sort(), ['description', 'document', 'id', 'name']);
    const one = await fetch(`${server.url}/api/templates/win-back`, { headers: bearer(key) });
    assert.equal(one.status, 200);
    assert.deepEqual(
      await one.json(),
      templates.find((template) => template.id === 'win-back'),
    );
    // An unchanged template answers 304 to its ETag.
    const again = await fetch(`${server.url}/api/templates/win-back`, { headers: { ...bearer(key), 'if-none-match': one.headers.get('etag')! } });
    assert.equal(again.status, 304);
  }
  await problem(await fetch(`${server.url}/api/templates`), 401, 'missing_api_key');
  const missing = await problem(await fetch(`${server.url}/api/templates/nope`, { headers: bearer(server.keys.sdk) }), 404, 'template_not_found');
  assert.match(missing.detail, /single-product/);
});

test('every template validates without a warning, publishes and resolves in English and German', async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  for (const [id, name] of Object.entries(PRODUCTS)) await client.putProduct(id, { name, store_ids: { app_store: `com.acme.${id}` } });
  const { templates } = (await (await client.request('GET', '/api/templates')).json()) as { templates: { id: string; document: unknown }[] };
  for (const template of templates) {
    const checked = await client.request('POST', `/api/paywalls/${template.id}/validate`, { body: template.document });
    assert.equal(checked.status, 200, template.id);
    assert.deepEqual((await checked.json()).warnings, [], template.id);
    const written = await client.putPaywall(template.id, template.document as Record<string, unknown>);
    assert.deepEqual(written.warnings, [], template.id);
    const published = await client.publish(template.id);
    assert.deepEqual(published.warnings, [], template.id);
    const english = await (await client.resolve({ paywallId: template.id, locale: 'en', platform: 'ios' })).json();
    const german = await (await client.resolve({ paywallId: template.id, locale: 'de', platform: 'ios' })).json();
    assert.deepEqual([english.locale, german.locale], ['en', 'de'], template.id);
    assert.notEqual(JSON.stringify(english.root), JSON.stringify(german.root), template.id);
    assert.ok(english.theme?.colors?.surface, `${template.id} carries its theme`);
  }
});

test('paywalld templates lists the gallery; templates show prints a document as PUT takes it', async () => {
  const listed = await runCli(['templates']);
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(
    listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]),
    IDS,
  );
  const json = await runCli(['templates', '--json']);
  assert.deepEqual(
    JSON.parse(json.stdout).templates.map((template: { id: string; name: string }) => template.id),
    IDS,
  );
  const shown = await runCli(['templates', 'show', 'annual-vs-monthly']);
  assert.equal(shown.status, 0, shown.stderr);
  const document = JSON.parse(shown.stdout);
  assert.equal(document.name, 'Annual vs monthly');
  assert.deepEqual(document.slots, { annual: 'pro_annual', monthly: 'pro_monthly' });
  const unknown = await runCli(['templates', 'show', 'nope']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /no template with this id; the gallery has: single-product/);
  assert.equal((await runCli(['templates', 'show'])).status, 2);
  assert.equal((await runCli(['templates', 'list'])).status, 2);
});
