/** GET /api/events: the raw events as NDJSON, streamed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import { exported, ingest } from '../helpers/events.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

test('every field of a stored event is exported, oldest first, one JSON object per line', async (t) => {
  const { url, keys } = await startTestServer(t);
  const now = Date.now();
  const sentAt = now - 1000;
  await ingest(url, keys.sdk, {
    sent_at: sentAt,
    events: [
      {
        type: 'purchase_complete',
        paywall_id: 'pw',
        ts: now - 500,
        id: 'b',
        user_id: 'u',
        variant_id: 'v',
        product_id: 'pro',
        audience: 'vip',
        revenue: 9.99,
        currency: 'EUR',
        properties: { price: 9.99, tags: ['a'], quote: '"\n' },
        placement: 'onboarding',
      },
      { type: 'screen_impression', paywall_id: 'pw', ts: now - 900, id: 'a' },
    ],
  });
  const response = await fetch(`${url}/api/events`, { headers: bearer(keys.secret) });
  assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
  const text = await response.text();
  assert.ok(text.endsWith('\n'));
  const [a, b] = text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(a.id, 'a');
  const skew = b.received_at - sentAt;
  assert.deepEqual(b, {
    id: 'b',
    type: 'purchase_complete',
    paywall_id: 'pw',
    ts: now - 500 + skew,
    client_ts: now - 500,
    sent_at: sentAt,
    received_at: b.received_at,
    user_id: 'u',
    variant_id: 'v',
    product_id: 'pro',
    audience: 'vip',
    revenue: 9.99,
    currency: 'EUR',
    properties: { price: 9.99, tags: ['a'], quote: '"\n' },
    placement: 'onboarding',
  });
  assert.ok(Math.abs(b.received_at - now) < 60_000);
});

test('paywallId, from and to narrow the export; dates cover whole UTC days', async (t) => {
  const { url, keys } = await startTestServer(t);
  const day = (text: string, hour: number) => Date.parse(`${text}T${String(hour).padStart(2, '0')}:00:00Z`);
  await ingest(url, keys.sdk, {
    events: [
      { type: 'screen_impression', paywall_id: 'a', ts: day('2025-03-01', 0), id: '1' },
      { type: 'screen_impression', paywall_id: 'a', ts: day('2025-03-02', 23), id: '2' },
      { type: 'screen_impression', paywall_id: 'b', ts: day('2025-03-02', 12), id: '3' },
      { type: 'screen_impression', paywall_id: 'a', ts: day('2025-03-03', 0), id: '4' },
    ],
  });
  const ids = async (query: Record<string, string>) => (await exported(url, keys.secret, query)).map((e) => e.id);
  assert.deepEqual(await ids({}), ['1', '3', '2', '4']);
  assert.deepEqual(await ids({ paywallId: 'a' }), ['1', '2', '4']);
  assert.deepEqual(await ids({ from: '2025-03-02', to: '2025-03-02' }), ['3', '2']);
  assert.deepEqual(await ids({ paywallId: 'a', from: String(day('2025-03-02', 23)) }), ['2', '4']);
  assert.deepEqual(await ids({ to: '2025-03-01T00:00:00Z' }), ['1']);
});

test("the export needs a secret key and holds only its project's events", async (t) => {
  const { url, keys, server } = await startTestServer(t);
  await problem(await fetch(`${url}/api/events`, { headers: bearer(keys.sdk) }), 403, 'insufficient_scope');
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  await ingest(url, keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts: Date.now(), id: 'mine' }] });
  await ingest(url, other.keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', ts: Date.now(), id: 'theirs' }] });
  // Each project sees its own event and only that: an export that answered nothing would fail here.
  assert.deepEqual(
    (await exported(url, keys.secret)).map((e) => e.id),
    ['mine'],
  );
  assert.deepEqual(
    (await exported(url, other.keys.secret)).map((e) => e.id),
    ['theirs'],
  );
});

test('an invalid query is 400 invalid_query, from after to 400 invalid_range', async (t) => {
  const { url, keys } = await startTestServer(t);
  const get = (query: string) => fetch(`${url}/api/events?${query}`, { headers: bearer(keys.secret) });
  await problem(await get('paywallId=not%20a%20paywall'), 400, 'invalid_query');
  await problem(await get('from=yesterday'), 400, 'invalid_query');
  await problem(await get('from=2025-03-02&to=2025-03-01'), 400, 'invalid_range');
});
