/**
 * Every template drawn by dist/render in headless Chromium, as an app on
 * another origin draws it from a real server with dist/client: at 390 px
 * and 1280 px, in light and dark, without horizontal scroll, with no
 * axe-core violation, and exactly what its fixture says (which layoutModel
 * gives without a DOM: layout.unit.test.ts). One screenshot each, 390 px
 * wide in light; `npm run screenshots` keeps them in docs/screenshots/templates/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { needs } from '../helpers/requirements.ts';
import { startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { type DrawnNode, LOCALES, normalise, PRICES, PRODUCTS, readFixture } from './fixture.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FILES: Record<string, string> = {
  '/render/index.js': path.join(ROOT, 'dist/render/index.js'),
  '/client/index.js': path.join(ROOT, 'dist/client/index.js'),
  '/axe.min.js': path.join(ROOT, 'node_modules/axe-core/axe.min.js'),
};
const IDS = ['single-product', 'annual-vs-monthly', 'free-trial-toggle', 'feature-carousel', 'countdown-sale', 'win-back', 'lifetime-unlock', 'video-hero'];
/** The video hero's poster, as the template's CDN would serve it; its video is missing, so the poster stands in. */
const POSTER = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 180"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6D28D9"/><stop offset="1" stop-color="#DB2777"/></linearGradient></defs><rect width="320" height="180" fill="url(#g)"/><path d="M140 60v60l50-30z" fill="#fff"/></svg>`;

/** The app's web server, on another origin than paywalld: a page with a landmark, and the built files. */
async function appOrigin(t: TestContext): Promise<string> {
  const server = http.createServer((req, res) => {
    const file = FILES[req.url ?? ''];
    res.writeHead(200, { 'content-type': file ? 'text/javascript' : 'text/html' });
    res.end(
      file
        ? fs.readFileSync(file)
        : '<!doctype html><html lang="en"><title>app</title><style>body{margin:0}.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}</style><main><h1 class="sr">Upgrade</h1><div id="paywall"></div></main>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://localhost:${(server.address() as net.AddressInfo).port}`;
}

/** What the page drew, as the fixtures write it. */
async function drawn(page: Page): Promise<DrawnNode[]> {
  const raw: DrawnNode[] = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('#paywall [data-pw-path]')].map((element) => {
      const type = element.dataset.pwType!;
      const node: DrawnNode = { path: element.dataset.pwPath!, type };
      if (['text', 'countdown', 'button', 'purchase_button', 'link'].includes(type)) node.text = element.textContent ?? '';
      if (type === 'toggle') node.text = element.querySelector('.pw-toggle-label')?.textContent ?? '';
      if (type === 'package' || type === 'toggle') node.checked = element.getAttribute('aria-checked') === 'true';
      const badge = type === 'package' ? element.querySelector(':scope > .pw-badge') : null;
      if (badge) node.badge = badge.textContent ?? '';
      return node;
    }),
  );
  return raw.map((node) => ({
    ...node,
    ...(node.text === undefined ? {} : { text: normalise(node.text) }),
    ...(node.badge === undefined ? {} : { badge: normalise(node.badge) }),
  }));
}

async function axeViolations(page: Page): Promise<Json[]> {
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation: Json) => ({ id: violation.id, nodes: violation.nodes.map((node: Json) => node.target) }));
  });
}

test('every template draws at 390 and 1280 px in light and dark: its fixture, no horizontal scroll, no axe violation', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  for (const [id, name] of Object.entries(PRODUCTS)) await client.putProduct(id, { name, store_ids: { stripe: `price_${id}` } });
  const { templates } = (await (await client.request('GET', '/api/templates')).json()) as { templates: { id: string; document: Json }[] };
  assert.deepEqual(
    templates.map((template) => template.id),
    IDS,
  );
  for (const template of templates) {
    await client.putPaywall(template.id, template.document);
    await client.publish(template.id);
  }
  const origin = await appOrigin(t);
  const shots = path.join(process.env.PAYWALLD_SCREENSHOTS_DIR ?? tempDir(t), 'templates');
  fs.mkdirSync(shots, { recursive: true });
  const { page, errors } = await openBrowser(t, { width: 390, height: 844 });
  // The templates' media CDN: the poster is there, the video is not (the poster stands in).
  await page.route('https://cdn.example.com/**', (route) =>
    route.request().url().endsWith('.jpg') ? route.fulfill({ contentType: 'image/svg+xml', body: POSTER }) : route.fulfill({ status: 404, body: '' }),
  );

  for (const id of IDS) {
    await t.test(id, async () => {
      const fixture = readFixture(id);
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        for (const locale of LOCALES) {
          for (const scheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme: scheme });
            await page.goto(`${origin}/`);
            await page.evaluate(
              async ({ baseUrl, apiKey, paywallId, locale, prices }) => {
                const { createClient } = await import('/client/index.js' as string);
                const { renderPaywall } = await import('/render/index.js' as string);
                const { paywall } = await createClient({ baseUrl, apiKey, platform: 'web' }).getPaywall(paywallId, { locale });
                renderPaywall(document.getElementById('paywall'), paywall, { prices });
              },
              { baseUrl: server.url, apiKey: server.keys.sdk, paywallId: id, locale, prices: PRICES },
            );
            await page.locator(`#paywall .pw-root${scheme === 'dark' ? '.pw-dark' : ':not(.pw-dark)'}`).waitFor();
            if (id === 'video-hero') await page.locator('.pw-video-poster').waitFor();
            const where = `${id} ${locale} ${width} px ${scheme}`;
            assert.deepEqual(await drawn(page), fixture[locale], where);
            assert.deepEqual(
              await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]),
              [width, width],
              `${where}: no horizontal scroll`,
            );
            // The column keeps its max_width on a wide screen, centred.
            const column = (await page.locator('#paywall [data-pw-path="/children/0"]').boundingBox())!;
            assert.equal(Math.round(column.width), Math.min(width, 520), `${where}: the column's width`);
            assert.equal(Math.round(column.x), Math.round((width - column.width) / 2), `${where}: the column is centred`);
            if (locale === 'de') continue;
            await page.addScriptTag({ url: '/axe.min.js' });
            assert.deepEqual(await axeViolations(page), [], where);
            if (width === 390 && scheme === 'light') await page.locator('#paywall').screenshot({ path: path.join(shots, `${id}.png`) });
          }
        }
      }
    });
  }
  // A failed video load is the browser's console message, not the renderer's: nothing else went wrong.
  assert.deepEqual(
    errors.filter((error) => !/Failed to load resource/.test(error)),
    [],
  );
});
