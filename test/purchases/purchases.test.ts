/** POST /api/purchases: stored durably, deduplicated by (project, id), rejected by index with a reason. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_CHANGE } from '../helpers/change.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

function purchase(id: string, extra: Record<string, unknown> = {}) {
  return { id, user_id: 'u1', type: 'initial_purchase', ts: Date.now() - 1000, product_id: 'pro', revenue: 9.99, currency: 'USD', ...extra };
}

async function send(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${url}/api/purchases`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

test('valid records are stored, a repeated id is a duplicate within a request and across requests', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const first = await send(url, keys.secret, { purchases: [purchase('p1'), purchase('p1'), purchase('p2', { type: 'refund', revenue: 9.99 })] });
  assert.equal(first.status, 200);
  assert.deepEqual(await first.json(), { accepted: 2, duplicates: 1, rejected: [], set_aside: [] });
  const again = await send(url, keys.secret, {
    purchases: [purchase('p1'), purchase('p3', { product_id: null, store: 'app_store', store_product_id: 'com.x.pro' })],
  });
  assert.deepEqual(await again.json(), { accepted: 1, duplicates: 1, rejected: [], set_aside: [] });
  const stored = await server.ctx.purchases.list(projectId);
  assert.deepEqual(
    stored.map((p) => [p.id, p.type, p.revenue, p.storeProductId]),
    [
      ['p1', 'initial_purchase', 9.99, null],
      ['p2', 'refund', 9.99, null],
      ['p3', 'initial_purchase', 9.99, 'com.x.pro'],
    ],
  );
});

test('the same id in two projects is two records', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const other = await server.ctx.projects.create('other', TEST_CHANGE);
  await server.ctx.auth.reload();
  assert.equal(((await (await send(url, keys.secret, { purchases: [purchase('same')] })).json()) as any).accepted, 1);
  assert.equal(((await (await send(url, other.keys.secret, { purchases: [purchase('same')] })).json()) as any).accepted, 1);
  assert.equal((await server.ctx.purchases.list(projectId)).length, 1);
  assert.equal((await server.ctx.purchases.list(other.project.id)).length, 1);
});

test('each bad record is rejected by index with a reason, and the others are stored', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const response = await send(url, keys.secret, {
    purchases: [
      purchase('ok'),
      purchase('neg', { revenue: -1 }),
      purchase('huge', { revenue: 1e10 }),
      purchase('cur', { currency: 'usd' }),
      purchase('typ', { type: 'chargeback' }),
      purchase('noprod', { product_id: undefined }),
      purchase('half', { product_id: undefined, store: 'app_store' }),
      purchase('old', { ts: Date.UTC(1999, 0, 1) }),
      purchase('ahead', { ts: Date.now() + 48 * 3600_000 }),
      { ...purchase('extra'), secret: 'x' },
      'not an object',
      purchase('nouser', { user_id: undefined }),
    ],
  });
  const body = (await response.json()) as any;
  assert.equal(body.accepted, 1);
  assert.deepEqual(
    body.rejected.map((r: any) => [r.index, r.code]),
    [
      [1, 'invalid_purchase'],
      [2, 'invalid_purchase'],
      [3, 'invalid_purchase'],
      [4, 'invalid_purchase'],
      [5, 'invalid_purchase'],
      [6, 'invalid_purchase'],
      [7, 'ts_out_of_range'],
      [8, 'ts_out_of_range'],
      [9, 'invalid_purchase'],
      [10, 'invalid_purchase'],
      [11, 'invalid_purchase'],
    ],
  );
  assert.match(body.rejected[0].message, /^revenue /);
  assert.match(body.rejected[1].message, /^revenue must be at most 1000000000/);
  assert.match(body.rejected[4].message, /product_id, or store with store_product_id/);
  assert.match(body.rejected[10].message, /^user_id is required/);
  assert.ok(!JSON.stringify(body).includes('secret'), 'messages never echo input');
  assert.deepEqual(
    (await server.ctx.purchases.list(projectId)).map((p) => p.id),
    ['ok'],
  );
});

test('a record whose stored text holds NUL or a lone surrogate is refused by index, the others stored', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const rule = 'must be well-formed Unicode text without NUL (U+0000) or a lone surrogate';
  const response = await send(url, keys.secret, {
    purchases: [
      purchase('ok-1'),
      purchase('nul', { user_id: 'nul\u0000user' }),
      purchase('lone\ud800id'),
      purchase('ok-2', { user_id: 'smile \ud83d\ude00' }),
      purchase('store', { product_id: null, store: 'app_store', store_product_id: 'com.x\udfff' }),
      purchase('original', { original_transaction_id: '\u0000' }),
    ],
  });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    accepted: 2,
    duplicates: 0,
    rejected: [
      { index: 1, code: 'invalid_purchase', message: `user_id ${rule}` },
      { index: 2, code: 'invalid_purchase', message: `id ${rule}` },
      { index: 4, code: 'invalid_purchase', message: `store_product_id ${rule}` },
      { index: 5, code: 'invalid_purchase', message: `original_transaction_id ${rule}` },
    ],
    set_aside: [],
  });
  assert.deepEqual(
    (await server.ctx.purchases.list(projectId)).map((p) => [p.id, p.userId]),
    [
      ['ok-1', 'u1'],
      ['ok-2', 'smile \ud83d\ude00'],
    ],
  );
});

test('whole-request errors store nothing', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  await problem(await send(url, keys.secret, { purchases: [] }), 400, 'invalid_purchases');
  await problem(await send(url, keys.secret, { records: [purchase('x')] }), 400, 'invalid_purchases');
  await problem(await send(url, keys.secret, [purchase('x')]), 400, 'invalid_purchases');
  const many = Array.from({ length: 1001 }, (_, i) => purchase(`m${i}`));
  await problem(await send(url, keys.secret, { purchases: many }), 413, 'too_many_purchases');
  await problem(await send(url, keys.sdk, { purchases: [purchase('x')] }), 403, 'insufficient_scope');
  assert.equal((await server.ctx.purchases.list(projectId)).length, 0);
});

test('ts in seconds is stored in milliseconds', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const seconds = Math.floor(Date.now() / 1000) - 10;
  await send(url, keys.secret, { purchases: [purchase('s', { ts: seconds })] });
  assert.equal((await server.ctx.purchases.list(projectId))[0]!.ts, seconds * 1000);
});

test('a refund counts only against what its purchases paid before it: the rest is stored, kept aside and reported by index', async (t) => {
  const { url, keys, server, projectId } = await startTestServer(t);
  const now = Date.now() - 60_000;
  const response = await send(url, keys.secret, {
    purchases: [
      purchase('paid', { revenue: 10, ts: now }),
      purchase('huge', { type: 'refund', revenue: 1e9, ts: now + 1000 }),
      purchase('never-paid', { type: 'refund', user_id: 'u2', revenue: 5, ts: now + 1000 }),
      purchase('early', { type: 'refund', user_id: 'u3', revenue: 5, ts: now - 1000 }),
      purchase('u3-paid', { user_id: 'u3', revenue: 5, ts: now }),
    ],
  });
  const body = (await response.json()) as { accepted: number; set_aside: unknown[] };
  assert.equal(body.accepted, 5);
  assert.deepEqual(body.set_aside, [
    {
      index: 1,
      reason: 'over_paid',
      amount: 999999990,
      message: 'the refund is more than its purchases paid, net of earlier refunds: the excess is stored, not counted',
    },
    {
      index: 2,
      reason: 'no_purchase',
      amount: 5,
      message: 'the refund names no purchase of its user (or original transaction) in its currency: stored, not counted',
    },
    {
      index: 3,
      reason: 'no_purchase',
      amount: 5,
      message: 'the refund names no purchase of its user (or original transaction) in its currency: stored, not counted',
    },
  ]);
  // `early` came before u3's purchase was stored: no purchase at all then. A refund dated before it, sent now, is before_purchase.
  const stored = await server.ctx.purchases.list(projectId);
  assert.deepEqual(
    stored.map((p) => [p.id, p.revenue, p.setAside, p.setAsideReason]),
    [
      ['paid', 10, 0, null],
      ['huge', 10, 999999990, 'over_paid'],
      ['never-paid', 0, 5, 'no_purchase'],
      ['early', 0, 5, 'no_purchase'],
      ['u3-paid', 5, 0, null],
    ],
  );
  const late = await send(url, keys.secret, { purchases: [purchase('late-early', { type: 'refund', user_id: 'u3', revenue: 1, ts: now - 2000 })] });
  assert.deepEqual(
    ((await late.json()) as { set_aside: { reason: string }[] }).set_aside.map((s) => s.reason),
    ['before_purchase'],
  );
  assert.equal(await metric(url, keys.secret, 'paywalld_refunds_set_aside_total{source="api",reason="no_purchase"}'), 2);
  assert.equal(await metric(url, keys.secret, 'paywalld_refunds_set_aside_total{source="api",reason="before_purchase"}'), 1);
});
