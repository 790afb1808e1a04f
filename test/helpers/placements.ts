/** Placements through the HTTP API: writing them, asking GET /api/sdk/placement, and the purchase records and events they read. */
import assert from 'node:assert/strict';
import { ingest } from './events.ts';
import type { Json } from './json.ts';
import { api, seedProducts } from './paywalls.ts';
import { bearer, type TestServer } from './server.ts';

/** A one-variant paywall whose title names it: what a placement answer shows is readable from its tree. */
export function titled(title: string, extra: Json = {}): Json {
  return {
    name: title,
    default_locale: 'en',
    strings: { en: { title } },
    slots: { primary: 'pro_annual' },
    root: { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'text', props: { text_key: 'title' } }] },
    variants: [{ id: 'only', weight: 1 }],
    ...extra,
  };
}

/** Publishes one titled paywall per id (the products seeded once). */
export async function livePaywalls(server: TestServer, ids: string[]): Promise<void> {
  const client = api(server);
  await seedProducts(client);
  for (const id of ids) {
    await client.putPaywall(id, titled(id));
    await client.publish(id);
  }
}

export async function putPlacement(server: TestServer, id: string, document: Json): Promise<Json> {
  const response = await api(server).request('PUT', `/api/placements/${id}`, { body: document });
  const text = await response.text();
  assert.ok(response.status === 200 || response.status === 201, text);
  return JSON.parse(text);
}

/** GET /api/sdk/placement with the sdk key (or `key`); the query's values as given. */
export function askPlacement(
  server: TestServer,
  query: Record<string, string>,
  headers: Record<string, string> = {},
  key = server.keys.sdk,
): Promise<Response> {
  return fetch(`${server.url}/api/sdk/placement?${new URLSearchParams(query)}`, { headers: { ...bearer(key), ...headers } });
}

/** The 200 answer of a placement request. */
export async function placementAnswer(server: TestServer, query: Record<string, string>): Promise<Json> {
  const response = await askPlacement(server, query);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

/** What was shown: the paywall's id, or the reason nothing was. */
export async function shown(server: TestServer, query: Record<string, string>): Promise<string> {
  const answer = await placementAnswer(server, query);
  return answer.show ? answer.paywall.paywall_id : `-${answer.reason}`;
}

/** POST /api/purchases with the secret key; the records in the API's shape. */
export async function recordPurchases(server: TestServer, purchases: Json[]): Promise<Json> {
  const response = await api(server).request('POST', '/api/purchases', { body: { purchases } });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const body = JSON.parse(text);
  assert.deepEqual(body.rejected, [], text);
  return body;
}

/** A user's opens of a placement: screen_impression events naming it, at these times. */
export async function sendOpens(server: TestServer, placement: string, paywallId: string, userId: string, times: number[]): Promise<void> {
  const events = times.map((ts, i) => ({
    type: 'screen_impression',
    paywall_id: paywallId,
    ts,
    id: `${placement}-${userId}-${ts}-${i}`,
    user_id: userId,
    placement,
  }));
  const result = await ingest(server.url, server.keys.sdk, { events });
  assert.equal(result.accepted, times.length);
}
