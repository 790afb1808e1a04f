/** A small client for the paywall and product endpoints, and the products and paywalls the tests seed. */
import assert from 'node:assert/strict';
import type { Json } from './json.ts';
import { bearer, type TestServer } from './server.ts';

export interface Api {
  url: string;
  secret: string;
  sdk: string;
  request(method: string, path: string, options?: { body?: unknown; key?: string; headers?: Record<string, string> }): Promise<Response>;
  putProduct(id: string, body: Json): Promise<Json>;
  putPaywall(id: string, body: Json, headers?: Record<string, string>): Promise<Json>;
  publish(id: string, revision?: number): Promise<Json>;
  resolve(query: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
}

export function api(server: Pick<TestServer, 'url' | 'keys'>): Api {
  const { url } = server;
  const request: Api['request'] = (method, path, options = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        ...bearer(options.key ?? server.keys.secret),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });
  const ok = async (response: Response, statuses: number[]) => {
    const text = await response.text();
    assert.ok(statuses.includes(response.status), `${response.status}: ${text}`);
    return JSON.parse(text) as Json;
  };
  return {
    url,
    secret: server.keys.secret,
    sdk: server.keys.sdk,
    request,
    putProduct: async (id, body) => ok(await request('PUT', `/api/products/${id}`, { body }), [200, 201]),
    putPaywall: async (id, body, headers) => ok(await request('PUT', `/api/paywalls/${id}`, { body, headers }), [200, 201]),
    publish: async (id, revision) => ok(await request('POST', `/api/paywalls/${id}/publish`, revision === undefined ? {} : { body: { revision } }), [200]),
    resolve: (query, headers = {}) => fetch(`${url}/api/sdk/config?${new URLSearchParams(query)}`, { headers: { ...bearer(server.keys.sdk), ...headers } }),
  };
}

/** The two products of the example, with store ids for every platform but web. */
export async function seedProducts(client: Api): Promise<void> {
  await client.putProduct('pro_annual', {
    name: 'Pro Annual',
    store_ids: { app_store: 'com.acme.pro.annual', play_store: 'pro_annual', stripe: 'price_annual' },
  });
  await client.putProduct('pro_monthly', {
    name: 'Pro Monthly',
    store_ids: { app_store: 'com.acme.pro.monthly', play_store: 'pro_monthly', stripe: 'price_monthly' },
  });
}

/** A one-variant paywall whose title is its only text: the smallest document that shows what resolve did. */
export function single(strings: Json, extra: Json = {}): Json {
  return {
    name: 'Single',
    default_locale: 'en',
    strings,
    slots: { primary: 'pro_annual' },
    root: { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'text', props: { text_key: 'title' } }] },
    variants: [{ id: 'only', weight: 1 }],
    ...extra,
  };
}
