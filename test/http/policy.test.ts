import assert from 'node:assert/strict';
import net from 'node:net';
import { type TestContext, test } from 'node:test';
import { DEFAULT_POLICY, type EdgePolicy } from '../../src/http/policy.ts';
import { RateLimiter } from '../../src/http/rate-limit.ts';
import { json } from '../../src/http/reply.ts';
import type { Route, RouteDoc } from '../../src/http/route.ts';
import { Router } from '../../src/http/router.ts';
import { HttpServer } from '../../src/http/server.ts';
import { Logger } from '../../src/log.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { keyRegistry } from '../helpers/keys.ts';

const doc = (auth: RouteDoc['auth']): RouteDoc => ({
  operationId: 'test',
  errors: [],
  summary: 'test',
  tag: 'test',
  auth,
  ...(auth === 'secret' ? { access: 'view' as const } : {}),
  responses: {},
});

/** A bare edge with the real key registry: an sdk, a secret and a public route. */
async function edge(t: TestContext, policy: Partial<EdgePolicy>, log = new Logger('error')) {
  const keys = await keyRegistry(t);
  const router = new Router<Route>();
  router.add('GET', '/sdk', { doc: doc('sdk'), handler: () => json(200, { ok: true }) });
  router.add('POST', '/sdk', { doc: doc('sdk'), maxBody: 1024, handler: () => json(200, { ok: true }) });
  router.add('GET', '/manage', { doc: doc('secret'), handler: () => json(200, { ok: true }) });
  router.add('GET', '/open', { doc: doc('none'), handler: () => json(200, { ok: true }) });
  const server = new HttpServer({ router, log, auth: keys.auth, policy: { ...DEFAULT_POLICY, ...policy } });
  const port = await server.listen('127.0.0.1', 0);
  t.after(() => server.close(1000));
  const headers = (key: string, more: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...more });
  return { url: `http://127.0.0.1:${port}`, port, keys, sdk: headers(keys.sdk), secret: headers(keys.secret), headers };
}

test('SDK routes allow any origin, with a preflight for authorization and content-type', async (t) => {
  const { url, headers, keys } = await edge(t, {});
  const response = await fetch(`${url}/sdk`, { headers: headers(keys.sdk, { origin: 'https://app.example' }) });
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  assert.match(response.headers.get('access-control-expose-headers') ?? '', /ETag/);
  const preflight = await fetch(`${url}/sdk`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, OPTIONS, POST');
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization, content-type/);
  assert.equal(preflight.headers.get('access-control-max-age'), '86400');
});

test('the management API is closed to browsers unless --cors-origin lists the origin', async (t) => {
  const closed = await edge(t, {});
  const denied = await fetch(`${closed.url}/manage`, { headers: closed.headers(closed.keys.secret, { origin: 'https://admin.example' }) });
  assert.equal(denied.headers.get('access-control-allow-origin'), null);
  const noPreflight = await fetch(`${closed.url}/manage`, {
    method: 'OPTIONS',
    headers: { origin: 'https://admin.example', 'access-control-request-method': 'GET' },
  });
  assert.equal(noPreflight.headers.get('access-control-allow-origin'), null);

  const open = await edge(t, { corsOrigins: ['https://admin.example'] });
  const allowed = await fetch(`${open.url}/manage`, { headers: open.headers(open.keys.secret, { origin: 'https://admin.example' }) });
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://admin.example');
  assert.equal(allowed.headers.get('vary'), 'Origin');
  const other = await fetch(`${open.url}/manage`, { headers: open.headers(open.keys.secret, { origin: 'https://evil.example' }) });
  assert.equal(other.headers.get('access-control-allow-origin'), null);
  const preflight = await fetch(`${open.url}/manage`, {
    method: 'OPTIONS',
    headers: { origin: 'https://admin.example', 'access-control-request-method': 'GET' },
  });
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://admin.example');
});

test('SDK routes are limited per client IP with 429 and Retry-After; other routes are not', async (t) => {
  const { url, sdk, secret, headers, keys } = await edge(t, { sdkLimiter: new RateLimiter(1, 3) });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await fetch(`${url}/sdk`, { headers: sdk })).status);
  assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
  const limited = await fetch(`${url}/sdk`, { headers: headers(keys.sdk, { origin: 'https://app.example' }) });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  // Browsers can read the 429: it carries the CORS headers too.
  assert.equal(limited.headers.get('access-control-allow-origin'), '*');
  const body = await limited.json();
  assert.equal(body.code, 'rate_limited');
  assert.equal((await fetch(`${url}/open`)).status, 200);
  assert.equal((await fetch(`${url}/manage`, { headers: secret })).status, 200);
});

test('management routes are limited per key id, whatever the spelling of the header; without a valid key per client IP', async (t) => {
  const { url, keys } = await edge(t, { managementLimiter: new RateLimiter(1, 2) });
  const get = (authorization: string) => fetch(`${url}/manage`, { headers: { authorization } }).then((r) => r.status);
  // Spaces and the scheme's case change the text, not the key: one bucket.
  assert.deepEqual([await get(`Bearer ${keys.secret}`), await get(`bearer   ${keys.secret}`), await get(`BEARER ${keys.secret}  `)], [200, 200, 429]);
  const other = await keys.store.create(keys.projectId, 'secret', '', TEST_CHANGE);
  await keys.auth.reload();
  assert.equal(await get(`Bearer ${other.key}`), 200);
  // Unknown keys share the client's bucket, however many are tried.
  assert.deepEqual([await get('Bearer a'), await get('Bearer b'), await get('Bearer c')], [401, 401, 429]);
});

test('X-Forwarded-For decides the client only with --trust-proxy, and only its last entry', async (t) => {
  const { url, sdk } = await edge(t, { sdkLimiter: new RateLimiter(1, 1), trustProxy: true });
  const forwarded = (ip: string) => fetch(`${url}/sdk`, { headers: { ...sdk, 'x-forwarded-for': ip } }).then((r) => r.status);
  assert.equal(await forwarded('203.0.113.1'), 200);
  assert.equal(await forwarded('203.0.113.2'), 200);
  assert.equal(await forwarded('203.0.113.1'), 429);
  // A client cannot escape its bucket by prepending forged entries.
  assert.equal(await forwarded('198.51.100.7, 203.0.113.1'), 429);
});

test('a proxy on this machine without --trust-proxy is not throttled as one client, and a warning says so once', async (t) => {
  const lines: string[] = [];
  const log = new Logger('info', { sink: (text) => lines.push(...text.trim().split('\n')) });
  const { url, sdk } = await edge(t, { sdkLimiter: new RateLimiter(1, 1) }, log);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await fetch(`${url}/sdk`, { headers: { ...sdk, 'x-forwarded-for': `203.0.113.${i}` } })).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
  const warnings = lines.map((line) => JSON.parse(line)).filter((line) => line.level === 'warn');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].msg, /--trust-proxy is off/);
  // A loopback client that forwards for nobody is one client like any other.
  assert.deepEqual([(await fetch(`${url}/sdk`, { headers: sdk })).status, (await fetch(`${url}/sdk`, { headers: sdk })).status], [200, 429]);
});

test('a request body that does not arrive in time is cut off with 408 and the connection closed', async (t) => {
  const { port, keys } = await edge(t, { bodyTimeoutMs: 100 });
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.write(`POST /sdk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.sdk}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`);
  });
  assert.match(answer, /^HTTP\/1.1 408 /);
  assert.match(answer, /"code":"body_timeout"/);
});

test('the token bucket refills at its rate and forgets idle clients when full', () => {
  const limiter = new RateLimiter(10, 2, 2);
  assert.equal(limiter.take('a', 0), 0);
  assert.equal(limiter.take('a', 0), 0);
  assert.equal(limiter.take('a', 0), 1);
  assert.equal(limiter.take('a', 100), 0);
  assert.equal(limiter.take('b', 100), 0);
  // A third client while two are tracked: 'a' and 'b' are idle long enough to be forgotten.
  assert.equal(limiter.take('c', 10_000), 0);
  assert.equal(limiter.take('a', 10_000), 0);
  assert.equal(limiter.take('a', 10_000), 0);
});
