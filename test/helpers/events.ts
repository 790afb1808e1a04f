/** Event senders and readers: sending batches, creating paywalls to send for, reading the export, the statistics and the database. */
import assert from 'node:assert/strict';
import { type Database, openDatabase } from '../../src/db/database.ts';
import type { Json } from './json.ts';
import { metric } from './metrics.ts';
import { bearer } from './server.ts';
import { until } from './until.ts';

export const JSON_TYPE = { 'content-type': 'application/json' };

/** The known event types, which statistics list with 0 when none was sent (written out: the contract, not a copy of the source's list). */
export const KNOWN_TYPES = [
  'screen_impression',
  'paywall_close',
  'purchase_start',
  'purchase_complete',
  'purchase_fail',
  'purchase_cancel',
  'restore_start',
  'restore_complete',
];

/** POSTs a batch (an object, or raw text sent as is) to the events endpoint. */
export function sendEvents(url: string, body: unknown, headers: Record<string, string> = JSON_TYPE): Promise<Response> {
  return fetch(`${url}/api/sdk/events`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Sends a batch with `key` and returns the 200 body. */
export async function ingest(url: string, key: string, body: unknown): Promise<{ accepted: number; duplicates: number; rejected: Json[] }> {
  const response = await sendEvents(url, body, { ...JSON_TYPE, ...bearer(key) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

/** A paywall with two variants split 50/50, written and published through the management API. */
export async function publishPaywall(url: string, secret: string, id: string): Promise<void> {
  const document = {
    name: 'Events test',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro' } },
    root: { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'text', props: { text_key: 'title' } }] },
    variants: [
      { id: 'control', weight: 50 },
      { id: 'treatment', weight: 50 },
    ],
  };
  const put = await fetch(`${url}/api/paywalls/${id}`, {
    method: 'PUT',
    headers: { ...JSON_TYPE, ...bearer(secret) },
    body: JSON.stringify(document),
  });
  assert.ok(put.status === 200 || put.status === 201, await put.text());
  const publish = await fetch(`${url}/api/paywalls/${id}/publish`, { method: 'POST', headers: bearer(secret) });
  assert.equal(publish.status, 200, await publish.text());
}

/** The variant the resolve endpoint serves this user. */
export async function resolvedVariant(url: string, sdkKey: string, paywallId: string, userId: string): Promise<string> {
  const response = await fetch(`${url}/api/sdk/config?${new URLSearchParams({ paywallId, userId })}`, { headers: bearer(sdkKey) });
  assert.equal(response.status, 200);
  return ((await response.json()) as Json).variant.id;
}

/** Every exported event of the key's project (NDJSON parsed line by line). */
export async function exported(url: string, secret: string, query: Record<string, string> = {}): Promise<Json[]> {
  const response = await fetch(`${url}/api/events?${new URLSearchParams(query)}`, { headers: bearer(secret) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
  return text === ''
    ? []
    : text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Json);
}

/** A connection of the test's own to the server's database file, closed when the test ends. */
export function openTestDb(t: { after(fn: () => void): void }, dbPath: string): Database {
  const db = openDatabase(dbPath, { mustExist: true });
  t.after(() => db.close());
  return db;
}

/** n events of a type with ids `${prefix}${i}`, timed now. */
export function numbered(prefix: string, n: number, extra: Json = {}): Json[] {
  const ts = Date.now();
  return Array.from({ length: n }, (_, i) => ({ type: 'screen_impression', paywall_id: 'pw', ts, id: `${prefix}${i}`, ...extra }));
}

/**
 * GET /api/paywalls/{id}/stats once the server has loaded its statistics
 * (`paywalld_event_stats_ready` in /metrics): a server that just started
 * answers 503 stats_warming_up until then.
 */
export async function fetchStats(url: string, secret: string, paywallId: string, query: Record<string, string> = {}): Promise<Response> {
  // /metrics counts against the key's management budget (20 requests a second by default, for a server that a
  // test starts with its defaults): polled 5 times a second, a slow load cannot leave the stats request refused with 429.
  await until(async () => (await metric(url, secret, 'paywalld_event_stats_ready')) === 1, 'the statistics to load', 120_000, 200);
  return fetch(`${url}/api/paywalls/${encodeURIComponent(paywallId)}/stats?${new URLSearchParams(query)}`, {
    headers: bearer(secret),
  });
}
