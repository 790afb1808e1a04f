/**
 * Dashboard addresses that no page has, in headless Chromium against the
 * real bundle: a fragment that is not valid percent-encoding (#/paywalls/%E0,
 * a link cut short) shows "Page not found", on the first load and after a
 * reload, and the dashboard keeps working from there.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { spawnServe } from '../helpers/cli.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';

test('a malformed escape in the dashboard address shows "Page not found", even after a reload, never a blank page', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db')]);
  t.after(() => server.stop());
  const secret = /secret key:\s+(pwk_secret_\S+)/.exec(server.output())?.[1];
  assert.ok(secret, server.output());
  const { page, errors } = await openBrowser(t);
  await page.goto(`${server.url}/dashboard/`);
  await page.getByRole('button', { name: 'Sign in with an API key' }).click();
  await page.getByLabel('Secret key').fill(secret);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.getByRole('heading', { name: 'Paywalls' }).waitFor();

  for (const fragment of ['#/paywalls/%E0', '#/results/%', '#/%C3%28']) {
    await page.goto(`${server.url}/dashboard/${fragment}`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  }
  // The navigation still leads everywhere.
  await page.getByRole('link', { name: 'Go to the paywalls' }).click();
  await page.getByRole('heading', { name: 'Paywalls' }).waitFor();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Products' }).click();
  await page.getByRole('heading', { name: 'Products' }).waitFor();
  // Each load first asks whether a session cookie signs someone in (GET /api/auth/me: 401 for a key-signed tab); nothing else may fail.
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});
