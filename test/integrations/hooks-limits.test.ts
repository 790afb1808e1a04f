/**
 * /hooks/* is keyless and costs the server a verification before it knows
 * who sent a notification: it is rate-limited per client IP and per path
 * (one provider of one project, from every address together), 429 with
 * Retry-After before the body is read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

const BODY = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed' });

test('per client IP: past the burst (twice the rate) a notification is 429 with Retry-After, whatever its project', async (t) => {
  const { url, keys, projectId } = await startTestServer(t, { rateLimitHooks: 1 });
  // No connector is configured: 404, but each one counted before anything else.
  for (let i = 0; i < 2; i++) await problem(await deliver(url, 'stripe', projectId, BODY), 404, 'integration_not_found');
  const limited = await deliver(url, 'stripe', 'another-project', BODY);
  await problem(limited.clone(), 429, 'rate_limited');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.equal(await metric(url, keys.secret, 'paywalld_rate_limited_total{limit="hooks"}'), 1);
  // The SDK and management routes have limits of their own.
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
});

test('per project and provider: many addresses together are limited on one path, not on another project or provider', async (t) => {
  const { url, keys, projectId } = await startTestServer(t, { rateLimitHooksProject: 1, trustProxy: true });
  const from = (ip: string, provider = 'stripe', project = projectId) =>
    fetch(`${url}/hooks/${provider}/${project}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: BODY });
  assert.equal((await from('203.0.113.1')).status, 404);
  assert.equal((await from('203.0.113.2')).status, 404);
  await problem(await from('203.0.113.3'), 429, 'rate_limited');
  assert.equal((await from('203.0.113.4', 'revenuecat')).status, 404);
  assert.equal((await from('203.0.113.5', 'stripe', 'other')).status, 404);
  assert.equal(await metric(url, keys.secret, 'paywalld_rate_limited_total{limit="hooks_project"}'), 1);
});
