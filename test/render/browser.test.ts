/**
 * dist/render in headless Chromium: a web app on another origin resolves a
 * paywall from a real server with dist/client and draws it with
 * renderPaywall. Every component type, every price variable in two locales,
 * an unpriced product, every action by mouse and keyboard, update and
 * destroy, dark mode and reduced motion, and no axe-core violation.
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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FILES: Record<string, string> = {
  '/render/index.js': path.join(ROOT, 'dist/render/index.js'),
  '/client/index.js': path.join(ROOT, 'dist/client/index.js'),
  '/axe.min.js': path.join(ROOT, 'node_modules/axe-core/axe.min.js'),
};

const VARIABLES = ['price', 'price_per_month', 'price_per_week', 'period', 'trial', 'intro_price', 'intro_period', 'product_name'];
const EVERY_VARIABLE = VARIABLES.map((name) => `${name}={{annual.${name}}}`).join('; ');
const GIF = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/** One node of every type, every variable in both locales, and a second product the app has no price for. */
const PAYWALL = {
  name: 'Rendered',
  default_locale: 'en',
  strings: {
    en: {
      title: 'Go Pro',
      offer: EVERY_VARIABLE,
      monthly: 'Monthly: {{monthly.price}}',
      picture: 'Picture of {{annual.product_name}}',
      buy: 'Start for {{annual.price}}',
    },
    de: {
      title: 'Werde Pro',
      offer: EVERY_VARIABLE,
      monthly: 'Monatlich: {{monthly.price}}',
      picture: 'Bild von {{annual.product_name}}',
      buy: 'Los für {{annual.price}}',
    },
  },
  slots: { annual: 'pro_annual', monthly: 'pro_monthly' },
  root: {
    type: 'stack',
    props: { axis: 'vertical', spacing: 6, padding: 12, alignment: 'center' },
    children: [
      { type: 'button', props: { action: 'close', text: 'Close' } },
      { type: 'text', props: { text_key: 'title', style: { font_size: 28, font_weight: 'bold', color: '#7C3AED', alignment: 'center' } } },
      { type: 'image', props: { url: GIF, alt_key: 'picture', aspect_ratio: 2 } },
      {
        type: 'stack',
        props: { axis: 'horizontal', background: '#FFF7ED' },
        children: [
          { type: 'icon', props: { name: 'star', size: 18, color: '#9A3412' } },
          { type: 'spacer', props: { size: 4 } },
          { type: 'text', props: { text: 'Rated 4.8' } },
        ],
      },
      { type: 'stack', props: { axis: 'z' }, children: [{ type: 'spacer' }, { type: 'text', props: { text: 'On top' } }] },
      { type: 'text', id: 'offer', props: { text_key: 'offer' } },
      { type: 'text', id: 'monthly-text', props: { text_key: 'monthly' } },
      { type: 'product', props: { slot: 'annual' } },
      { type: 'product', props: { slot: 'monthly' } },
      { type: 'purchase_button', id: 'buy-annual', props: { slot: 'annual', text_key: 'buy' } },
      { type: 'purchase_button', id: 'buy-monthly', props: { slot: 'monthly', text: 'Monthly {{monthly.price}}' } },
      { type: 'button', props: { action: 'restore', text: 'Restore purchases' } },
      {
        type: 'button',
        props: { action: 'open_url', url: 'https://example.com/help', text: 'Help' },
        fallback: { type: 'text', props: { text: 'Help is online' } },
      },
      { type: 'button', id: 'quiz', props: { action: 'custom', text: 'Take the quiz' } },
      {
        type: 'stack',
        props: { axis: 'horizontal' },
        children: [
          { type: 'link', props: { kind: 'terms', text: 'Terms', url: 'https://example.com/terms' } },
          { type: 'link', props: { kind: 'privacy', text: 'Privacy', url: 'https://example.com/privacy' } },
        ],
      },
    ],
  },
};

const ANNUAL = { amount: 49.99, period: 'P1Y', trial: 'P7D', intro: { amount: 1.99, period: 'P1M', cycles: 3 }, eligible_for_intro: true };

/** The app's own web server, on another origin than paywalld: a page with a landmark and a heading, and the built files. */
async function appOrigin(t: TestContext): Promise<string> {
  const server = http.createServer((req, res) => {
    const file = FILES[req.url ?? ''];
    if (file) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(fs.readFileSync(file));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html lang="en"><title>app</title><main><h1 tabindex="-1">Upgrade</h1><div id="paywall"></div></main>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://localhost:${(server.address() as net.AddressInfo).port}`;
}

/** Text as a person reads it: Intl's no-break and narrow no-break spaces as plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

/** The `name=value` pairs of the offer text. */
async function offer(page: Page): Promise<Record<string, string>> {
  const text = plain(await page.locator('[data-pw-node="offer"]').innerText());
  return Object.fromEntries(text.split('; ').map((pair) => pair.split('=') as [string, string]));
}

async function axeViolations(page: Page): Promise<Json[]> {
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation: Json) => ({ id: violation.id, nodes: violation.nodes.map((node: Json) => node.target) }));
  });
}

test('renderPaywall draws a resolved paywall with store prices, in two locales, and reports every action', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await startTestServer(t);
  const client = api(server);
  await client.putProduct('pro_annual', { name: 'Pro Annual', store_ids: { stripe: 'price_annual' } });
  await client.putProduct('pro_monthly', { name: 'Pro Monthly', store_ids: { stripe: 'price_monthly' } });
  await client.putPaywall('rendered', PAYWALL);
  await client.publish('rendered');
  const origin = await appOrigin(t);
  const { context, page, errors } = await openBrowser(t, { width: 420, height: 1200 });
  await page.goto(`${origin}/`);

  // The app: resolve with the client, draw with the renderer, collect actions.
  await page.evaluate(
    async ({ baseUrl, apiKey, annual }) => {
      const { createClient } = await import('/client/index.js' as string);
      const { renderPaywall } = await import('/render/index.js' as string);
      const paywalld = createClient({ baseUrl, apiKey, platform: 'web' });
      const english = (await paywalld.getPaywall('rendered', { locale: 'en' })).paywall;
      const german = (await paywalld.getPaywall('rendered', { locale: 'de' })).paywall;
      const w = window as any;
      w.actions = [];
      w.german = german;
      w.prices = { pro_annual: { ...annual, currency: 'EUR' } };
      w.view = renderPaywall(document.getElementById('paywall'), english, {
        prices: { pro_annual: { ...annual, currency: 'USD' } },
        // Bound, not an arrow function: tsx names functions with a helper the page does not have.
        onAction: w.actions.push.bind(w.actions),
      });
    },
    { baseUrl: server.url, apiKey: server.keys.sdk, annual: ANNUAL },
  );
  const paywall = page.locator('#paywall');

  // Every component type is drawn, as the element a browser and a screen reader expect.
  assert.deepEqual(
    await paywall.evaluate((el) =>
      [...new Set([...el.querySelectorAll('[data-pw-path]')].map((node) => `${node.tagName.toLowerCase()}.${node.classList[0]}`))].sort(),
    ),
    ['a.pw-link', 'button.pw-button', 'button.pw-purchase', 'div.pw-product', 'div.pw-spacer', 'div.pw-stack', 'img.pw-image', 'p.pw-text', 'span.pw-icon'],
  );
  const title = paywall.getByText('Go Pro', { exact: true });
  assert.deepEqual(
    await title.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).fontSize, getComputedStyle(el).fontWeight, getComputedStyle(el).textAlign]),
    ['rgb(124, 58, 237)', '28px', '700', 'center'],
  );
  await page.waitForFunction(() => (document.querySelector('.pw-image') as HTMLImageElement | null)?.naturalWidth === 1);
  assert.equal(await paywall.getByRole('img', { name: 'Picture of Pro Annual' }).evaluate((el) => getComputedStyle(el).aspectRatio), '2 / 1');
  assert.equal(await paywall.getByRole('img', { name: 'star' }).innerText(), '★');
  assert.equal(await paywall.locator('.pw-stack-z').count(), 1);
  assert.equal(await paywall.locator('.pw-spacer').count(), 2);
  assert.equal(await paywall.getByRole('link', { name: 'Privacy' }).getAttribute('href'), 'https://example.com/privacy');
  assert.deepEqual((await paywall.locator('.pw-product').allInnerTexts()).map(plain), ['Pro Annual\n$49.99 / year', 'Pro Monthly']);

  // Every variable, in English with dollars…
  assert.deepEqual(await offer(page), {
    price: '$49.99',
    price_per_month: '$4.17',
    price_per_week: '$0.96',
    period: 'year',
    trial: '7 days',
    intro_price: '$1.99',
    intro_period: '3 months',
    product_name: 'Pro Annual',
  });
  // …the product without a price: its text hidden, its button disabled, no variable on screen.
  assert.equal(await page.locator('[data-pw-node="monthly-text"]').count(), 0);
  assert.equal(await paywall.getByRole('button', { name: 'Monthly' }).isDisabled(), true);
  assert.equal(await paywall.getByRole('button', { name: 'Start for $49.99' }).isEnabled(), true);
  assert.doesNotMatch(await paywall.innerText(), /\{\{|\}\}/);

  // Each action, by mouse.
  for (const name of ['Close', 'Start for $49.99', 'Restore purchases', 'Help', 'Take the quiz']) await paywall.getByRole('button', { name }).click();
  await paywall.getByRole('link', { name: 'Terms' }).click();
  // The disabled button reports nothing.
  await paywall.getByRole('button', { name: 'Monthly' }).click({ force: true });
  assert.deepEqual(await page.evaluate(() => (window as any).actions.splice(0)), [
    { type: 'close' },
    { type: 'purchase', slot: 'annual', product_id: 'pro_annual', store_product_id: 'price_annual' },
    { type: 'restore' },
    { type: 'link', url: 'https://example.com/help' },
    { type: 'custom', node_id: 'quiz' },
    { type: 'link', url: 'https://example.com/terms' },
  ]);
  // The app handled the link: the page did not navigate, and no window opened.
  assert.equal(page.url(), `${origin}/`);
  assert.equal(context.pages().length, 1);

  // The keyboard: Tab visits the enabled controls in the tree's order (the disabled button is skipped); Enter and Space press them.
  await page.evaluate(() => document.querySelector('h1')!.focus());
  const order: string[] = [];
  for (let i = 0; i < 7; i++) {
    await page.keyboard.press('Tab');
    order.push(plain(await page.evaluate(() => document.activeElement?.textContent ?? '')));
  }
  assert.deepEqual(order, ['Close', 'Start for $49.99', 'Restore purchases', 'Help', 'Take the quiz', 'Terms', 'Privacy']);
  await paywall.getByRole('button', { name: 'Close' }).focus();
  await page.keyboard.press('Enter');
  await paywall.getByRole('button', { name: 'Restore purchases' }).focus();
  await page.keyboard.press('Space');
  await paywall.getByRole('link', { name: 'Privacy' }).focus();
  await page.keyboard.press('Enter');
  assert.deepEqual(await page.evaluate(() => (window as any).actions.splice(0)), [
    { type: 'close' },
    { type: 'restore' },
    { type: 'link', url: 'https://example.com/privacy' },
  ]);

  // Accessible by default, in light mode with motion, and in dark mode with reduced motion.
  await page.addScriptTag({ url: '/axe.min.js' });
  assert.deepEqual(await axeViolations(page), []);
  const restore = paywall.getByRole('button', { name: 'Restore purchases' });
  assert.equal(await restore.evaluate((el) => getComputedStyle(el).transitionDuration), '0.12s');
  assert.equal(await paywall.locator('.pw-root').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  // The renderer follows the system's scheme: it draws again in dark.
  await paywall.locator('.pw-root.pw-dark').waitFor();
  assert.equal(await restore.evaluate((el) => getComputedStyle(el).transitionDuration), '0s');
  assert.equal(await paywall.locator('.pw-root').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(22, 22, 26)');
  assert.equal(await restore.evaluate((el) => getComputedStyle(el).color), 'rgb(241, 241, 244)');
  // A stack with its own light background keeps dark text on it.
  assert.equal(await paywall.getByText('Rated 4.8').evaluate((el) => getComputedStyle(el).color), 'rgb(17, 17, 17)');
  assert.deepEqual(await axeViolations(page), []);
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  await paywall.locator('.pw-root:not(.pw-dark)').waitFor();

  // update(): the German answer and euro prices, the focus kept on the control that had it.
  await restore.focus();
  await page.evaluate(() => {
    const w = window as any;
    w.view.update(w.german);
    w.view.update({ prices: w.prices });
  });
  assert.equal(await paywall.locator('.pw-root').getAttribute('lang'), 'de');
  assert.deepEqual(await offer(page), {
    price: '49,99 €',
    price_per_month: '4,17 €',
    price_per_week: '0,96 €',
    period: 'Jahr',
    trial: '7 Tage',
    intro_price: '1,99 €',
    intro_period: '3 Monate',
    product_name: 'Pro Annual',
  });
  await paywall.getByText('Werde Pro').waitFor();
  await paywall.getByRole('img', { name: 'Bild von Pro Annual' }).waitFor();
  assert.equal(plain(await paywall.locator('[data-pw-node="buy-annual"]').innerText()), 'Los für 49,99 €');
  assert.equal(await page.locator('[data-pw-node="monthly-text"]').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Restore purchases');

  // Prices gone: every price text hidden and both purchase buttons disabled; as an older app, fallbacks drawn.
  await page.evaluate(() => (window as any).view.update({ prices: {}, asOlderApp: true }));
  assert.equal(await page.locator('[data-pw-node="offer"]').count(), 0);
  assert.deepEqual(await paywall.locator('.pw-purchase').evaluateAll((buttons) => buttons.map((b) => (b as HTMLButtonElement).disabled)), [true, true]);
  await paywall.getByText('Help is online').waitFor();
  assert.equal(await paywall.getByRole('button', { name: 'Help' }).count(), 0);
  assert.doesNotMatch(await paywall.innerText(), /\{\{|\}\}/);

  // destroy() leaves the app's element as it found it.
  await page.evaluate(() => (window as any).view.destroy());
  assert.equal(await paywall.evaluate((el) => el.childElementCount), 0);
  assert.deepEqual(errors, []);
});
