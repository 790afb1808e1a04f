import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { type TestContext, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS, CHROMIUM_PROGRAM } from '../helpers/browser.ts';
import { DIST_CLIENT, ONBOARDING_EVENTS, seededServer } from '../helpers/client.ts';
import { exported } from '../helpers/events.ts';
import { metric } from '../helpers/metrics.ts';
import { needs } from '../helpers/requirements.ts';

/** An app's own web server, on another origin than paywalld: a blank page and the built client. */
async function appOrigin(t: TestContext): Promise<string> {
  const server = http.createServer((req, res) => {
    if (req.url === '/client/index.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(fs.readFileSync(DIST_CLIENT));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>app</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  // localhost is another origin than paywalld's 127.0.0.1, so every call below is cross-origin.
  return `http://localhost:${(server.address() as net.AddressInfo).port}`;
}

test('in headless Chromium, a page on another origin resolves a paywall through CORS, revalidates it and sends events', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await seededServer(t);
  const origin = await appOrigin(t);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  t.after(() => browser.close());
  const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  await page.goto(`${origin}/`);

  const result = await page.evaluate(
    async ({ baseUrl, apiKey }) => {
      const { createClient } = await import('/client/index.js' as string);
      const client = createClient({ baseUrl, apiKey, storage: window.localStorage, platform: 'web' });
      const first = await client.getPaywall('onboarding', { userId: 'browser-user' });
      const second = await client.getPaywall('onboarding', { userId: 'browser-user' });
      const event = client.track({ type: 'screen_impression', paywall_id: 'onboarding', user_id: 'browser-user' });
      const flushed = await client.flush();
      return {
        origin: window.location.origin,
        first: {
          source: first.source,
          locale: first.paywall.locale,
          title: first.paywall.root.children[0].props.text,
          store: first.paywall.product_slots[0].store_product_id,
        },
        second: second.source,
        same: JSON.stringify(first.paywall) === JSON.stringify(second.paywall),
        event,
        flushed,
        stored: Object.keys(window.localStorage).sort(),
      };
    },
    { baseUrl: server.url, apiKey: server.keys.sdk },
  );

  assert.notEqual(result.origin, server.url);
  // The locale came from the browser (navigator.languages and Accept-Language), the store id from platform web.
  assert.deepEqual(result.first, {
    source: 'network',
    locale: 'de',
    title: 'Werde Pro',
    store: result.event.variant_id === 'control' ? 'price_annual' : 'price_monthly',
  });
  assert.equal(result.second, 'network');
  assert.ok(result.same);
  // The second call sent If-None-Match, which takes a preflight, and the server answered 304.
  assert.equal(await metric(server.url, server.keys.secret, 'paywalld_http_requests_total{route="/api/sdk/config",method="GET",status="304"}'), 1);
  assert.deepEqual(result.flushed, { pending: 0 });
  assert.deepEqual(result.stored, ['paywalld:events', 'paywalld:identity', 'paywalld:paywall:onboarding']);
  const stored = await exported(server.url, server.keys.secret, ONBOARDING_EVENTS);
  assert.deepEqual(
    stored.map((row) => [row.id, row.variant_id]),
    [[result.event.id, result.event.variant_id]],
  );
  assert.deepEqual(consoleErrors, []);
});
