/**
 * One revenue bound for every source (docs/guide/revenue.md): records past it
 * that reached the database before the bound (inserted here directly, as
 * no source can any more) count with no revenue, and every figure of the
 * results stays a finite number instead of JSON's null.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestSql } from '../helpers/database.ts';
import { ingest } from '../helpers/events.ts';
import type { Json } from '../helpers/json.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/until.ts';

const PAYWALL = 'bounded';

async function call(url: string, key: string, path: string, body?: Json, method = 'POST'): Promise<Response> {
  const headers = { 'content-type': 'application/json', ...bearer(key) };
  return fetch(`${url}${path}`, body === undefined ? { headers } : { method, headers, body: JSON.stringify(body) });
}

/** Every number of the answer, wherever it is. */
function numbers(value: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) numbers(item, found);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) numbers(item, found);
  else found.push(value);
  return found;
}

test('purchase records past the revenue bound, stored before it, add no revenue: results stay finite', async (t) => {
  const { url, keys, dbPath, projectId } = await startTestServer(t);
  const doc = {
    name: 'Bounded',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: 1, control: true },
      { id: 'other', weight: 1 },
    ],
  };
  assert.equal((await call(url, keys.secret, `/api/paywalls/${PAYWALL}`, doc, 'PUT')).status, 201);
  assert.equal((await call(url, keys.secret, `/api/paywalls/${PAYWALL}/publish`, {})).status, 200);
  const now = Date.now();
  await ingest(url, keys.sdk, {
    events: ['u1', 'u2', 'u3'].map((user) => ({
      id: `x-${user}`,
      type: 'screen_impression',
      paywall_id: PAYWALL,
      variant_id: 'control',
      user_id: user,
      ts: now,
    })),
  });
  const sane = await call(url, keys.secret, '/api/purchases', {
    purchases: ['u1', 'u2'].map((user) => ({
      id: `ok-${user}`,
      user_id: user,
      type: 'initial_purchase',
      ts: now + 1000,
      product_id: 'pro',
      revenue: 9.99,
      currency: 'USD',
    })),
  });
  assert.equal(((await sane.json()) as Json).accepted, 2);
  // What a RevenueCat price of 1e308 stored before the bound looks like, twice, and a refund as large.
  const sql = openTestSql(t, dbPath);
  const insert = `INSERT INTO purchases (project_id, source, purchase_id, user_id, type, ts, product_id, store, store_product_id, revenue, currency,
    transaction_id, original_transaction_id, paywall_id, received_at) VALUES (?, 'revenuecat', ?, ?, ?, ?, 'pro', NULL, NULL, ?, 'USD', NULL, NULL, NULL, ?)`;
  await sql.run(insert, projectId, 'huge-1', 'u1', 'renewal', now + 2000, 1e308, now);
  await sql.run(insert, projectId, 'huge-2', 'u2', 'renewal', now + 2000, 1e308, now);
  await sql.run(insert, projectId, 'huge-3', 'u1', 'refund', now + 3000, 1.7e308, now);
  // Inserted last: once it converts u3, the fold has read the records before it.
  await sql.run(insert, projectId, 'huge-4', 'u3', 'initial_purchase', now + 3000, Number.MAX_VALUE, now);

  // The records inserted by hand are read by the fold like any others.
  let results: Json = {};
  await until(async () => {
    results = (await (await call(url, keys.secret, `/api/paywalls/${PAYWALL}/results`)).json()) as Json;
    return results.variants.find((v: Json) => v.variant_id === 'control').conversions === 3;
  }, 'the records in the results');
  for (const value of numbers(results)) assert.ok(typeof value !== 'number' || Number.isFinite(value), JSON.stringify(results));
  const control = results.variants.find((v: Json) => v.variant_id === 'control');
  const usd = control.revenue.find((r: Json) => r.currency === 'USD');
  assert.equal(usd.total, 19.98);
  assert.equal(usd.gross, 19.98);
  assert.equal(usd.refunded, 0);
});

test('results count a refund only against what its purchases paid before it: a 10^9 refund, one with no purchase, one before it', async (t) => {
  const { url, keys } = await startTestServer(t);
  const doc = {
    name: 'Refunds',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'text', props: { text_key: 'title' } },
    variants: [
      { id: 'control', weight: 1, control: true },
      { id: 'other', weight: 1 },
    ],
  };
  assert.equal((await call(url, keys.secret, '/api/paywalls/refunds', doc, 'PUT')).status, 201);
  assert.equal((await call(url, keys.secret, '/api/paywalls/refunds/publish', {})).status, 200);
  const now = Date.now();
  await ingest(url, keys.sdk, {
    events: ['u1', 'u2', 'u3'].map((user) => ({
      id: `x-${user}`,
      type: 'screen_impression',
      paywall_id: 'refunds',
      variant_id: 'control',
      user_id: user,
      ts: now,
    })),
  });
  const record = (id: string, user: string, type: string, revenue: number, ts: number) => ({
    id,
    user_id: user,
    type,
    ts,
    product_id: 'pro',
    revenue,
    currency: 'USD',
  });
  const stored = await call(url, keys.secret, '/api/purchases', {
    purchases: [
      record('u1-paid', 'u1', 'initial_purchase', 10, now + 1000),
      record('u1-refund', 'u1', 'refund', 1e9, now + 2000),
      record('u2-refund', 'u2', 'refund', 5, now + 2000),
      record('u3-refund', 'u3', 'refund', 5, now + 1000),
      record('u3-paid', 'u3', 'initial_purchase', 5, now + 2000),
    ],
  });
  assert.equal(((await stored.json()) as Json).set_aside.length, 3);
  const results = (await (await call(url, keys.secret, '/api/paywalls/refunds/results')).json()) as Json;
  const usd = results.variants.find((v: Json) => v.variant_id === 'control').revenue.find((r: Json) => r.currency === 'USD');
  assert.deepEqual([usd.total, usd.gross, usd.refunded], [5, 15, 10]);
});
