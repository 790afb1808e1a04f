/**
 * The dashboard's "Create from template" and its preview in headless
 * Chromium, against the real bundle: the gallery's templates offered, each
 * slot matched to a product of the catalog, the package picker drawn as
 * selectable cards (only the selected one looking selected), sample prices
 * that follow how each product is billed, and the dark mode and "eligible
 * for intro offers" switches.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { spawnServe } from '../helpers/cli.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';

function keysFrom(output: string): { sdk: string; secret: string } {
  const sdk = /sdk key:\s+(pwk_sdk_\S+)/.exec(output)?.[1];
  const secret = /secret key:\s+(pwk_secret_\S+)/.exec(output)?.[1];
  assert.ok(sdk && secret, output);
  return { sdk, secret };
}

test(
  'a paywall created from a template: slots matched to the catalog, packages to pick, prices by period, dark and eligibility switches',
  needs(CHROMIUM_PROGRAM),
  async (t) => {
    const server = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db')]);
    const keys = keysFrom(server.output());
    const call = (method: string, route: string, body?: unknown) =>
      fetch(`${server.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${keys.secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // A catalog whose ids are not the templates': the slots are matched by how each product is billed.
    for (const [id, name] of [
      ['pro_monthly', 'Pro Monthly'],
      ['pro_yearly', 'Pro Yearly'],
      ['pro_forever', 'Pro Lifetime'],
    ]) {
      assert.equal((await call('PUT', `/api/products/${id}`, { name })).status, 201);
    }
    const { page, errors } = await openBrowser(t);
    await page.goto(`${server.url}/dashboard/`);
    await page.getByRole('button', { name: 'Sign in with an API key' }).click();
    await page.getByLabel('Secret key').fill(keys.secret);
    await page.getByRole('button', { name: 'Sign in with the key' }).click();

    // The gallery is offered, the package picker first; its slots get the yearly and the monthly product.
    const template = page.getByRole('group', { name: 'Template' });
    await page.getByLabel('Product in slot annual').waitFor();
    assert.equal(await template.getByRole('radio', { name: 'Annual vs monthly' }).isChecked(), true);
    assert.deepEqual(await template.locator('.template-name').allInnerTexts(), [
      'Single product',
      'Annual vs monthly',
      'Free-trial toggle',
      'Feature carousel',
      'Countdown sale',
      'Win-back offer',
      'Lifetime unlock',
      'Video hero',
    ]);
    assert.equal(await page.getByLabel('Product in slot annual').inputValue(), 'pro_yearly');
    assert.equal(await page.getByLabel('Product in slot monthly').inputValue(), 'pro_monthly');
    await page.getByLabel('Id (what apps ask for)').fill('picker');
    await page.getByRole('button', { name: 'Create from template' }).click();
    await page.getByRole('heading', { name: /picker/ }).waitFor();
    const created = await (await call('GET', '/api/paywalls/picker')).json();
    assert.deepEqual(created.document.slots, { annual: 'pro_yearly', monthly: 'pro_monthly' });

    // The preview: two cards to pick from, only the selected one looks selected; the yearly one is priced by the year.
    const preview = page.getByTestId('preview');
    const radios = preview.getByRole('radio');
    await radios.first().waitFor();
    assert.deepEqual(await radios.evaluateAll((all) => all.map((radio) => radio.getAttribute('aria-checked'))), ['true', 'false']);
    const border = (index: number) => radios.nth(index).evaluate((el) => getComputedStyle(el).borderTopColor);
    assert.notEqual(await border(0), await border(1));
    await preview.getByText('$49.99 per year, just $4.17 a month').waitFor();
    await preview.getByText('$9.99 per month').waitFor();
    assert.equal(await preview.locator('.pw-badge').innerText(), 'Save 58%');
    assert.equal(await preview.locator('.pw-purchase').innerText(), 'Continue with $49.99');
    await radios.nth(1).click();
    assert.deepEqual(await radios.evaluateAll((all) => all.map((radio) => radio.getAttribute('aria-checked'))), ['false', 'true']);
    assert.equal(await border(1), await page.evaluate(() => 'rgb(67, 56, 202)'));
    await preview.getByText('Continue with $9.99').click();
    await page.getByText('Purchase button: the app would buy pro_monthly (store id none for this platform).').waitFor();

    // Dark mode: the theme's dark colours.
    await page.getByLabel('Dark mode').check();
    await preview.locator('.pw-root.pw-dark').waitFor();
    assert.equal(await preview.locator('.pw-root > .pw-stack').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(17, 24, 39)');

    // The free-trial toggle: trial copy for a user the store says is eligible, the plain price for one it says is not.
    await page.getByRole('link', { name: 'Paywalls', exact: true }).click();
    await template.getByRole('radio', { name: 'Free-trial toggle' }).check();
    await page.getByLabel('Product in slot trial').waitFor();
    await page.getByLabel('Product in slot trial').selectOption('pro_yearly');
    await page.getByLabel('Id (what apps ask for)').fill('trial');
    await page.getByRole('button', { name: 'Create from template' }).click();
    await page.getByRole('heading', { name: /trial/ }).waitFor();
    await preview.getByText('7 days free, then $49.99 per year').waitFor();
    assert.equal(await preview.getByRole('switch', { name: 'Free trial' }).getAttribute('aria-checked'), 'true');
    await page.getByLabel('Eligible for intro offers').uncheck();
    await preview.getByText('$49.99 per year, cancel anytime').waitFor();
    assert.equal(await preview.getByText(/days free/).count(), 0);
    await preview.getByRole('button', { name: 'Subscribe now' }).waitFor();

    assert.deepEqual(
      errors.filter((message) => !message.startsWith('Failed to load resource')),
      [],
    );
  },
);
