/**
 * The dashboard end to end in headless Chromium, against the real bundle
 * (dist/paywalld.js, which embeds the dashboard) on a free port: from the
 * sign-in to a published paywall with its preview, events counted in the
 * list, products and keys. Screenshots of the main pages at 1280 and 390
 * pixels are taken on the way; `npm run screenshots` keeps them in docs/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { spawnServe } from '../helpers/cli.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';

const NARROW = { width: 390, height: 844 };
const WIDE = { width: 1280, height: 900 };

function keysFrom(output: string): { sdk: string; secret: string } {
  const sdk = /sdk key:\s+(pwk_sdk_\S+)/.exec(output)?.[1];
  const secret = /secret key:\s+(pwk_secret_\S+)/.exec(output)?.[1];
  assert.ok(sdk && secret, output);
  return { sdk, secret };
}

async function shoot(page: Page, dir: string, name: string, fullPage = true): Promise<void> {
  for (const [label, size] of [
    ['1280', WIDE],
    ['390', NARROW],
  ] as const) {
    await page.setViewportSize(size);
    // Layout settles in the next frame after a resize.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    // Nothing wider than the window: a page that scrolls sideways loses its right margin.
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 0.5);
      return { scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5).map((el) => `${el.tagName.toLowerCase()}.${el.className}`) };
    });
    assert.ok(
      overflow.scroll <= overflow.width,
      `${name} at ${label} px scrolls sideways (${overflow.scroll} > ${overflow.width}): ${overflow.wide.join(', ')}`,
    );
    const file = path.join(dir, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage });
    assert.ok(fs.statSync(file).size > 1000, `${file} is empty`);
  }
  await page.setViewportSize(WIDE);
}

test('from sign-in to a published, previewed paywall with events, products and keys, in Chromium', needs(CHROMIUM_PROGRAM), async (t) => {
  const dir = tempDir(t);
  const shots = process.env.PAYWALLD_SCREENSHOTS_DIR ?? tempDir(t);
  fs.mkdirSync(shots, { recursive: true });
  const server = await spawnServe(t, ['--db', path.join(dir, 'paywalld.db')]);
  const keys = keysFrom(server.output());
  const api = (method: string, route: string, key: string, body?: unknown) =>
    fetch(`${server.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const { page, errors } = await openBrowser(t, WIDE);

  // Sign in with a key (the secondary way in): / leads to the dashboard; a wrong key and an sdk key are each explained.
  await page.goto(`${server.url}/`);
  assert.equal(new URL(page.url()).pathname, '/dashboard/');
  await page.getByLabel('Email').waitFor();
  await shoot(page, shots, 'sign-in');
  await page.getByRole('button', { name: 'Sign in with an API key' }).click();
  const keyInput = page.getByLabel('Secret key');
  await keyInput.fill('pwk_secret_thisisnotarealkey000000000000');
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('alert').filter({ hasText: 'unknown or has been revoked' }).waitFor();
  await keyInput.fill(keys.sdk);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('alert').filter({ hasText: 'This is an SDK key' }).waitFor();
  await keyInput.fill(keys.secret);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('heading', { name: 'Paywalls' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('paywalld.secretKey')), keys.secret);

  // With an empty catalog the template would have no purchase button: the page says to create a product first.
  await page.getByRole('status').filter({ hasText: 'Create a product first' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Create from template' }).isDisabled(), true);

  // Products: two created through the form; the default template puts them in its slots.
  await page.getByRole('link', { name: 'Go to Products' }).click();
  for (const [id, name, appStore] of [
    ['pro_annual', 'Pro Annual', 'com.acme.pro.annual'],
    ['pro_monthly', 'Pro Monthly', 'com.acme.pro.monthly'],
  ]) {
    await page.getByLabel('Id', { exact: true }).fill(id!);
    await page.getByLabel('Name', { exact: true }).fill(name!);
    await page.getByLabel('App Store id').fill(appStore!);
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('cell', { name: new RegExp(name!) }).waitFor();
  }
  // Edited: the new name is what the API holds.
  await page.getByRole('button', { name: 'Edit pro_monthly' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Pro Monthly (intro)');
  await page.getByRole('button', { name: 'Save product' }).click();
  await page.getByRole('cell', { name: /Pro Monthly \(intro\)/ }).waitFor();
  assert.equal((await (await api('GET', '/api/products/pro_monthly', keys.secret)).json()).name, 'Pro Monthly (intro)');

  // Create a paywall from the template: the editor opens on revision 1.
  await page.getByRole('link', { name: 'Paywalls', exact: true }).click();
  await page.getByLabel('Id (what apps ask for)').fill('onboarding');
  await page.getByLabel('Name', { exact: true }).fill('Onboarding');
  await page.getByRole('button', { name: 'Create from template' }).click();
  await page.getByRole('heading', { name: /Onboarding/ }).waitFor();
  assert.equal(await page.getByText('Create a product first').count(), 0);
  assert.equal(new URL(page.url()).hash, '#/paywalls/onboarding');
  // The visual editor opens first; the JSON is a tab away.
  await page.getByRole('tab', { name: 'JSON' }).click();
  const editor = page.getByLabel('Document (JSON)');
  const starter = JSON.parse(await editor.inputValue());
  assert.deepEqual(starter.slots, { annual: 'pro_annual', monthly: 'pro_monthly' });
  await page.getByText('Valid: the server accepts this document.').waitFor();

  // A bad document: the server's 422 shows at its pointer, and the pointer leads to the place in the text.
  const bad = structuredClone(starter);
  bad.root.children[0].children[1].type = 'txt';
  await editor.fill(JSON.stringify(bad, null, 2));
  const problem = page.locator('[data-pointer="/root/children/0/children/1/type"]');
  await problem.waitFor();
  assert.match(await problem.innerText(), /Unknown component type/);
  await problem.getByRole('button').click();
  assert.equal(await editor.evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd)), '"txt"');
  await page.getByRole('button', { name: 'Save revision' }).click();
  await page.getByRole('alert').filter({ hasText: 'Not saved: the document is invalid' }).waitFor();
  assert.equal((await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json()).revision, 1);

  // A syntax error is shown with its line, before anything reaches the server.
  await editor.fill('{\n  "name": "Onboarding",\n  oops\n}');
  await page.getByText(/JSON syntax error on line 3/).waitFor();

  // Save a valid edit and publish it.
  const edited = structuredClone(starter);
  edited.strings.en.title = 'Go Pro today';
  await editor.fill(JSON.stringify(edited, null, 2));
  await page.getByText('Valid: the server accepts this document.').waitFor();
  await page.getByRole('button', { name: 'Save revision' }).click();
  await page.getByText(/Saved as revision 2/).waitFor();
  // Publishing asks first; Cancel publishes nothing.
  await page.getByRole('button', { name: 'Publish r2' }).click();
  const confirm = page.getByRole('dialog');
  await page.getByRole('dialog', { name: 'Publish r2?' }).waitFor();
  assert.match(await confirm.innerText(), /Apps get revision 2 from their next resolve: nothing is live yet\./);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json()).live_revision, null);
  await page.getByRole('button', { name: 'Publish r2' }).click();
  await confirm.getByRole('button', { name: 'Publish r2' }).click();
  await page.getByText(/Revision 2 is live/).waitFor();
  const live = await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json();
  assert.equal(live.live_revision, 2);

  // The preview: the server's resolve drawn by dist/render's renderer, in German when asked.
  const preview = page.getByTestId('preview');
  await preview.getByText('Go Pro today').waitFor();
  await page.getByLabel('Locale').selectOption('de');
  await preview.getByText('Werde Pro').waitFor();
  await preview.getByText('Weiter').waitFor();
  assert.match(await page.getByTestId('preview-summary').innerText(), /locale de/);
  await page.getByLabel('Revision', { exact: true }).selectOption('live');
  await preview.getByText('Werde Pro').waitFor();
  await page.getByLabel('Revision', { exact: true }).selectOption('draft');
  await page.getByLabel('Locale').selectOption('en');
  // The preview follows the document as it is typed.
  const retitled = structuredClone(edited);
  retitled.strings.en.title = 'Unlock everything';
  await editor.fill(JSON.stringify(retitled, null, 2));
  await preview.getByText('Unlock everything').waitFor();
  await shoot(page, shots, 'editor', false);

  // A conflicting save elsewhere is shown, not overwritten.
  const elsewhere = structuredClone(edited);
  elsewhere.strings.en.title = 'Saved by someone else';
  assert.equal((await api('PUT', '/api/paywalls/onboarding', keys.secret, elsewhere)).status, 200);
  await page.getByRole('button', { name: 'Save revision' }).click();
  const conflict = page.getByRole('alert').filter({ hasText: 'Someone else saved revision 3' });
  await conflict.waitFor();
  assert.match(await conflict.innerText(), /Saved by someone else/);
  assert.equal((await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json()).revision, 3);
  await page.getByRole('button', { name: 'Discard mine, load theirs' }).click();
  await page.getByText(/newest r3/).waitFor();
  assert.match(await editor.inputValue(), /Saved by someone else/);

  // Diff and roll back: r2 against r3, then r1 is published again.
  await page.getByLabel('From').selectOption('2');
  await page.getByLabel('To').selectOption('3');
  await page.getByRole('button', { name: 'Compare' }).click();
  await page.locator('.diff-add', { hasText: 'Saved by someone else' }).waitFor();
  await page.locator('.diff-del', { hasText: 'Go Pro today' }).waitFor();
  // A changed line reads as in a unified diff: the removed line, then the added one.
  const changedLines = await page.locator('.diff-add, .diff-del').allInnerTexts();
  assert.deepEqual(
    changedLines.map((line) => line.trim().replace(/^([-+])\s+/, '$1 ')),
    ['- "title": "Go Pro today",', '+ "title": "Saved by someone else",'],
  );
  await page.getByRole('button', { name: 'Roll back to this r1' }).click();
  assert.match(await confirm.innerText(), /instead of the newer r2 live now \(a rollback\)/);
  // r1 differs from r2 in its text only: the question says the phase goes on.
  await confirm.getByText('Revision 1 keeps the split: experiment phase 1 goes on, and its results with it.').waitFor();
  await confirm.getByRole('button', { name: 'Roll back to r1' }).click();
  await until(async () => (await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json()).live_revision === 1, 'the rollback to r1', 15_000, 100);
  await page.getByRole('button', { name: 'Publish r3' }).click();
  await confirm.getByRole('button', { name: 'Publish r3' }).click();
  await page.getByText(/Revision 3 is live/).waitFor();

  // Events through the SDK endpoint show up in the list's impressions of the last 7 days.
  const users = ['u1', 'u2', 'u3'];
  const events = [];
  for (const user of users) {
    const resolved = await (await api('GET', `/api/sdk/config?paywallId=onboarding&userId=${user}`, keys.sdk)).json();
    events.push({ type: 'screen_impression', paywall_id: 'onboarding', ts: Date.now(), id: `imp-${user}`, user_id: user, variant_id: resolved.variant.id });
  }
  const sent = await api('POST', '/api/sdk/events', keys.sdk, { events });
  assert.deepEqual(await sent.json(), { accepted: 3, duplicates: 0, rejected: [] });
  await page.getByRole('link', { name: 'Paywalls', exact: true }).click();
  const row = page.getByRole('row').filter({ hasText: 'onboarding' });
  await row.getByText('live', { exact: true }).waitFor();
  // The list shows "…" until each paywall's statistics arrive.
  const impressions = row.locator('td[data-label="Impressions, 7 days"]');
  await until(async () => (await impressions.innerText()).trim() !== '…', 'the impressions to load', 15_000, 100);
  assert.equal((await impressions.innerText()).trim(), '3');
  await shoot(page, shots, 'paywalls');

  // Results: a 50/50 split of two variants (a new phase), impressions from 60 users and purchases from some,
  // in two currencies; the page shows every variant with its figures and draws both charts.
  const detail = await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json();
  const split = {
    ...detail.document,
    variants: [
      { id: 'control', weight: 50 },
      { id: 'annual_first', weight: 50 },
    ],
    experiment: { guardrails: ['refund_rate'] },
  };
  assert.equal((await api('PUT', '/api/paywalls/onboarding', keys.secret, split)).status, 200);
  // Publishing a new split from the editor asks first: it starts a new phase, and says so once done.
  await page.goto(`${server.url}/dashboard/#/paywalls/onboarding`);
  await page.getByRole('button', { name: 'Publish r4' }).click();
  const newPhase = page.getByRole('dialog', { name: 'Publish r4?' });
  await newPhase.getByText(/ends experiment phase 1 and starts phase 2/).waitFor();
  await newPhase.getByRole('button', { name: 'Publish r4' }).click();
  await page.getByText(/It started experiment phase 2: results start empty/).waitFor();
  const exposed: Record<string, number> = { control: 0, annual_first: 0 };
  const experiment = [];
  for (let i = 0; i < 60; i++) {
    const user = `x${i}`;
    const resolved = await (await api('GET', `/api/sdk/config?paywallId=onboarding&userId=${user}`, keys.sdk)).json();
    const variant = resolved.variant.id as string;
    exposed[variant]!++;
    const now = Date.now();
    experiment.push({ type: 'screen_impression', paywall_id: 'onboarding', ts: now, id: `x-imp-${i}`, user_id: user, variant_id: variant });
    if (i % 4 === 0) {
      const money = i % 8 === 0 ? { revenue: 9.99, currency: 'USD' } : { revenue: 8.99, currency: 'EUR' };
      experiment.push({ type: 'purchase_complete', paywall_id: 'onboarding', ts: now + 1000, id: `x-buy-${i}`, user_id: user, variant_id: variant, ...money });
    }
  }
  assert.equal((await (await api('POST', '/api/sdk/events', keys.sdk, { events: experiment })).json()).accepted, experiment.length);
  // The server's records of x0, who bought for 9.99 USD: the purchase (a refund counts only against purchase records,
  // docs/guide/revenue.md), a refund of it, and a trial that converted.
  const later = Date.now() + 2000;
  const record = (id: string, type: string, revenue: number, ts: number) => ({ id, user_id: 'x0', type, ts, product_id: 'pro', revenue, currency: 'USD' });
  const records = [
    record('x0-bought', 'initial_purchase', 9.99, later - 1000),
    record('x0-refund', 'refund', 9.99, later),
    record('x0-trial', 'trial_started', 0, later),
    record('x0-paid', 'trial_converted', 4, later + 1000),
  ];
  assert.equal((await (await api('POST', '/api/purchases', keys.secret, { purchases: records })).json()).accepted, 4);
  const refunded = (await (await api('GET', '/api/sdk/config?paywallId=onboarding&userId=x0', keys.sdk)).json()).variant.id as string;
  await page.getByRole('link', { name: 'Results', exact: true }).click();
  // The only published paywall opens at once: nothing to choose.
  const table = page.getByRole('table', { name: /Variants of phase/ });
  await table.waitFor();
  assert.equal(await page.getByLabel('Paywall', { exact: true }).inputValue(), 'onboarding');
  await page.getByLabel('Paywall', { exact: true }).selectOption('onboarding');
  assert.equal(new URL(page.url()).hash, '#/results/onboarding');
  for (const variant of ['control', 'annual_first']) {
    const line = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${variant}`) }) });
    await line.waitFor();
    assert.equal((await line.locator('td[data-label="Exposed users"]').innerText()).trim(), String(exposed[variant]));
    if (variant !== refunded) continue;
    // Net revenue, the refund and the trial of x0 show in its variant's row.
    assert.match(await line.locator('td[data-label="Conversions"]').innerText(), /1 trial, 1 converted/);
    assert.match(await line.locator('td[data-label="Net revenue per user, USD"]').innerText(), /after 9\.99 refunded/);
    // Too few payers for an interval: the cell says so rather than showing one.
    assert.match(await line.locator('td[data-label="Net revenue per user, USD"]').innerText(), /payers?: intervals from 100/);
    // With a trial started, the trial started rate has its column: 1 of the variant's exposed users.
    assert.match(await line.locator('td[data-label="Trial started"]').innerText(), new RegExp(`^${((100 * 1) / exposed[variant]!).toFixed(2)} %`));
  }
  await page.getByRole('columnheader', { name: 'Trial started (95 % interval)' }).waitFor();
  await page.getByRole('columnheader', { name: 'Net revenue per user, EUR' }).waitFor();
  await page.getByRole('columnheader', { name: 'Net revenue per user, USD' }).waitFor();
  // uPlot draws each chart on a canvas, with a legend naming the variants.
  await page.locator('.chart canvas').nth(1).waitFor();
  assert.equal(await page.locator('.chart canvas').count(), 2);
  assert.ok(
    await page
      .locator('.chart canvas')
      .first()
      .evaluate((canvas: HTMLCanvasElement) => canvas.width > 0 && canvas.height > 0),
  );
  await page.locator('.chart .u-legend').first().getByText('annual_first').waitFor();
  // 60 users cannot give enough data: the decision, shown first, says so rather than crowning a winner,
  // and the power line says how many users each variant needs and how many more days that is.
  const decision = page.getByRole('region', { name: /^Decision:/ });
  await decision.waitFor();
  assert.match(await decision.innerText(), /Decision: Not enough data yet[\s\S]*keep the experiment running[\s\S]*sequential analysis/);
  // The decision box says in words what the guardrails, CUPED and the expected loss say.
  assert.match(await decision.innerText(), /Guardrails: refund rate; no variant is significantly worse on it/);
  assert.match(
    await decision.innerText(),
    /Variance reduction \(CUPED\) is off: \d+ % of exposed users bought before they saw the paywall \(it turns on from 10 %\)/,
  );
  assert.match(
    await page.locator('.power').innerText(),
    /^Power: to detect a \+10\.0 % lift with 80 % power \(sequential analysis, daily looks\), each variant needs [\d,]+ exposed users; the smallest variant has \d+ users: about [\d,]+ more days? at this phase's traffic so far\.$/,
  );
  await page.getByRole('columnheader', { name: 'Expected loss' }).waitFor();
  await page.getByRole('columnheader', { name: 'Guardrails' }).waitFor();
  await page.getByRole('columnheader', { name: 'p-value (adjusted)' }).waitFor();
  await page.getByRole('columnheader', { name: 'Chance to be best' }).waitFor();
  await shoot(page, shots, 'results');
  // A broken split: in a new phase, the app reports 40 users in control and 2 in annual_first for a 50/50 split.
  // The sample-ratio check fails and the page says so above the table.
  assert.equal((await api('POST', '/api/paywalls/onboarding/publish', keys.secret, { new_phase: true })).status, 200);
  const skewed = Array.from({ length: 42 }, (_, i) => ({
    type: 'screen_impression',
    paywall_id: 'onboarding',
    ts: Date.now(),
    id: `skew-${i}`,
    user_id: `s${i}`,
    variant_id: i < 40 ? 'control' : 'annual_first',
  }));
  assert.equal((await (await api('POST', '/api/sdk/events', keys.sdk, { events: skewed })).json()).accepted, 42);
  await page.goto(`${server.url}/dashboard/#/results/onboarding/3/-`);
  await page.getByRole('alert').filter({ hasText: 'Sample ratio mismatch' }).waitFor();
  assert.match(await page.getByRole('alert').filter({ hasText: 'Sample ratio mismatch' }).innerText(), /control: 40 seen, 21 expected/);

  // The publish question shows what the server says the publish would do (the revision's starts_phase):
  // annual_first made a holdout (same weights) starts phase 4, with a warning; a text change keeps phase 3, without one.
  const phase3 = (await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json()).document;
  const withHoldout = { ...phase3, variants: [phase3.variants[0], { ...phase3.variants[1], holdout: true }] };
  assert.deepEqual(withHoldout.variants, [
    { id: 'control', weight: 50 },
    { id: 'annual_first', weight: 50, holdout: true },
  ]);
  assert.equal((await api('PUT', '/api/paywalls/onboarding', keys.secret, withHoldout)).status, 200);
  await page.goto(`${server.url}/dashboard/#/paywalls/onboarding`);
  await page.getByRole('button', { name: 'Publish r5' }).click();
  const holdoutAsked = page.getByRole('dialog', { name: 'Publish r5?' });
  await holdoutAsked
    .locator('.banner-warning')
    .getByText(/changes the split .*ends experiment phase 3 and starts phase 4/)
    .waitFor();
  await holdoutAsked.getByRole('button', { name: 'Cancel' }).click();
  const retitledOnly = { ...phase3, strings: { ...phase3.strings, en: { ...phase3.strings.en, title: 'Go Pro now' } } };
  assert.equal((await api('PUT', '/api/paywalls/onboarding', keys.secret, retitledOnly)).status, 200);
  await page.reload();
  await page.getByRole('button', { name: 'Publish r6' }).click();
  const textAsked = page.getByRole('dialog', { name: 'Publish r6?' });
  await textAsked.getByText('Revision 6 keeps the split: experiment phase 3 goes on, and its results with it.').waitFor();
  assert.equal(await textAsked.locator('.banner-warning').count(), 0);
  await textAsked.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await (await api('GET', '/api/paywalls/onboarding', keys.secret)).json()).live_revision, 4);

  // A product in a live slot cannot be deleted, and the dashboard says why.
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('button', { name: 'Delete pro_annual' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete product' }).click();
  await page.getByRole('alert').filter({ hasText: 'pro_annual cannot be deleted' }).waitFor();
  assert.match(await page.getByRole('alert').innerText(), /live paywall/);
  await shoot(page, shots, 'products');

  // Keys: a new key is shown once with a copy button; revoking asks first and takes effect at once.
  await page.getByRole('link', { name: 'Keys', exact: true }).click();
  await page.getByLabel('Scope').selectOption('sdk');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByLabel('New sdk key');
  await shown.waitFor();
  const newKey = await shown.inputValue();
  assert.match(newKey, /^pwk_sdk_/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), newKey);
  assert.equal((await api('GET', '/api/sdk/config?paywallId=onboarding', newKey)).status, 200);
  await shoot(page, shots, 'keys');
  const listed = (await (await api('GET', '/api/keys', keys.secret)).json()).keys as { prefix: string }[];
  const prefix = listed.find((key) => newKey.startsWith(key.prefix))!.prefix;
  await page.getByRole('button', { name: `Revoke ${prefix}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await api('GET', '/api/sdk/config?paywallId=onboarding', newKey)).status, 200);
  await page.getByRole('button', { name: `Revoke ${prefix}` }).click();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await page
    .getByRole('row')
    .filter({ hasText: prefix })
    .getByText(/^revoked/)
    .waitFor();
  assert.equal((await api('GET', '/api/sdk/config?paywallId=onboarding', newKey)).status, 401);

  // Signing out forgets the key.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Email').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('paywalld.secretKey')), null);

  // Refused requests (the wrong keys, the 422, the 409, the 412) are expected; nothing else went wrong, no CSP violation included.
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});

/** One node of every type the server accepts, with their props, and a fallback. */
const EVERY_TYPE = {
  name: 'Every component',
  default_locale: 'en',
  strings: { en: { title: 'All of them', alt: 'A picture' } },
  slots: { primary: 'pro' },
  root: {
    type: 'stack',
    props: { axis: 'vertical', spacing: 4, padding: 8, background: '#FAFAFA' },
    children: [
      { type: 'text', props: { text_key: 'title', style: { font_size: 30, font_weight: 'bold', color: '#FF0000', alignment: 'center' } } },
      { type: 'image', props: { url: 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', alt_key: 'alt', aspect_ratio: 2 } },
      {
        type: 'stack',
        props: { axis: 'horizontal', alignment: 'center' },
        children: [
          { type: 'icon', props: { name: 'star', size: 24, color: '#FFAA00' } },
          { type: 'spacer', props: { size: 10 } },
          { type: 'text', props: { text: 'Rated' } },
        ],
      },
      { type: 'stack', props: { axis: 'z' }, children: [{ type: 'spacer' }, { type: 'text', props: { text: 'On top' } }] },
      { type: 'product', props: { slot: 'primary' } },
      { type: 'text', props: { text: 'Only {{primary.price}} per {{primary.period}}' } },
      { type: 'purchase_button', props: { slot: 'primary', text: 'Buy' } },
      {
        type: 'button',
        props: { action: 'open_url', url: 'https://example.com/help', text: 'Help' },
        fallback: { type: 'text', props: { text: 'Help is online' } },
      },
      { type: 'link', props: { kind: 'terms', text: 'Terms', url: 'https://example.com/terms' } },
    ],
  },
};

test('the preview draws every component type with its props, and fallbacks on request; the keyboard alone signs in', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db')]);
  const keys = keysFrom(server.output());
  const put = (route: string, body: unknown) =>
    fetch(`${server.url}${route}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  assert.equal((await put('/api/products/pro', { name: 'Pro', store_ids: { app_store: 'com.acme.pro' } })).status, 201);
  assert.equal((await put('/api/paywalls/every', EVERY_TYPE)).status, 201);
  const { page, errors } = await openBrowser(t);

  // The first owner's link, redeemed through the API; then the keyboard alone signs in with the email and password.
  const link = /The first owner signs up at \S+\/accept\/(\S+)/.exec(server.output())![1]!;
  const joined = await fetch(`${server.url}/api/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: link, email: 'owner@example.com', password: 'the owner password' }),
  });
  assert.equal(joined.status, 200);
  await page.goto(`${server.url}/dashboard/#/paywalls/every`);
  // The sign-in form is drawn once the page has asked who is signed in.
  await page.locator('#email').waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'email');
  await page.keyboard.type('owner@example.com');
  await page.keyboard.press('Tab');
  await page.keyboard.type('the owner password');
  await page.keyboard.press('Enter');
  const preview = page.getByTestId('preview');
  await preview.getByText('All of them').waitFor();

  const title = preview.locator('.pw-text', { hasText: 'All of them' });
  assert.deepEqual(
    await title.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).fontSize, getComputedStyle(el).fontWeight, getComputedStyle(el).textAlign]),
    ['rgb(255, 0, 0)', '30px', '700', 'center'],
  );
  // The image loaded: the CSP lets data: images through.
  const image = preview.getByRole('img', { name: 'A picture' });
  await page.waitForFunction(() => (document.querySelector('.pw-image') as HTMLImageElement | null)?.naturalWidth === 1);
  assert.equal(await image.evaluate((el) => getComputedStyle(el).aspectRatio), '2 / 1');
  assert.equal(await preview.getByRole('img', { name: 'star' }).innerText(), '★');
  assert.equal(await preview.locator('.pw-spacer').count(), 2);
  assert.equal(await preview.locator('.pw-stack-z').count(), 1);
  assert.equal(await preview.locator('.pw-root > .pw-stack').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(250, 250, 250)');
  await preview.locator('.pw-product', { hasText: 'Pro' }).waitFor();
  // The renderer's constructed stylesheet applies under the dashboard's CSP (style-src 'self').
  assert.equal(await preview.getByRole('button', { name: 'Buy' }).evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(67, 56, 202)');
  assert.equal(await preview.getByRole('link', { name: 'Terms' }).getAttribute('href'), 'https://example.com/terms');

  // Taps say what they would ask the app to do; the platform picks the store id.
  await preview.getByRole('button', { name: 'Help' }).click();
  await page.getByText('The app would open https://example.com/help.').waitFor();
  await preview.getByRole('button', { name: /Buy/ }).click();
  await page.getByText('Purchase button: the app would buy pro (store id none for this platform).').waitFor();
  await page.getByLabel('Platform').selectOption('ios');
  await preview.getByRole('button', { name: /Buy/ }).click();
  await page.getByText('Purchase button: the app would buy pro (store id com.acme.pro).').waitFor();

  // The price variables are filled from the editor's sample prices; without a price the text hides and the button is disabled.
  await preview.getByText('Only $9.99 per month').waitFor();
  await page.getByText('Sample store prices').click();
  await page.getByLabel('Price', { exact: true }).fill('49.99');
  await page.getByLabel('Period', { exact: true }).selectOption('P1Y');
  await preview.getByText('Only $49.99 per year').waitFor();
  await page.getByLabel('Priced').uncheck();
  await preview.getByText(/^Only/).waitFor({ state: 'detached' });
  assert.equal(await preview.getByRole('button', { name: 'Buy' }).isDisabled(), true);
  assert.doesNotMatch(await preview.innerText(), /\{\{/);

  // As an older app: the node with a fallback is replaced by it.
  await page.getByLabel('Show fallbacks (as an older app)').check();
  await preview.getByText('Help is online').waitFor();
  assert.equal(await preview.getByRole('button', { name: 'Help' }).count(), 0);

  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});

test('the paywall list reads every statistic under a tight management rate limit, waiting as the 429s say', needs(CHROMIUM_PROGRAM), async (t) => {
  const db = path.join(tempDir(t), 'paywalld.db');
  const seeding = await spawnServe(t, ['--db', db, '--rate-limit-api', '0']);
  const keys = keysFrom(seeding.output());
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  for (const id of ids) {
    const document = { name: `Paywall ${id}`, default_locale: 'en', strings: { en: { title: id } }, root: { type: 'text', props: { text_key: 'title' } } };
    const response = await fetch(`${seeding.url}/api/paywalls/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(document),
    });
    assert.equal(response.status, 201);
  }
  assert.equal(await seeding.stop(), 0);

  // One request per second, two at once: the list and its six statistics cannot all pass at first.
  const server = await spawnServe(t, ['--db', db, '--rate-limit-api', '1']);
  const { page, errors } = await openBrowser(t);
  await page.goto(`${server.url}/dashboard/`);
  await page.getByRole('button', { name: 'Sign in with an API key' }).click();
  await page.getByLabel('Secret key').fill(keys.secret);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  const cells = page.locator('td[data-label="Impressions, 7 days"]');
  await until(async () => (await cells.allInnerTexts()).length === ids.length, 'the list', 15_000, 100);
  await until(async () => (await cells.allInnerTexts()).every((text) => text.trim() === '0'), 'every statistic', 30_000, 100);
  // The 429s were met and waited out, not shown.
  assert.ok(
    errors.some((message) => message.includes('429')),
    errors.join('\n'),
  );
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});
