/**
 * How deliveries are sent, through the real server to real receivers: a
 * non-2xx is retried on the (scaled) schedule until a 2xx, a delivery
 * that never gets one fails when the window closes and is sent again by
 * hand, a redirect is a failure and is not followed, an answer is read up
 * to 64 KiB, 10 s is all an answer gets, and a slow receiver slows no
 * request. The metrics count each outcome.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { metric } from '../helpers/metrics.ts';
import { api } from '../helpers/paywalls.ts';
import { bearer, startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';
import { deliveriesOf, putWebhook, startReceiver, verified } from '../helpers/webhooks.ts';

function server(t: TestContext, backoffScale: number): Promise<TestServer> {
  return startTestServer(t, { webhooks: { allowPrivate: true, backoffScale } });
}

const post = (s: TestServer, path: string) => fetch(`${s.url}${path}`, { method: 'POST', headers: bearer(s.keys.secret) });

/** The only delivery of a webhook, once `done` holds for it; `retrying`: it takes the scaled 24 hours of retries first. */
async function settled(s: TestServer, id: string, done: (delivery: any) => boolean, retrying = false): Promise<any> {
  let last: any;
  const holds = async () => done((last = (await deliveriesOf(s, id))[0]) ?? {});
  const what = () => `the delivery of ${id} (last: ${JSON.stringify(last)})`;
  if (retrying) await until(holds, what(), 60_000, 50);
  else await until(holds, what(), 10_000, 50);
  return last;
}

test('a receiver that answers 500 three times gets the delivery on the fourth try, the same id, body and secret each time', async (t) => {
  const s = await server(t, 0.001);
  const receiver = await startReceiver(t, (_, n) => (n <= 3 ? 500 : 200));
  const { body: hook } = await putWebhook(s, 'flaky', { url: receiver.url, events: ['key.created'] });
  assert.equal((await post(s, '/api/webhooks/flaky/test')).status, 202);
  const delivery = await settled(s, 'flaky', (d) => d.status === 'succeeded');
  assert.deepEqual(
    [delivery.attempts, delivery.response_status, delivery.response_body, delivery.error, delivery.next_attempt_at],
    [4, 200, 'answered 200', null, null],
  );
  assert.equal(receiver.received.length, 4);
  assert.equal(new Set(receiver.received.map((r) => `${r.id} ${r.raw}`)).size, 1, 'one webhook-id and one body on every attempt');
  assert.ok(receiver.received.every((r) => verified(hook.secret, r)));
  assert.equal(await metric(s.url, s.keys.secret, 'paywalld_webhook_attempts_total{outcome="failed"}'), 3);
  assert.equal(await metric(s.url, s.keys.secret, 'paywalld_webhook_attempts_total{outcome="succeeded"}'), 1);
  assert.equal(await metric(s.url, s.keys.secret, 'paywalld_webhook_deliveries_total{outcome="sent"}'), 1);
  assert.equal(await metric(s.url, s.keys.secret, 'paywalld_webhook_deliveries_pending'), 0);
});

test('a delivery that gets no 2xx for the (scaled) 24 hours fails, visibly, and a retry by hand sends it again', async (t) => {
  // 24 hours × 0.00005 = 4.3 s of retries.
  const s = await server(t, 0.00005);
  let healthy = false;
  const receiver = await startReceiver(t, () => (healthy ? 204 : 503));
  await putWebhook(s, 'down', { url: receiver.url, events: ['key.created'] });
  await post(s, '/api/webhooks/down/test');
  const failed = await settled(s, 'down', (d) => d.status === 'failed', true);
  assert.ok(failed.attempts >= 8, `${failed.attempts} attempts`);
  assert.equal(failed.response_status, 503);
  assert.equal(failed.next_attempt_at, null);
  assert.equal(receiver.received.length, failed.attempts);
  assert.equal(await metric(s.url, s.keys.secret, 'paywalld_webhook_deliveries_total{outcome="failed"}'), 1);

  healthy = true;
  const retried = await post(s, `/api/webhooks/down/deliveries/${failed.id}/retry`);
  assert.equal(retried.status, 202);
  assert.deepEqual([(await retried.json()).status], ['pending']);
  const sent = await settled(s, 'down', (d) => d.status === 'succeeded');
  assert.deepEqual([sent.id, sent.attempts, sent.response_status], [failed.id, 1, 204]);
});

/** A receiver written for one test: `handle` answers each request. */
async function rawReceiver(t: TestContext, handle: http.RequestListener): Promise<string> {
  const receiver = http.createServer(handle);
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
}

test('a redirect is a failure and is not followed; an endless answer is read up to 64 KiB and keeps its status', async (t) => {
  const s = await server(t, 0.001);
  const elsewhere = await startReceiver(t);
  let redirects = 0;
  const redirecting = await rawReceiver(t, (request, response) => {
    request.resume();
    redirects++;
    response.writeHead(redirects === 1 ? 307 : 200, { location: elsewhere.url }).end();
  });
  await putWebhook(s, 'moved', { url: redirecting, events: ['key.created'] });
  await post(s, '/api/webhooks/moved/test');
  const moved = await settled(s, 'moved', (d) => d.status === 'succeeded');
  assert.deepEqual([moved.attempts, redirects, elsewhere.received.length], [2, 2, 0]);

  // 16 KiB at a time, never ending: the sender stops at 64 KiB with the 200 it got, and does not wait for the 10 s limit.
  let closedEarly = false;
  const endless = await rawReceiver(t, (request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'x'.repeat(16 * 1024);
    const more = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', more);
    };
    response.on('close', () => (closedEarly = !response.writableEnded));
    more();
  });
  await putWebhook(s, 'endless', { url: endless, events: ['key.created'] });
  await post(s, '/api/webhooks/endless/test');
  const read = await settled(s, 'endless', (d) => d.status === 'succeeded');
  assert.deepEqual([read.attempts, read.response_status, read.response_body.length, read.error], [1, 200, 1024, null]);
  assert.ok(closedEarly);
});

test('a receiver that never answers holds up no request, and its attempt fails after 10 s', async (t) => {
  const s = await server(t, 1);
  const receiver = await startReceiver(t, () => 'hang');
  await putWebhook(s, 'slow', { url: receiver.url, events: ['key.created', 'paywall.published'] });
  const client = api(s);
  const first = await client.request('POST', '/api/keys', { body: { scope: 'sdk' } });
  assert.equal(first.status, 201);
  await until(() => receiver.received.length === 1, 'the first delivery, held by the receiver');
  // While the receiver holds it, more changes go through at once, each queuing its own delivery.
  for (let i = 0; i < 3; i++) assert.equal((await client.request('POST', '/api/keys', { body: { scope: 'sdk' } })).status, 201);
  assert.equal((await deliveriesOf(s, 'slow')).length, 4);
  // The metrics see them waiting: read at the sender's next look at the outbox (at least once a second).
  await until(async () => (await metric(s.url, s.keys.secret, 'paywalld_webhook_deliveries_pending')) === 4, 'four pending');
  await until(async () => ((await metric(s.url, s.keys.secret, 'paywalld_webhook_pending_age_seconds')) ?? 0) > 0, 'their age');
  const held = receiver.received[0]!.id;
  let failed: any;
  await until(
    async () => (failed = (await deliveriesOf(s, 'slow')).find((d) => d.id === held))?.attempts === 1,
    'the held attempt to fail after 10 s',
    30_000,
    100,
  );
  assert.deepEqual([failed.status, failed.response_status, failed.error], ['pending', null, 'no complete answer within 10 s']);
  assert.ok(Date.parse(failed.next_attempt_at) > Date.parse(failed.last_attempt_at), 'retried later');
});
