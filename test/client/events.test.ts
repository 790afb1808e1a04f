import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import type * as Client from '../../client/index.ts';
import { fileStorage, loadClient, ONBOARDING_EVENTS, seededProcess, seededServer } from '../helpers/client.ts';
import { exported } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { metric } from '../helpers/metrics.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

const EVENTS_429 = 'paywalld_http_requests_total{route="/api/sdk/events",method="POST",status="429"}';

function countById(events: Json[]): Map<string | null, number> {
  const counts = new Map<string | null, number>();
  for (const event of events) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
  return counts;
}

/** A real HTTP hop on a free port of 127.0.0.1, closed when the test ends: `handle` gets each request with its whole body. Its base URL. */
async function hop(
  t: TestContext,
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer<ArrayBuffer>) => Promise<void> | void,
): Promise<string> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await handle(req, res, Buffer.concat(chunks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** What paywalld at `target` answers to a request the hop got: its status and body, to relay or to lose. */
async function forwarded(target: string, req: http.IncomingMessage, body: Buffer<ArrayBuffer>): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${target}${req.url}`, {
    method: req.method,
    headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
    body: req.method === 'POST' ? body : undefined,
  });
  return { status: answer.status, text: await answer.text() };
}

/** Answers the app with what paywalld answered. */
function relay(res: http.ServerResponse, { status, text }: { status: number; text: string }): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

test('events tracked while the server is down are delivered exactly once when it is back, with the variant the app was shown', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededProcess(t);
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(path.join(tempDir(t), 'state.json')), flushIntervalMs: 20 });
  const shown = await client.getPaywall('onboarding', { userId: 'user-42', country: 'US', platform: 'ios' });
  assert.equal(shown.paywall.variant.id, 'annual_first');
  await server.stop();

  const tracked = [
    client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'user-42' }),
    client.track({ type: 'purchase_start', paywall_id: 'onboarding', user_id: 'user-42', product_id: 'pro_monthly' }),
    client.track({ type: 'purchase_complete', paywall_id: 'onboarding', user_id: 'user-42', product_id: 'pro_monthly', properties: { price: 9.99 } }),
  ];
  for (const event of tracked) {
    assert.match(event.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(event.variant_id, 'annual_first');
    // The segment of the experiment goes with the variant the audience chose.
    assert.equal(event.audience, shown.paywall.variant.audience);
    assert.ok(Number.isInteger(event.ts) && event.ts > 1e12);
  }
  // The background sender tries, fails and backs off; flush tries once more and reports what is left.
  await until(() => client.queueStatus().failures > 0, 'a failed attempt');
  assert.deepEqual(await client.flush(), { pending: 3 });
  assert.match(String(client.queueStatus().lastError?.message), /network error/);
  assert.ok(client.queueStatus().notBefore > Date.now() - 1);

  await server.restart();
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.deepEqual(await client.flush(), { pending: 0 });
  const stored = await exported(server.url, server.keys.secret, ONBOARDING_EVENTS);
  const counts = countById(stored);
  assert.equal(stored.length, 3);
  for (const event of tracked) assert.equal(counts.get(event.id), 1);
  for (const event of stored) {
    assert.equal(event.variant_id, 'annual_first');
    assert.equal(event.audience, shown.paywall.variant.audience);
    assert.equal(event.client_ts, tracked.find((candidate) => candidate.id === event.id)!.ts);
  }
  assert.deepEqual(await client.close(), { pending: 0 });
  assert.throws(() => client.track({ type: 'paywall_close', paywall_id: 'onboarding' }), /closed/);
});

test('an acknowledgement lost on the way back: the batch is sent again with the same ids, and stored once', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  let posts = 0;
  // A real HTTP hop that delivers the first batch to paywalld and then drops the connection instead of the answer.
  const lossy = await hop(t, async (req, res, body) => {
    const answer = await forwarded(server.url, req, body);
    if (req.method === 'POST' && ++posts === 1) req.socket.destroy();
    else relay(res, answer);
  });
  const client = createClient({ baseUrl: lossy, apiKey: server.keys.sdk });
  const first = client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'u-1' });
  const second = client.track({ type: 'paywall_close', paywall_id: 'onboarding', user_id: 'u-1' });

  assert.deepEqual(await client.flush(), { pending: 2 });
  assert.equal((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).length, 2);
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.equal(posts, 2);
  const stored = countById(await exported(server.url, server.keys.secret, ONBOARDING_EVENTS));
  assert.deepEqual([stored.get(first.id), stored.get(second.id), stored.size], [1, 1, 2]);
  assert.equal(await metric(server.url, server.keys.secret, 'paywalld_events_duplicates_total'), 2);
});

test('flush called while a background attempt is under way joins it, and tries once more of its own when that one fails', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  let posts = 0;
  let failHeld: (() => void) | undefined;
  // The first batch is held (the server "down" while it is under way) and its connection dropped once flush has joined it.
  const flaky = await hop(t, async (req, res, body) => {
    if (req.method === 'POST' && ++posts === 1) {
      failHeld = () => req.socket.destroy();
      return;
    }
    relay(res, await forwarded(server.url, req, body));
  });
  const client = createClient({ baseUrl: flaky, apiKey: server.keys.sdk, flushIntervalMs: 20 });
  const event = client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'u-7' });
  await until(() => failHeld !== undefined, 'the background attempt under way');
  const flushed = client.flush();
  failHeld!();
  assert.deepEqual(await flushed, { pending: 0 });
  assert.equal(posts, 2);
  assert.deepEqual(
    (await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((stored) => stored.id),
    [event.id],
  );
});

test('a 429 with Retry-After is waited out before the batch is sent again', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t, { rateLimitSdk: 1 });
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, batchSize: 1 });
  // The SDK limit is 1 request/s per address with bursts of 2: these two take the burst.
  for (let i = 0; i < 2; i++) assert.equal((await client.getPaywall('onboarding')).source, 'network');
  const rateLimited = await client.getPaywall('onboarding');
  assert.equal(rateLimited.source, 'cache');

  const event = client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'u-9' });
  await until(() => client.queueStatus().failures === 1, 'the 429');
  assert.match(String(client.queueStatus().lastError?.message), /answered 429/);
  await until(() => client.queueStatus().pending === 0, 'delivery after Retry-After');
  // Sent too early, the retry would have met the limit again: one 429 means it waited.
  assert.equal(await metric(server.url, server.keys.secret, EVENTS_429), 1);
  const stored = await exported(server.url, server.keys.secret, ONBOARDING_EVENTS);
  assert.deepEqual(
    stored.map((row) => row.id),
    [event.id],
  );
});

test('a client restarted with the queue its predecessor persisted delivers those events', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const file = path.join(tempDir(t), 'state.json');
  const offline = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: server.keys.sdk, storage: fileStorage(file) });
  const queued = [1, 2, 3].map((n) => offline.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: `user-${n}` }));
  assert.deepEqual(await offline.close({ timeoutMs: 10_000 }), { pending: 3 });

  const next = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  // A synchronous storage is read at once: the status counts the persisted events from the start.
  assert.equal(next.queueStatus().pending, 3);
  const later = next.track({ type: 'paywall_close', paywall_id: 'onboarding', user_id: 'user-1' });
  assert.equal(next.queueStatus().pending, 4);
  assert.deepEqual(await next.flush(), { pending: 0 });
  const stored = await exported(server.url, server.keys.secret, ONBOARDING_EVENTS);
  assert.deepEqual(stored.map((row) => [row.id, row.client_ts]).sort(), [...queued, later].map((event) => [event.id, event.ts]).sort());

  // Nothing is left for a third start.
  const third = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  assert.deepEqual(await third.flush(), { pending: 0 });
  assert.equal((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).length, 4);
});

test('events the server rejects are dropped with their reasons, the valid ones of the batch stored, nothing retried', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const seen: unknown[] = [];
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, onRejected: (rejected) => seen.push(...rejected) });
  const good = client.track({ type: 'screen_impression', paywall_id: 'onboarding' });
  // Past the type's own check, as an app that casts would: the server still refuses it.
  const badType = client.track({ type: 'Not A Type' as Client.CustomEventType, paywall_id: 'onboarding' });
  const badTs = client.track({ type: 'screen_impression', paywall_id: 'onboarding', ts: -1 });
  assert.deepEqual(await client.flush(), { pending: 0 });

  const rejected = client.rejectedEvents();
  assert.deepEqual(
    rejected.map((entry) => [entry.event.id, entry.code]),
    [
      [badType.id, 'invalid_type'],
      [badTs.id, 'ts_unit'],
    ],
  );
  for (const entry of rejected) assert.ok(entry.message.length > 0);
  assert.deepEqual(seen, rejected);
  assert.deepEqual(
    (await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((row) => row.id),
    [good.id],
  );
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.equal(await metric(server.url, server.keys.secret, 'paywalld_events_stored_total'), 1);
});

test('batches leave when they are full, and a partial batch when its oldest event has waited the interval', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const bySize = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, batchSize: 3, flushIntervalMs: 3_600_000 });
  for (let i = 0; i < 7; i++) bySize.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: `size-${i}` });
  // The server commits a batch before its answer reaches the client, so wait on the client's side of the acknowledgement.
  await until(() => bySize.queueStatus().pending === 1, 'two full batches acknowledged');
  assert.equal((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).length, 6);
  assert.deepEqual(await bySize.close(), { pending: 0 });

  const byTime = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, batchSize: 100, flushIntervalMs: 50 });
  byTime.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'time-0' });
  await until(() => byTime.queueStatus().pending === 0, 'the interval to pass');
  assert.equal((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).length, 8);
});

test("whole-batch answers: a 413 halves the batch, a 400 drops it with the problem's code, a 401 keeps it for later", async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  // A real HTTP hop that answers POSTs from a plan, passing the request on to paywalld where the plan says so.
  const plan: (number | 'forward')[] = [];
  const sizes: number[] = [];
  const planned = await hop(t, async (req, res, body) => {
    sizes.push(JSON.parse(body.toString()).events.length);
    const step = plan.shift() ?? 'forward';
    if (step !== 'forward') {
      res.writeHead(step, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ status: step, code: step === 400 ? 'invalid_batch' : 'refused', detail: `refused with ${step}` }));
      return;
    }
    relay(res, await forwarded(server.url, req, body));
  });
  const client = createClient({
    baseUrl: planned,
    apiKey: server.keys.sdk,
    batchSize: 4,
    flushIntervalMs: 3_600_000,
  });

  plan.push(413);
  const four = [0, 1, 2, 3].map((i) => client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: `u-${i}` }));
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.deepEqual(sizes, [4, 2, 2]);
  assert.deepEqual((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((row) => row.id).sort(), four.map((event) => event.id).sort());

  plan.push(400);
  const refused = client.track({ type: 'screen_impression', paywall_id: 'onboarding' });
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.deepEqual(
    client.rejectedEvents().map((entry) => [entry.event.id, entry.code, entry.message]),
    [[refused.id, 'invalid_batch', 'refused with 400']],
  );

  plan.push(401);
  const kept = client.track({ type: 'paywall_close', paywall_id: 'onboarding' });
  assert.deepEqual(await client.flush(), { pending: 1 });
  assert.match(String(client.queueStatus().lastError?.message), /answered 401/);
  assert.deepEqual(await client.flush(), { pending: 0 });
  const stored = (await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((row) => row.id);
  assert.ok(stored.includes(kept.id) && !stored.includes(refused.id));
  assert.equal(stored.length, 5);
});

test('a full queue drops its oldest events, and says how many', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const file = path.join(tempDir(t), 'state.json');
  const offline = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: server.keys.sdk, storage: fileStorage(file), maxQueuedEvents: 2 });
  const events = [0, 1, 2].map((i) => offline.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: `u-${i}` }));
  assert.deepEqual(await offline.close({ timeoutMs: 10_000 }), { pending: 2 });
  assert.equal(offline.queueStatus().dropped, 1);

  const online = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file) });
  assert.deepEqual(await online.flush(), { pending: 0 });
  assert.deepEqual((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((row) => row.id).sort(), [events[1]!.id, events[2]!.id].sort());
});

test("a proxy's 404, 405 or 410 page in front of the server (a deploy) keeps the batch: it is retried and stored once the server is back", async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  // A real proxy that answers with its own error page until the plan runs out, then forwards.
  const plan = [404, 405, 410];
  const proxy = await hop(t, async (req, res, body) => {
    const step = plan.shift();
    if (step !== undefined) {
      res.writeHead(step, { 'content-type': 'text/html' });
      res.end(`<html><body><h1>${step}</h1>nginx</body></html>`);
      return;
    }
    relay(res, await forwarded(server.url, req, body));
  });
  const client = createClient({ baseUrl: proxy, apiKey: server.keys.sdk, flushIntervalMs: 3_600_000 });
  const events = [0, 1].map((i) => client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: `u-${i}` }));
  for (const status of [404, 405, 410]) {
    assert.deepEqual(await client.flush(), { pending: 2 }, `after a ${status}`);
    assert.match(String(client.queueStatus().lastError?.message), new RegExp(`answered ${status}`));
  }
  assert.deepEqual(await client.flush(), { pending: 0 });
  assert.deepEqual(client.rejectedEvents(), []);
  assert.deepEqual((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).map((row) => row.id).sort(), events.map((event) => event.id).sort());
});

test('an event JSON cannot hold is refused by track at once with a TypeError; the queue keeps flowing, and later changes to a tracked object change nothing sent', async (t) => {
  const { createClient } = await loadClient();
  const server = await seededServer(t);
  const file = path.join(tempDir(t), 'state.json');
  const reported: unknown[] = [];
  const client = createClient({ baseUrl: server.url, apiKey: server.keys.sdk, storage: fileStorage(file), onError: (error) => reported.push(error) });
  const before = client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'u-1' });
  const circular: Record<string, unknown> = { plan: 'annual' };
  circular.self = circular;
  assert.throws(() => client.track({ type: 'purchase_start', paywall_id: 'onboarding', properties: circular }), {
    name: 'TypeError',
    message: /^track: the event cannot be sent as JSON \(.*circular/i,
  });
  assert.throws(() => client.track({ type: 'purchase_start', paywall_id: 'onboarding', properties: { big: 1n } as never }), TypeError);
  // Made circular after track: the queue holds its own copy.
  const properties: Record<string, unknown> = { step: 1 };
  const after = client.track({ type: 'paywall_close', paywall_id: 'onboarding', user_id: 'u-2', properties });
  properties.self = properties;
  assert.equal(client.queueStatus().pending, 2);
  assert.deepEqual(await client.flush(), { pending: 0 });
  const stored = await exported(server.url, server.keys.secret, ONBOARDING_EVENTS);
  assert.deepEqual(stored.map((row) => row.id).sort(), [before.id, after.id].sort());
  assert.deepEqual(reported, []);
  // Later events are persisted and sent as usual.
  const later = client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'u-3' });
  assert.deepEqual(await client.close(), { pending: 0 });
  assert.ok((await exported(server.url, server.keys.secret, ONBOARDING_EVENTS)).some((row) => row.id === later.id));
});
