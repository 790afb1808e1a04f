/** Rate limits, the Authorization header and the defaults of a real deployment, through the real server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveConfig } from '../../src/config.ts';
import { Logger } from '../../src/log.ts';
import { TEST_CHANGE } from '../helpers/change.ts';
import { metric } from '../helpers/metrics.ts';
import { rawRequest } from '../helpers/raw.ts';
import { bearer, startTestServer } from '../helpers/server.ts';

function status(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1]);
}

test('the management limit counts per key, however the Authorization header is spelled, and 429s are counted in /metrics', async (t) => {
  const { url, server, keys, projectId } = await startTestServer(t, { rateLimitApi: 2 });
  // A second key reads the metrics: it has a bucket of its own.
  const reader = (await server.ctx.keys.create(projectId, 'secret', '', TEST_CHANGE)).key;
  const spellings = [`Bearer ${keys.secret}`, `Bearer   ${keys.secret}`, `bearer ${keys.secret}`, `BEARER ${keys.secret}  `, `Bearer  ${keys.secret} `];
  const statuses: number[] = [];
  for (const authorization of spellings) statuses.push((await fetch(`${url}/api/keys`, { headers: { authorization } })).status);
  // Bursts of twice the rate: four pass, the fifth waits.
  assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
  assert.equal(await metric(url, reader, 'paywalld_rate_limited_total{limit="management"}'), 1);
  assert.equal(await metric(url, reader, 'paywalld_rate_limited_total{limit="sdk"}'), 0);
});

test('a header longer than any key is a 401 and counts against the client IP, not a bucket of its own', async (t) => {
  const { url } = await startTestServer(t, { rateLimitApi: 1 });
  const statuses: number[] = [];
  for (const filler of ['a', 'b', 'c']) {
    // Far longer than a key, within the 4 KiB head (a 90,000-character header is a 431, below).
    const response = await fetch(`${url}/api/keys`, { headers: { authorization: `Bearer ${filler.repeat(3000)}` } });
    const body = await response.text();
    statuses.push(response.status);
    if (response.status === 401) assert.equal(JSON.parse(body).code, 'invalid_api_key');
  }
  assert.deepEqual(statuses, [401, 401, 429]);
});

test('a duplicated Authorization header: the first one counts, on routes with and without a body alike', async (t) => {
  const { server, keys } = await startTestServer(t);
  const bad = `pwk_secret_${'Z'.repeat(32)}`;
  const send = (method: string, path: string, first: string, second: string, body = '') =>
    rawRequest(
      server.port,
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      5000,
    ).then(status);
  const product = JSON.stringify({ name: 'Pro' });
  assert.equal(await send('GET', '/api/keys', bad, keys.secret), 401);
  assert.equal(await send('PUT', '/api/products/pro', bad, keys.secret, product), 401);
  assert.equal(await send('GET', '/api/keys', keys.secret, bad), 200);
  assert.equal(await send('PUT', '/api/products/pro', keys.secret, bad, product), 201);
});

test('the default SDK limit never throttles an app behind a proxy on this machine, which is warned about once', async (t) => {
  const defaults = serveConfig({}, {});
  assert.equal(defaults.rateLimitSdk, 1000);
  assert.equal(defaults.rateLimitApi, 20);
  const lines: string[] = [];
  const log = new Logger('warn', { sink: (text) => lines.push(...text.trim().split('\n')) });
  const { url, keys } = await startTestServer(t, { rateLimitSdk: defaults.rateLimitSdk, rateLimitApi: defaults.rateLimitApi }, log);
  // Thousands of devices behind one proxy: more than the burst, from one peer address.
  const statuses = new Map<number, number>();
  for (let batch = 0; batch < 25; batch++) {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${url}/api/sdk/config?paywallId=none`, { headers: { ...bearer(keys.sdk), 'x-forwarded-for': `198.51.100.${i}` } }).then((r) => r.status),
      ),
    );
    for (const code of answers) statuses.set(code, (statuses.get(code) ?? 0) + 1);
  }
  assert.deepEqual([...statuses], [[404, 2500]]);
  const warnings = lines.map((line) => JSON.parse(line)).filter((line) => /--trust-proxy is off/.test(line.msg));
  assert.equal(warnings.length, 1);
});

test('a request head over 16 KiB is refused with 431 and the connection goes on; up to it, requests pass', async (t) => {
  const { server } = await startTestServer(t);
  const head = (junk: number) => `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Junk: ${'j'.repeat(junk)}\r\n\r\n`;
  // Sent in one write, so uWS 20.30's own 4 KiB limit for heads split across reads does not apply.
  for (const junk of [3500, 16_000]) {
    const answer = await rawRequest(server.port, head(junk), 5000);
    assert.equal(status(answer), 200, answer.slice(0, 200));
  }
  for (const junk of [16_500, 90_000]) {
    const answer = await rawRequest(server.port, head(junk) + head(10), 5000);
    assert.equal(status(answer), 431, answer.slice(0, 200));
    assert.match(answer, /"code":"headers_too_large"/);
    // uWS parsed the head whole, so the connection goes on: the next request is answered.
    assert.match(answer, /\r\n\r\n\{"type"[\s\S]*HTTP\/1\.1 200 [\s\S]*\{"status":"ok"\}$/);
  }
});
