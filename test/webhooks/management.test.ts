/**
 * The webhook endpoints' API through the real server: create, replace,
 * read, delete, and each refusal; the secret shown once; the URLs refused
 * where a webhook may not go (server-side request forgery), when the
 * endpoint is written and again when a delivery is sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestSql } from '../helpers/database.ts';
import { api } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { deliveriesOf, putWebhook, startReceiver } from '../helpers/webhooks.ts';

test('an endpoint is created with its secret, replaced keeping it, listed and read without it, and deleted with its deliveries', async (t) => {
  const server = await startTestServer(t, { webhooks: { allowPrivate: true, backoffScale: 1 } });
  const client = api(server);
  const created = await putWebhook(server, 'crm', { url: 'http://127.0.0.1:9/a', events: ['key.created', 'key.created', 'purchase.recorded'] });
  assert.equal(created.status, 201);
  const { secret, ...shown } = created.body;
  assert.match(secret, /^whsec_/);
  assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  assert.deepEqual(
    { ...shown, created_at: 'at', updated_at: 'at' },
    { id: 'crm', url: 'http://127.0.0.1:9/a', events: ['key.created', 'purchase.recorded'], enabled: true, created_at: 'at', updated_at: 'at' },
  );
  const replaced = await putWebhook(server, 'crm', { url: 'http://127.0.0.1:9/b', events: ['refund.recorded'], enabled: false });
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.secret, undefined, 'the secret is shown once');
  assert.deepEqual(
    [replaced.body.url, replaced.body.events, replaced.body.enabled, replaced.body.created_at],
    ['http://127.0.0.1:9/b', ['refund.recorded'], false, created.body.created_at],
  );
  const listed = await (await client.request('GET', '/api/webhooks')).json();
  assert.deepEqual(listed, { webhooks: [replaced.body] });
  assert.deepEqual(await (await client.request('GET', '/api/webhooks/crm')).json(), replaced.body);
  assert.ok(!JSON.stringify(listed).includes(secret));

  assert.equal((await client.request('POST', '/api/webhooks/crm/test')).status, 202);
  assert.equal((await deliveriesOf(server, 'crm')).length, 1);
  const removed = await client.request('DELETE', '/api/webhooks/crm');
  assert.deepEqual([removed.status, (await removed.json()).id], [200, 'crm']);
  await problem(await client.request('DELETE', '/api/webhooks/crm'), 404, 'webhook_not_found');
  await problem(await client.request('GET', '/api/webhooks/crm'), 404, 'webhook_not_found');
  await problem(await client.request('GET', '/api/webhooks/crm/deliveries'), 404, 'webhook_not_found');
  const sql = openTestSql(t, server.dbPath);
  assert.equal(Number(await sql.value('SELECT count(*) FROM webhook_deliveries')), 0);
});

test('bad input is refused with its own code, and nothing is stored', async (t) => {
  const server = await startTestServer(t, { webhooks: { allowPrivate: true, backoffScale: 1 } });
  const client = api(server);
  const put = (id: string, body: unknown) => client.request('PUT', `/api/webhooks/${id}`, { body });
  const ok = { url: 'http://127.0.0.1:9/', events: ['key.created'] };
  await problem(await put('-bad', ok), 422, 'invalid_id');
  for (const url of ['not a url', 'ftp://203.0.113.7/', 'http://203.0.113.7/', 'https://user:pw@203.0.113.7/', 'https://203.0.113.7/#frag']) {
    await problem(await put('bad-url', { ...ok, url }), 422, 'webhook_url_invalid');
  }
  await problem(await put('no-events', { ...ok, events: [] }), 422, 'validation_failed');
  await problem(await put('unknown-event', { ...ok, events: ['paywall.deleted'] }), 422, 'validation_failed');
  await problem(await put('test-event', { ...ok, events: ['test'] }), 422, 'validation_failed');
  await problem(await put('extra', { ...ok, secret: 'whsec_mine' }), 422, 'validation_failed');
  await problem(await put('long', { ...ok, url: `http://127.0.0.1/${'a'.repeat(2100)}` }), 422, 'validation_failed');
  await problem(await put('unresolved', { ...ok, url: 'https://nothing.invalid/' }), 422, 'webhook_url_refused');
  assert.deepEqual(await (await client.request('GET', '/api/webhooks')).json(), { webhooks: [] });

  await putWebhook(server, 'real', ok);
  await problem(await client.request('POST', '/api/webhooks/nope/test'), 404, 'webhook_not_found');
  await problem(await client.request('POST', '/api/webhooks/real/deliveries/msg_nope/retry'), 404, 'delivery_not_found');
  await problem(await client.request('POST', '/api/webhooks/nope/deliveries/msg_nope/retry'), 404, 'webhook_not_found');
  await problem(await client.request('GET', '/api/webhooks/real/deliveries?cursor=abc'), 400, 'invalid_query');
  await problem(await client.request('GET', '/api/webhooks/real/deliveries?limit=1000'), 400, 'invalid_query');
});

test('deliveries page newest first, a cursor at a time', async (t) => {
  const server = await startTestServer(t, { webhooks: { allowPrivate: true, backoffScale: 1 } });
  const receiver = await startReceiver(t);
  await putWebhook(server, 'pages', { url: receiver.url, events: ['key.created'] });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.unshift((await (await fetch(`${server.url}/api/webhooks/pages/test`, { method: 'POST', headers: bearer(server.keys.secret) })).json()).id);
  const page = async (query: string) => (await fetch(`${server.url}/api/webhooks/pages/deliveries${query}`, { headers: bearer(server.keys.secret) })).json();
  const first = await page('?limit=2');
  const second = await page(`?limit=2&cursor=${first.next_cursor}`);
  const third = await page(`?limit=2&cursor=${second.next_cursor}`);
  assert.deepEqual(
    [...first.deliveries, ...second.deliveries, ...third.deliveries].map((d: { id: string }) => d.id),
    ids,
  );
  assert.equal(third.next_cursor, null);
  assert.deepEqual(first.deliveries[0].event.data, { project_id: server.projectId, webhook_id: 'pages', message: 'a test delivery from paywalld' });
});

test('without --webhooks-allow-private an endpoint that is or resolves to a loopback, private, link-local or metadata address is refused', async (t) => {
  const server = await startTestServer(t);
  const refused: [string, RegExp][] = [
    ['http://127.0.0.1:8080/hook', /127\.0\.0\.1 is a loopback address/],
    ['https://10.1.2.3/hook', /10\.1\.2\.3 is a private address/],
    ['https://192.168.0.10/hook', /is a private address/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a cloud metadata address/],
    ['https://[::1]/hook', /::1 is a loopback address/],
    ['https://[fc00::1]/hook', /fc00::1 is a private \(unique local\) address/],
    ['https://[fd00:ec2::254]/hook', /is a cloud metadata address/],
    ['https://[::ffff:10.0.0.1]/hook', /is a private address/],
    ['http://localhost:8080/hook', /localhost is a loopback address \((127\.0\.0\.1|::1)\)/],
  ];
  for (const [url, detail] of refused) {
    const body = await problem(
      await api(server).request('PUT', '/api/webhooks/internal', { body: { url, events: ['key.created'] } }),
      422,
      'webhook_url_refused',
    );
    assert.match(body.detail, detail, url);
    assert.match(body.detail, /--webhooks-allow-private/);
  }
  // A public address (a documentation one, which goes nowhere) is taken.
  assert.equal((await putWebhook(server, 'public', { url: 'https://203.0.113.7/hook', events: ['key.created'], enabled: false })).status, 201);
});

test('the address is checked again when a delivery is sent: one that has come to point inside is refused, and nothing reaches it', async (t) => {
  const server = await startTestServer(t);
  const receiver = await startReceiver(t);
  await putWebhook(server, 'moving', { url: 'https://203.0.113.7/hook', events: ['key.created'] });
  // What a DNS answer that changed since (rebinding) amounts to: the stored endpoint now leads to this machine.
  const sql = openTestSql(t, server.dbPath);
  await sql.run('UPDATE webhooks SET url = ? WHERE id = ?', receiver.url, 'moving');
  assert.equal((await api(server).request('POST', '/api/keys', { body: { scope: 'sdk' } })).status, 201);
  let delivery: any;
  await until(async () => ((delivery = (await deliveriesOf(server, 'moving'))[0])?.attempts ?? 0) >= 1, 'the first attempt');
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.response_status, null);
  assert.match(delivery.error, /^127\.0\.0\.1 is a loopback address: not allowed without --webhooks-allow-private$/);
  assert.equal(receiver.received.length, 0);
});
