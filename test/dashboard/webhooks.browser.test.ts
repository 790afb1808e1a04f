/**
 * The Webhooks page, in headless Chromium against the real bundle: an owner
 * adds an endpoint and copies its secret, sends a test that the receiver
 * verifies with it, sees a failed delivery with its answer and sends it
 * again; an analyst sees endpoints and deliveries and is offered no change,
 * told why; a viewer is not offered the page.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { type ServeProcess, spawnServe } from '../helpers/cli.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';
import { startReceiver, verified } from '../helpers/webhooks.ts';

const PASSWORD = 'a long enough password';

async function join(server: ServeProcess, token: string, email: string): Promise<string> {
  const joined = await fetch(`${server.url}/api/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, email, password: PASSWORD }),
  });
  assert.equal(joined.status, 200);
  return /paywalld_session=([^;]+)/.exec(joined.headers.get('set-cookie')!)![1]!;
}

async function invite(server: ServeProcess, cookie: string, project: string, email: string, role: string): Promise<void> {
  const invited = await fetch(`${server.url}/api/projects/${project}/invitations`, {
    method: 'POST',
    headers: { cookie: `paywalld_session=${cookie}`, 'x-paywalld-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ email, role }),
  });
  const url = (await invited.json()).url as string;
  await join(server, url.slice(url.lastIndexOf('/') + 1), email);
}

async function signIn(page: Page, url: string, email: string): Promise<void> {
  await page.goto(`${url}/dashboard/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Clicks Refresh until the deliveries table has a row with `text` (the page does not poll by itself). */
async function row(page: Page, text: string): Promise<void> {
  const found = page.getByRole('table', { name: 'Deliveries, newest first' }).getByRole('row').filter({ hasText: text });
  await until(
    async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await found.count()) > 0;
    },
    `a delivery ${text}`,
    15_000,
    100,
  );
}

test('an owner adds, tests and retries webhooks; an analyst only looks; a viewer is not offered them', needs(CHROMIUM_PROGRAM), async (t) => {
  // 24 hours of retries in 4.3 s: a delivery to a receiver that is down fails within the test.
  const server = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db'), '--webhooks-allow-private', '--webhooks-backoff-scale', '0.00005']);
  const token = /The first owner signs up at \S+\/accept\/(\S+)/.exec(server.output())![1]!;
  const project = /Created project "default" \((\S+)\)/.exec(server.output())![1]!;
  const ownerCookie = await join(server, token, 'owner@example.com');
  await invite(server, ownerCookie, project, 'ana@example.com', 'analyst');
  await invite(server, ownerCookie, project, 'vi@example.com', 'viewer');
  const receiver = await startReceiver(t);
  let up = false;
  const down = await startReceiver(t, () => (up ? 200 : 503));
  const { page, errors } = await openBrowser(t);

  await signIn(page, server.url, 'owner@example.com');
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByText('No endpoint yet.').waitFor();
  await page.getByLabel('Name').fill('crm');
  await page.getByLabel('URL').fill(receiver.url);
  await page.getByRole('checkbox', { name: 'key.created' }).check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = await page.getByLabel('Signing secret').inputValue();
  assert.match(secret, /^whsec_/);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Send test to crm' }).click();
  await row(page, 'answered 200');
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0]!.event.type, 'test');
  assert.ok(verified(secret, receiver.received[0]!), 'the secret the page showed verifies the delivery');

  await page.getByLabel('Name').fill('warehouse');
  await page.getByLabel('URL').fill(down.url);
  await page.getByRole('checkbox', { name: 'key.created' }).check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Send test to warehouse' }).click();
  await row(page, 'failed');
  const failed = page.getByRole('table', { name: 'Deliveries, newest first' }).getByRole('row').filter({ hasText: 'failed' });
  assert.match(await failed.innerText(), /answered 503/);
  up = true;
  await failed.getByRole('button', { name: /^Send again/ }).click();
  await row(page, 'succeeded');

  // Changing an endpoint keeps its name; disabling it shows.
  await page.getByRole('button', { name: 'Change warehouse' }).click();
  await page.getByLabel('Enabled').uncheck();
  await page.getByRole('button', { name: 'Save endpoint' }).click();
  await page.getByRole('row').filter({ hasText: 'warehouse' }).filter({ hasText: 'disabled' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();

  await signIn(page, server.url, 'ana@example.com');
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page
    .getByRole('note')
    .filter({ hasText: 'Adding, changing, testing and deleting webhooks needs the owner role; you are analyst in this project.' })
    .waitFor();
  await page.getByRole('row').filter({ hasText: 'crm' }).waitFor();
  assert.equal(await page.getByRole('button', { name: /^Send test/ }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).isVisible(), false);
  await page.getByRole('button', { name: 'Deliveries of warehouse' }).click();
  await row(page, 'succeeded');
  assert.equal(await page.getByRole('button', { name: /^Send again/ }).count(), 0);
  await page.getByRole('button', { name: 'Sign out' }).click();

  await signIn(page, server.url, 'vi@example.com');
  assert.equal(await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks' }).count(), 0);
  await page.goto(`${server.url}/dashboard/#/webhooks`);
  await page.getByRole('note').filter({ hasText: 'Seeing the webhooks needs the owner or analyst role; you are viewer in this project.' }).waitFor();
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});
