/**
 * The selection, toggle, pages, countdown, theme, fonts, show_if and video
 * in headless Chromium, as an app draws them: a page on another origin,
 * under a Content-Security-Policy with style-src 'self', resolving from a
 * real server with dist/client and drawing with dist/render. Each check is
 * one of issue 33's "done when", by mouse, touch-like swipe and keyboard
 * alone, with no axe-core violation in light or dark.
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
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FILES: Record<string, string> = {
  '/render/index.js': path.join(ROOT, 'dist/render/index.js'),
  '/client/index.js': path.join(ROOT, 'dist/client/index.js'),
  '/axe.min.js': path.join(ROOT, 'node_modules/axe-core/axe.min.js'),
};
const POSTER = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 9"><rect width="16" height="9" fill="#333"/></svg>';

const theme = {
  colors: { brand: { light: '#7C3AED', dark: '#C4B5FD' }, accent: { light: '#B91C1C', dark: '#FCA5A5' } },
  fonts: { heading: { family: 'Brand Sans', url: 'https://fonts.example.com/brand-sans.woff2', weight: 700 } },
};
const page3 = (text: string) => ({ type: 'text', props: { text } });

/** A picker of three packages, the selection in texts and the purchase button, trial copy for the eligible, pages, two countdowns and a video. */
const PICKER = {
  name: 'Picker',
  default_locale: 'en',
  theme,
  strings: { en: { save: 'Save {{annual.savings_vs.monthly}}', ends: 'Ends in {{countdown}}' } },
  slots: { annual: 'pro_annual', monthly: 'pro_monthly', weekly: 'pro_weekly' },
  root: {
    type: 'stack',
    props: { axis: 'vertical', spacing: 8, padding: 12 },
    children: [
      { type: 'text', id: 'title', props: { text: 'Go Pro', style: { font_size: 28, color: '@brand', font: '@heading' } } },
      {
        type: 'package_group',
        props: { default_slot: 'annual' },
        children: ['annual', 'monthly', 'weekly'].map((slot) => ({
          type: 'package',
          id: slot,
          props: slot === 'annual' ? { slot, badge_key: 'save' } : { slot },
          children: [{ type: 'text', props: { text: `${slot}: {{${slot}.price}}` } }],
        })),
      },
      { type: 'text', id: 'selected-price', props: { text: 'You pay {{selected.price}}' } },
      { type: 'text', id: 'trial', props: { text: '{{selected.trial}} free' }, show_if: { slot: 'selected', eligible_for_intro: true } },
      { type: 'purchase_button', id: 'buy', props: { slot: 'selected', text: 'Continue' } },
      { type: 'pages', id: 'carousel', props: { indicator: 'dots' }, children: [page3('First page'), page3('Second page'), page3('Third page')] },
      { type: 'countdown', id: 'hiding', props: { duration_seconds: 60, text_key: 'ends', expired: 'hide' } },
      { type: 'countdown', id: 'staying', props: { duration_seconds: 60, text_key: 'ends', expired: 'show' } },
      {
        type: 'video',
        id: 'hero',
        props: { url: 'https://cdn.example.com/hero.mp4', poster_url: 'https://cdn.example.com/hero.jpg', autoplay: true, loop: true },
      },
    ],
  },
};

/** The classic free-trial switch: on, the annual plan with a trial; off, the monthly plan. */
const TOGGLED = {
  name: 'Toggled',
  default_locale: 'en',
  strings: { en: { trial: 'Free trial' } },
  slots: { annual: 'pro_annual', monthly: 'pro_monthly' },
  root: {
    type: 'stack',
    props: { axis: 'vertical' },
    children: [
      { type: 'toggle', id: 'switch', props: { text_key: 'trial', slot_on: 'annual', slot_off: 'monthly', default: true } },
      { type: 'text', id: 'selected-price', props: { text: '{{selected.price}} per {{selected.period}}' } },
      { type: 'purchase_button', id: 'buy', props: { slot: 'selected', text: 'Continue' } },
    ],
  },
};

const PRICES = {
  pro_annual: { amount: 49.99, currency: 'USD', period: 'P1Y', trial: 'P7D', eligible_for_intro: true },
  pro_monthly: { amount: 9.99, currency: 'USD', period: 'P1M', eligible_for_intro: false },
  pro_weekly: { amount: 2.99, currency: 'USD', period: 'P1W' },
};

/** The app's server: its page under a strict CSP (styles, scripts from itself only; images, fonts and media from https), and the built files. */
async function appOrigin(t: TestContext, paywalld: string): Promise<string> {
  const server = http.createServer((req, res) => {
    const file = FILES[req.url ?? ''];
    if (file) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(fs.readFileSync(file));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html',
      'content-security-policy': `default-src 'self'; script-src 'self'; style-src 'self'; img-src https: data:; font-src https:; media-src https:; connect-src 'self' ${paywalld}`,
    });
    res.end('<!doctype html><html lang="en"><title>app</title><main><h1 tabindex="-1">Upgrade</h1><div id="paywall"></div></main>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://localhost:${(server.address() as net.AddressInfo).port}`;
}

async function draw(page: Page, server: TestServer, paywallId: string, options: Json = {}): Promise<void> {
  await page.evaluate(
    async ({ baseUrl, apiKey, paywallId, prices, options }) => {
      const { createClient } = await import('/client/index.js' as string);
      const { renderPaywall } = await import('/render/index.js' as string);
      const { paywall } = await createClient({ baseUrl, apiKey, platform: 'web' }).getPaywall(paywallId);
      const w = window as any;
      w.view?.destroy();
      w.actions = [];
      // A first view 54 s ago: the 60-second countdowns have 6 s left.
      w.view = renderPaywall(document.getElementById('paywall'), paywall, {
        prices,
        firstViewedAt: Date.now() - 54_000,
        onAction: w.actions.push.bind(w.actions),
        ...options,
      });
    },
    { baseUrl: server.url, apiKey: server.keys.sdk, paywallId, prices: PRICES, options },
  );
}

const actions = (page: Page): Promise<Json[]> => page.evaluate(() => (window as any).actions.splice(0));
const checked = (page: Page) => page.locator('[role=radio]').evaluateAll((radios) => radios.map((radio) => radio.getAttribute('aria-checked')));
const text = (page: Page, id: string) => page.locator(`[data-pw-node="${id}"]`).innerText();
const currentPage = (page: Page) =>
  page.locator('.pw-page').evaluateAll((pages) => pages.findIndex((one) => !(one as HTMLElement).inert && one.getAttribute('aria-hidden') === null));

async function axeViolations(page: Page): Promise<Json[]> {
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation: Json) => ({ id: violation.id, nodes: violation.nodes.map((node: Json) => node.target) }));
  });
}

test('the selection, toggle, pages, countdowns, theme, fonts, show_if and video work by mouse, swipe and keyboard', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  for (const [id, name] of [
    ['pro_annual', 'Pro Annual'],
    ['pro_monthly', 'Pro Monthly'],
    ['pro_weekly', 'Pro Weekly'],
  ]) {
    await client.putProduct(id!, { name, store_ids: { stripe: `price_${id}` } });
  }
  for (const [id, document] of [
    ['picker', PICKER],
    ['toggled', TOGGLED],
  ] as const) {
    await client.putPaywall(id, document);
    await client.publish(id);
  }
  const origin = await appOrigin(t, server.url);
  const { page, errors } = await openBrowser(t, { width: 420, height: 1400 });
  // The font's host is down; the media host has the poster, not the video.
  await page.route('https://fonts.example.com/**', (route) => route.fulfill({ status: 404, body: '' }));
  await page.route('https://cdn.example.com/**', (route) =>
    route.request().url().endsWith('.jpg') ? route.fulfill({ contentType: 'image/svg+xml', body: POSTER }) : route.fulfill({ status: 404, body: '' }),
  );
  // A clock the test can stop and move (the countdowns below); it runs as usual until then.
  await page.clock.install();
  await page.goto(`${origin}/`);
  await draw(page, server, 'picker');
  const paywall = page.locator('#paywall');

  // The default package is selected and looks it; the others do not. Its badge shows the saving.
  assert.deepEqual(await checked(page), ['true', 'false', 'false']);
  assert.equal(await page.locator('[role=radiogroup]').count(), 1);
  const look = (id: string) => page.locator(`[data-pw-node="${id}"]`).evaluate((el) => getComputedStyle(el).borderTopColor);
  assert.notEqual(await look('annual'), await look('monthly'));
  assert.equal(await page.locator('[data-pw-node="annual"] .pw-badge').innerText(), 'Save 58%');
  assert.equal(await text(page, 'selected-price'), 'You pay $49.99');
  // show_if: the annual plan's trial is offered to this eligible user.
  assert.equal(await text(page, 'trial'), '7 days free');

  // Selecting the second package and pressing the purchase button buys the second product.
  await page.locator('[data-pw-node="monthly"]').click();
  assert.deepEqual(await checked(page), ['false', 'true', 'false']);
  assert.equal(await look('monthly'), await page.evaluate(() => 'rgb(185, 28, 28)'));
  assert.equal(await text(page, 'selected-price'), 'You pay $9.99');
  // The monthly product's user is not eligible: no trial copy.
  assert.equal(await page.locator('[data-pw-node="trial"]').count(), 0);
  await paywall.getByRole('button', { name: 'Continue' }).click();
  assert.deepEqual(await actions(page), [
    { type: 'select', slot: 'monthly', product_id: 'pro_monthly', store_product_id: 'price_pro_monthly' },
    { type: 'purchase', slot: 'monthly', product_id: 'pro_monthly', store_product_id: 'price_pro_monthly' },
  ]);

  // The keyboard alone: Tab reaches the selected radio only; the arrow keys move the selection (and wrap); Enter buys.
  await page.evaluate(() => document.querySelector('h1')!.focus());
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.pwNode), 'monthly');
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await checked(page), ['false', 'false', 'true']);
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.pwNode), 'weekly');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await checked(page), ['true', 'false', 'false']);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await checked(page), ['false', 'true', 'false']);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.pwNode), 'buy');
  await page.keyboard.press('Enter');
  assert.deepEqual(
    (await actions(page)).map((action) => `${action.type} ${action.slot}`),
    ['select weekly', 'select annual', 'select weekly', 'select monthly', 'purchase monthly'],
  );

  // Pages: the arrow keys on the carousel, a swipe each way, a dot.
  const carousel = page.locator('[data-pw-node="carousel"]');
  assert.equal(await carousel.getAttribute('aria-roledescription'), 'carousel');
  assert.deepEqual(await page.locator('.pw-page').evaluateAll((pages) => pages.map((one) => one.getAttribute('aria-label'))), ['1 of 3', '2 of 3', '3 of 3']);
  assert.equal(await currentPage(page), 0);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.pwNode), 'carousel');
  await page.keyboard.press('ArrowRight');
  assert.equal(await currentPage(page), 1);
  const box = (await page.locator('.pw-pages-viewport').boundingBox())!;
  const swipe = async (from: number, to: number) => {
    await page.mouse.move(box.x + from, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + to, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
  };
  await swipe(box.width - 20, 20);
  assert.equal(await currentPage(page), 2);
  await swipe(20, box.width - 20);
  assert.equal(await currentPage(page), 1);
  await page.locator('.pw-dot').first().click();
  assert.equal(await currentPage(page), 0);
  assert.deepEqual(await page.locator('.pw-dot').evaluateAll((dots) => dots.map((dot) => dot.getAttribute('aria-current'))), ['true', null, null]);

  // The countdowns change each second; the one that hides goes once it ends, the other stays at zero. The page's clock
  // stands still (drawn afresh: 6 s left) and moves a second at a time, so no step depends on how fast the machine is.
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 60_000);
  await draw(page, server, 'picker');
  assert.equal(await text(page, 'hiding'), 'Ends in 00:00:06');
  await page.clock.runFor(1000);
  assert.equal(await text(page, 'hiding'), 'Ends in 00:00:05');
  await page.clock.runFor(1000);
  assert.equal(await text(page, 'staying'), 'Ends in 00:00:04');
  await page.clock.runFor(4000);
  assert.equal(await page.locator('[data-pw-node="hiding"]').count(), 0);
  assert.equal(await text(page, 'staying'), 'Ends in 00:00:00');
  await page.clock.resume();

  // The video cannot be played here: its poster stands in.
  await page.locator('[data-pw-node="hero"].pw-video-poster').waitFor();

  // The theme: the title in the brand colour of each scheme; the font failed to load, and the text reads in the fallback family.
  const title = page.locator('[data-pw-node="title"]');
  assert.equal(await title.evaluate((el) => getComputedStyle(el).color), 'rgb(124, 58, 237)');
  assert.match(await title.evaluate((el) => getComputedStyle(el).fontFamily), /^"Brand Sans", system-ui/);
  await page.waitForFunction(() => [...(document as any).fonts].some((face: FontFace) => face.family === '"Brand Sans"' && face.status === 'error'), null, {
    timeout: 10_000,
  });
  const size = (await title.boundingBox())!;
  assert.ok(size.width > 50 && size.height > 20, `the title is drawn: ${JSON.stringify(size)}`);
  await page.addScriptTag({ url: '/axe.min.js' });
  assert.deepEqual(await axeViolations(page), []);
  await page.emulateMedia({ colorScheme: 'dark' });
  await paywall.locator('.pw-root.pw-dark').waitFor();
  assert.equal(await title.evaluate((el) => getComputedStyle(el).color), 'rgb(196, 181, 253)');
  assert.deepEqual(await axeViolations(page), []);
  // The app may decide the scheme itself.
  await page.evaluate(() => (window as any).view.update({ colorScheme: 'light' }));
  assert.equal(await title.evaluate((el) => getComputedStyle(el).color), 'rgb(124, 58, 237)');

  // Under reduced motion the video does not play by itself: its poster alone.
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await page.locator('img[data-pw-node="hero"]').waitFor();
  assert.equal(await page.locator('video').count(), 0);
  await page.emulateMedia({ reducedMotion: 'no-preference' });

  // show_if for a user the store says is not eligible: no trial copy, even on the plan that has one.
  await draw(page, server, 'picker', { prices: { ...PRICES, pro_annual: { ...PRICES.pro_annual, eligible_for_intro: false } } });
  assert.deepEqual(await checked(page), ['true', 'false', 'false']);
  assert.equal(await page.locator('[data-pw-node="trial"]').count(), 0);

  // The toggle switches the product and the {{selected.price}} text, by click and by Space.
  await draw(page, server, 'toggled');
  const toggle = paywall.getByRole('switch', { name: 'Free trial' });
  assert.equal(await toggle.getAttribute('aria-checked'), 'true');
  assert.equal(await text(page, 'selected-price'), '$49.99 per year');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-checked'), 'false');
  assert.equal(await text(page, 'selected-price'), '$9.99 per month');
  await paywall.getByRole('button', { name: 'Continue' }).click();
  await toggle.focus();
  await page.keyboard.press('Space');
  assert.equal(await toggle.getAttribute('aria-checked'), 'true');
  assert.equal(await text(page, 'selected-price'), '$49.99 per year');
  await paywall.getByRole('button', { name: 'Continue' }).click();
  assert.deepEqual(
    (await actions(page)).map((action) => `${action.type} ${action.product_id}`),
    ['select pro_monthly', 'purchase pro_monthly', 'select pro_annual', 'purchase pro_annual'],
  );
  assert.deepEqual(await axeViolations(page), []);

  // Nothing was refused by the CSP and nothing threw: the only errors are the fetches of the missing font and video.
  assert.deepEqual(
    errors.filter((error) => !/Failed to load resource/.test(error)),
    [],
  );
});
