/**
 * Every route that changes something appends exactly one audit entry,
 * walked from the server's own route table: a route that is not a GET
 * either has a sample below (a request that succeeds, and the action its
 * entry must say) or is listed as changing no configuration, with why. A
 * new route with neither fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Action } from '../../src/shared/change.ts';
import { accept, asPerson, firstOwner, invite, member, PASSWORD, type Person } from '../helpers/accounts.ts';
import { example } from '../helpers/example-paywall.ts';
import type { Json } from '../helpers/json.ts';
import { api, seedProducts } from '../helpers/paywalls.ts';
import { bearer, startTestServer, type TestServer } from '../helpers/server.ts';

/** Routes that change no configuration: no entry, and why. */
const NOT_CHANGES: Record<string, string> = {
  'POST /api/sdk/events': 'events are what apps report, not configuration',
  'POST /api/sdk/identify': "an app's link between user ids is data, not configuration",
  'POST /api/purchases': 'purchase records are data, not configuration',
  'POST /hooks/:provider/:project': "a store's notification is data, not configuration",
  'POST /api/paywalls/:id/validate': 'checks a document, stores nothing',
  'POST /api/paywalls/:id/preview': 'renders a document, stores nothing',
  'POST /api/auth/login': 'a sign-in changes no configuration (its throttling does: test/accounts/sessions.test.ts)',
  'POST /api/auth/logout': "ends the caller's own session",
  'POST /api/webhooks/:id/test': 'queues a test delivery to the endpoint; changes no configuration',
  'POST /api/webhooks/:id/deliveries/:delivery/retry': 'sends a delivery again; changes no configuration',
};

interface Sample {
  /** Prepares what the request needs (its own changes are counted before the request). */
  setup?: (s: Setting) => Promise<Record<string, string>>;
  request: (s: Setting, prepared: Record<string, string>) => { path: string; body?: unknown; headers?: Record<string, string>; as?: 'nobody' };
  action: Action;
}

interface Setting {
  server: TestServer;
  owner: Person;
  project: string;
}

const etagOf = async (s: Setting, path: string) => (await fetch(`${s.server.url}${path}`, { headers: asPerson(s.owner) })).headers.get('etag')!;

const SAMPLES: Record<string, Sample> = {
  'PUT /api/products/:id': { request: () => ({ path: '/api/products/walk', body: { name: 'Walk', store_ids: {} } }), action: 'product.written' },
  'DELETE /api/products/:id': {
    setup: async (s) => {
      await api(s.server).putProduct('doomed', { name: 'Doomed', store_ids: {} });
      return { 'if-match': await etagOf(s, '/api/products/doomed') };
    },
    request: (_, headers) => ({ path: '/api/products/doomed', headers }),
    action: 'product.deleted',
  },
  'PUT /api/paywalls/:id': { request: () => ({ path: '/api/paywalls/walk', body: example() }), action: 'paywall.written' },
  'POST /api/paywalls/:id/publish': {
    setup: async (s) => {
      await api(s.server).putPaywall('to-publish', example());
      return {};
    },
    request: () => ({ path: '/api/paywalls/to-publish/publish', body: {} }),
    action: 'paywall.published',
  },
  'DELETE /api/paywalls/:id': {
    setup: async (s) => {
      await api(s.server).putPaywall('to-archive', example());
      return { 'if-match': await etagOf(s, '/api/paywalls/to-archive') };
    },
    request: (_, headers) => ({ path: '/api/paywalls/to-archive', headers }),
    action: 'paywall.archived',
  },
  'PUT /api/placements/:id': {
    request: () => ({ path: '/api/placements/walk', body: { name: 'Walk', rules: [{ paywall_id: 'walk' }] } }),
    action: 'placement.written',
  },
  'DELETE /api/placements/:id': {
    setup: async (s) => {
      await api(s.server).request('PUT', '/api/placements/to-archive', { body: { name: 'Archived', rules: [] } });
      return { 'if-match': await etagOf(s, '/api/placements/to-archive') };
    },
    request: (_, headers) => ({ path: '/api/placements/to-archive', headers }),
    action: 'placement.archived',
  },
  'POST /api/keys': { request: () => ({ path: '/api/keys', body: { scope: 'sdk', name: 'walk' } }), action: 'key.created' },
  'DELETE /api/keys/:id': {
    setup: async (s) => {
      const created = await api(s.server).request('POST', '/api/keys', { body: { scope: 'sdk' } });
      return { id: (await created.json()).id };
    },
    request: (_, { id }) => ({ path: `/api/keys/${id}` }),
    action: 'key.revoked',
  },
  'PUT /api/integrations/:provider': {
    request: () => ({ path: '/api/integrations/revenuecat', body: { authorization: 'Bearer a-long-shared-secret-for-the-walk' } }),
    action: 'connector.configured',
  },
  'POST /api/projects/:project/invitations': {
    request: (s) => ({ path: `/api/projects/${s.project}/invitations`, body: { email: 'invited@example.com', role: 'viewer' } }),
    action: 'member.invited',
  },
  'PATCH /api/projects/:project/members/:user': {
    setup: async (s) => ({ id: (await member(s.server, s.owner, 'viewer', 'changed@example.com')).userId }),
    request: (s, { id }) => ({ path: `/api/projects/${s.project}/members/${id}`, body: { role: 'analyst' } }),
    action: 'member.changed',
  },
  'DELETE /api/projects/:project/members/:user': {
    setup: async (s) => ({ id: (await member(s.server, s.owner, 'viewer', 'removed@example.com')).userId }),
    request: (s, { id }) => ({ path: `/api/projects/${s.project}/members/${id}` }),
    action: 'member.removed',
  },
  'POST /api/auth/accept': {
    setup: async (s) => ({ token: await invite(s.server.url, s.owner, s.project, 'joining@example.com', 'editor') }),
    request: (_, { token }) => ({ path: '/api/auth/accept', body: { token, password: PASSWORD }, as: 'nobody' }),
    action: 'member.joined',
  },
  // A documentation address (TEST-NET-3), disabled: nothing is sent anywhere.
  'PUT /api/webhooks/:id': {
    request: () => ({ path: '/api/webhooks/walk', body: { url: 'https://203.0.113.7/walk', events: ['key.created'], enabled: false } }),
    action: 'webhook.written',
  },
  'DELETE /api/webhooks/:id': {
    setup: async (s) => {
      const put = await fetch(`${s.server.url}/api/webhooks/doomed`, {
        method: 'PUT',
        headers: { ...asPerson(s.owner), 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://203.0.113.7/doomed', events: ['key.created'], enabled: false }),
      });
      assert.equal(put.status, 201);
      return {};
    },
    request: () => ({ path: '/api/webhooks/doomed' }),
    action: 'webhook.deleted',
  },
  'DELETE /api/event-names': {
    setup: async (s) => {
      // A name no paywall declares, sent without a secret key: it counts in the budget the request clears.
      const sent = await fetch(`${s.server.url}/api/sdk/events`, {
        method: 'POST',
        headers: { ...bearer(s.server.keys.sdk), 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ type: 'screen_impression', paywall_id: 'made_up', ts: Date.now(), user_id: 'u1', variant_id: 'v1' }] }),
      });
      assert.equal(((await sent.json()) as Json).accepted, 1);
      return {};
    },
    request: () => ({ path: '/api/event-names' }),
    action: 'event_names.cleared',
  },
  'POST /api/auth/password': {
    request: () => ({ path: '/api/auth/password', body: { current_password: PASSWORD, new_password: PASSWORD } }),
    action: 'user.password_changed',
  },
};

test('every route that changes something writes exactly one audit entry, naming who and from where', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const s: Setting = { server, owner, project: server.projectId };
  await seedProducts(api(server));
  const newest = async () => (await server.server.ctx.audit.page(undefined, { limit: 200 })).entries;
  const changing = server.server.router.routes().filter(({ method }) => method !== 'GET');
  const names = changing.map(({ method, pattern }) => `${method} ${pattern}`);
  for (const name of names)
    assert.ok(SAMPLES[name] || NOT_CHANGES[name], `${name} changes something? Add a sample with its audit entry, or say why it changes nothing`);
  for (const name of [...Object.keys(SAMPLES), ...Object.keys(NOT_CHANGES)]) assert.ok(names.includes(name), `${name} is no route any more`);

  for (const { method, pattern } of changing) {
    const sample = SAMPLES[`${method} ${pattern}`];
    if (!sample) continue;
    const prepared = (await sample.setup?.(s)) ?? {};
    const { path, body, headers, as } = sample.request(s, prepared);
    const before = await newest();
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(as === 'nobody' ? {} : asPerson(owner)), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const label = `${method} ${pattern}`;
    assert.ok(response.ok, `${label}: ${response.status} ${await response.text()}`);
    const after = await newest();
    assert.equal(after.length - before.length, 1, `${label} wrote ${after.length - before.length} entries`);
    const entry = after[0]!;
    assert.equal(entry.action, sample.action, label);
    assert.equal(entry.actor.type, 'user', label);
    assert.equal(entry.actor.label, as === 'nobody' ? 'joining@example.com' : owner.email, label);
    assert.equal(entry.ip, '127.0.0.1', label);
  }
});

test('a request refused, or one that changes nothing, writes no entry', async (t) => {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const count = async () => (await server.server.ctx.audit.page(undefined, { limit: 200 })).entries.length;
  const before = await count();
  const viewer = await member(server, owner, 'viewer');
  const afterJoining = await count();
  assert.equal(afterJoining - before, 2, 'invited, joined');
  const put = (who: Person, ifMatch?: string) =>
    fetch(`${server.url}/api/products/pro`, {
      method: 'PUT',
      headers: { ...asPerson(who), 'content-type': 'application/json', ...(ifMatch ? { 'if-match': ifMatch } : {}) },
      body: JSON.stringify({ name: 'Pro', store_ids: {} }),
    });
  assert.equal((await put(viewer)).status, 403);
  assert.equal((await put(owner, '"nope"')).status, 412);
  const created = await fetch(`${server.url}/api/keys`, {
    method: 'POST',
    headers: { ...asPerson(owner), 'content-type': 'application/json' },
    body: JSON.stringify({ scope: 'sdk' }),
  });
  const { id } = await created.json();
  const revoke = () => fetch(`${server.url}/api/keys/${id}`, { method: 'DELETE', headers: asPerson(owner) });
  assert.equal((await revoke()).status, 200);
  assert.equal((await revoke()).status, 200, 'revoking a revoked key is no error');
  assert.equal(await count(), afterJoining + 2, 'the key created and revoked, once; nothing for the refusals or the repeat');
  await accept(server.url, { token: 'A'.repeat(43), password: PASSWORD });
  assert.equal(await count(), afterJoining + 2);
});
