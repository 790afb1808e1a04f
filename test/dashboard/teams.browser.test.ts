/**
 * Teams in the dashboard, in headless Chromium against the real bundle: an
 * editor joins through an invitation link and edits; the owner invites and
 * changes roles on Members and reads who did what on Activity; a viewer
 * signs in with an email and a password and is offered nothing the role
 * cannot do, each time saying why (docs/guide/teams.md).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { type ServeProcess, spawnServe } from '../helpers/cli.ts';
import { single } from '../helpers/paywalls.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';

const PASSWORD = 'a long enough password';

/** The first owner, signed up through the API with the link the first start printed: their session cookie. */
async function owner(server: ServeProcess): Promise<string> {
  const token = /The first owner signs up at \S+\/accept\/(\S+)/.exec(server.output())![1]!;
  const joined = await fetch(`${server.url}/api/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, email: 'owner@example.com', name: 'Olivia Owner', password: PASSWORD }),
  });
  assert.equal(joined.status, 200);
  return /paywalld_session=([^;]+)/.exec(joined.headers.get('set-cookie')!)![1]!;
}

function as(cookie: string, method: string, route: string, body?: unknown): Promise<Response> {
  return fetch(route, {
    method,
    headers: { cookie: `paywalld_session=${cookie}`, 'x-paywalld-request': '1', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function signIn(page: Page, url: string, email: string): Promise<void> {
  await page.goto(`${url}/dashboard/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

async function navigation(page: Page): Promise<string[]> {
  return page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
}

test('an editor joins through a link and edits; the owner sees it on Activity and manages Members', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db')]);
  const ownerCookie = await owner(server);
  const project = /Created project "default" \((\S+)\)/.exec(server.output())![1]!;
  const invited = await as(ownerCookie, 'POST', `${server.url}/api/projects/${project}/invitations`, { email: 'ed@example.com', role: 'editor' });
  const link = (await invited.json()).url as string;
  assert.equal((await as(ownerCookie, 'PUT', `${server.url}/api/products/pro_annual`, { name: 'Pro Annual', store_ids: {} })).status, 201);
  const { page, errors } = await openBrowser(t);

  // The link opens the accept page: a short password is explained, then the editor joins and is signed in.
  await page.goto(link);
  await page.getByLabel('Your name (optional)').fill('Ed Editor');
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByRole('alert').filter({ hasText: 'at least 10 characters' }).waitFor();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByRole('heading', { name: 'Paywalls' }).waitFor();
  const header = page.getByRole('banner');
  await header.getByText('Ed Editor').waitFor();
  assert.equal(await header.locator('.badge').innerText(), 'editor');
  assert.deepEqual(await navigation(page), ['Paywalls', 'Results', 'Products']);

  // An editor creates a paywall from the template and saves a revision.
  await page.getByLabel('Id (what apps ask for)').fill('onboarding');
  await page.getByRole('button', { name: 'Create from template' }).click();
  await page.getByRole('heading', { name: /onboarding/i }).waitFor();
  await page.getByRole('button', { name: 'Publish r1' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Publish r1' }).click();
  await page.getByText(/Revision 1 is live/).waitFor();
  await page.locator('.revisions').getByText('by ed@example.com').waitFor();
  // Keys are not offered; opened by their address, the page says why.
  await page.goto(`${server.url}/dashboard/#/keys`);
  await page.getByRole('note').filter({ hasText: 'Seeing the keys needs the owner or analyst role; you are editor in this project.' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Email').waitFor();
  // Signed out, the editor signs in again with the password chosen on the accept page.
  await signIn(page, server.url, 'ed@example.com');
  assert.equal(await header.locator('.badge').innerText(), 'editor');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Email').waitFor();

  // The owner: Activity says who published, Members changes the editor to analyst.
  await signIn(page, server.url, 'owner@example.com');
  assert.deepEqual(await navigation(page), ['Paywalls', 'Results', 'Products', 'Keys', 'Members', 'Activity', 'Webhooks']);
  await page.getByRole('link', { name: 'Activity' }).click();
  const published = page.getByRole('row').filter({ hasText: 'paywall.published' });
  await published.getByText('ed@example.com').waitFor();
  await page.getByLabel('Action').selectOption('member.joined');
  await page.getByRole('button', { name: 'Filter' }).click();
  // The unfiltered list holds the joined row too: the filter has applied once the published row is gone.
  await page.getByRole('row').filter({ hasText: 'paywall.published' }).first().waitFor({ state: 'detached' });
  assert.equal(await page.getByRole('row').filter({ hasText: 'ed@example.com joined as editor' }).count(), 1);

  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByLabel('Role of ed@example.com').selectOption('analyst');
  await page.getByLabel('Email').fill('vi@example.com');
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  const url = await page.getByLabel('Invitation link').inputValue();
  assert.match(url, /\/dashboard\/#\/accept\/[A-Za-z0-9_-]{43}$/);
  const members = await (await as(ownerCookie, 'GET', `${server.url}/api/projects/${project}/members`)).json();
  assert.deepEqual(
    members.members.map((m: { email: string; role: string }) => [m.email, m.role]),
    [
      ['owner@example.com', 'owner'],
      ['ed@example.com', 'analyst'],
    ],
  );
  // The last owner cannot step down: the page shows why.
  await page.getByLabel('Role of owner@example.com').selectOption('viewer');
  await page.getByRole('alert').filter({ hasText: 'without an owner' }).waitFor();
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});

test('a viewer signs in with a password and is offered nothing the role cannot do, told why', needs(CHROMIUM_PROGRAM), async (t) => {
  const server = await spawnServe(t, ['--db', path.join(tempDir(t), 'paywalld.db')]);
  const ownerCookie = await owner(server);
  const project = /Created project "default" \((\S+)\)/.exec(server.output())![1]!;
  assert.equal((await as(ownerCookie, 'PUT', `${server.url}/api/products/pro_annual`, { name: 'Pro Annual', store_ids: {} })).status, 201);
  assert.equal((await as(ownerCookie, 'PUT', `${server.url}/api/paywalls/onboarding`, single({ en: { title: 'Hello' } }))).status, 201);
  assert.equal((await as(ownerCookie, 'POST', `${server.url}/api/paywalls/onboarding/publish`, {})).status, 200);
  const invited = await (
    await as(ownerCookie, 'POST', `${server.url}/api/projects/${project}/invitations`, { email: 'vi@example.com', role: 'viewer' })
  ).json();
  const token = (invited.url as string).slice(invited.url.lastIndexOf('/') + 1);
  const joined = await fetch(`${server.url}/api/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password: PASSWORD }),
  });
  assert.equal(joined.status, 200);
  const { page, errors } = await openBrowser(t);

  // A wrong password is explained; then the viewer is in.
  await page.goto(`${server.url}/dashboard/`);
  await page.getByLabel('Email').fill('vi@example.com');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'The email or the password is wrong.' }).waitFor();
  await signIn(page, server.url, 'vi@example.com');
  await page.getByRole('heading', { name: 'Paywalls' }).waitFor();
  assert.equal(await page.getByRole('banner').locator('.badge').innerText(), 'viewer');
  assert.deepEqual(await navigation(page), ['Paywalls', 'Results', 'Products']);
  await page.getByRole('note').filter({ hasText: 'Creating paywalls needs the owner or editor role; you are viewer in this project.' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Create from template' }).count(), 0);

  // The editor shows the document, with saving and publishing disabled and why.
  await page.getByRole('link', { name: 'Single' }).click();
  await page.getByRole('note').filter({ hasText: 'Saving and publishing revisions needs the owner or editor role' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Save revision' }).isDisabled(), true);
  assert.equal(await page.getByRole('button', { name: 'Publish r1' }).isDisabled(), true);

  // Products: listed, not editable.
  await page.getByRole('link', { name: 'Products' }).click();
  await page.getByRole('cell', { name: /Pro Annual/ }).waitFor();
  await page.getByRole('note').filter({ hasText: 'Changing the catalog needs the owner or editor role; you are viewer in this project.' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Create product' }).isVisible(), false);
  assert.equal(await page.getByRole('button', { name: /^Edit/ }).isDisabled(), true);

  // Results are everyone's, their CSV included (fetched with the session, handed to the browser as a file).
  await page.goto(`${server.url}/dashboard/#/results/onboarding`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  assert.match(csv.split('\n')[0]!, /^variant_id,control,/);

  // Members and Activity are the owners' and analysts'.
  await page.goto(`${server.url}/dashboard/#/activity`);
  await page.getByRole('note').filter({ hasText: 'Reading the activity log needs the owner or analyst role; you are viewer in this project.' }).waitFor();
  // Signing out ends the session on the server, not only in the tab.
  const cookie = (await page.context().cookies()).find((c) => c.name === 'paywalld_session')!;
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Email').waitFor();
  assert.equal((await fetch(`${server.url}/api/auth/me`, { headers: { cookie: `paywalld_session=${cookie.value}` } })).status, 401);
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});
