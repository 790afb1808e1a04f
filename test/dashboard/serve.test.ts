/** How /dashboard/ is served: redirects, headers (CSP, caching), hashed assets, gzip, 304s, and the size budget. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

const CSP = /^default-src 'self'; script-src 'self'; style-src 'self';/;

async function assets(url: string): Promise<{ script: string; style: string; html: string }> {
  const html = await (await fetch(`${url}/dashboard/`)).text();
  const script = /<script type="module" src="(\/dashboard\/assets\/app-[A-Z0-9]+\.js)"><\/script>/.exec(html)?.[1];
  const style = /<link rel="stylesheet" href="(\/dashboard\/assets\/app-[A-Z0-9]+\.css)">/.exec(html)?.[1];
  assert.ok(script && style, html);
  return { script, style, html };
}

test('/ and /dashboard lead to /dashboard/', async (t) => {
  const { url } = await startTestServer(t);
  for (const path of ['/', '/dashboard']) {
    const response = await fetch(`${url}${path}`, { redirect: 'manual' });
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), '/dashboard/');
  }
});

test('index.html: strict CSP, no inline script, revalidated on every load, 304 on a matching ETag', async (t) => {
  const { url } = await startTestServer(t);
  const response = await fetch(`${url}/dashboard/`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(response.headers.get('content-security-policy')!, CSP);
  assert.match(response.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(response.headers.get('cache-control'), 'no-cache');
  const html = await response.text();
  // Every script is a file of this origin: no inline code, no other host.
  for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) assert.match(tag, /src="\/dashboard\/assets\//);
  assert.doesNotMatch(html, /<script\b[^>]*>[^<]+<\/script>/);
  assert.doesNotMatch(html, /https?:\/\//);
  const again = await fetch(`${url}/dashboard/`, { headers: { 'if-none-match': response.headers.get('etag')! } });
  assert.equal(again.status, 304);
});

test('assets: hashed names cached for a year, gzipped when asked, the same bytes either way', async (t) => {
  const { url } = await startTestServer(t);
  const { script, style } = await assets(url);
  for (const path of [script, style]) {
    const plain = await fetch(`${url}${path}`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(plain.headers.get('content-encoding'), null);
    const bytes = Buffer.from(await plain.arrayBuffer());
    // fetch() decodes gzip: what it hands back must be the very bytes served without it.
    const zipped = await fetch(`${url}${path}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    assert.notEqual(zipped.headers.get('etag'), plain.headers.get('etag'));
    assert.deepEqual(Buffer.from(await zipped.arrayBuffer()), bytes);
    const refused = await fetch(`${url}${path}`, { headers: { 'accept-encoding': 'gzip;q=0' } });
    assert.equal(refused.headers.get('content-encoding'), null);
    await refused.arrayBuffer();
  }
  const type = await fetch(`${url}${script}`);
  assert.equal(type.headers.get('content-type'), 'text/javascript; charset=utf-8');
  await type.arrayBuffer();
});

test('the script stays under its 150 KB gzipped budget and carries no valibot', async (t) => {
  const { url } = await startTestServer(t);
  const { script } = await assets(url);
  const raw = await fetch(`${url}${script}`, { headers: { 'accept-encoding': 'identity' } });
  const text = Buffer.from(await raw.arrayBuffer());
  const size = gzipSync(text).length;
  assert.ok(size < 150 * 1024, `${size} bytes gzipped`);
  // The dashboard takes the API's types from the server's schemas with `import type`: no schema code may come along.
  assert.doesNotMatch(text.toString(), /vendor:\s*["'`]valibot/);
});

test('an unknown asset is a 404 problem, and assets need no key', async (t) => {
  const { url } = await startTestServer(t);
  await problem(await fetch(`${url}/dashboard/assets/app-NOPE.js`), 404, 'not_found');
  await problem(await fetch(`${url}/dashboard/assets/index.html`), 404, 'not_found');
  await problem(await fetch(`${url}/dashboard/other`), 404, 'not_found');
});
