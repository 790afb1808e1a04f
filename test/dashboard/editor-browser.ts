/**
 * What the visual editor's browser tests share: a server with the owner
 * signed up and two products, a signed-in page, axe-core run on what is
 * shown, and focus moved by the Tab key alone.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { firstOwner, type Person } from '../helpers/accounts.ts';
import type { Json } from '../helpers/json.ts';
import { type Api, api, seedProducts } from '../helpers/paywalls.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const AXE = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/axe-core/axe.min.js'), 'utf8');

export const NARROW = { width: 390, height: 844 };
export const WIDE = { width: 1280, height: 900 };

export interface EditorServer {
  server: TestServer;
  owner: Person;
  client: Api;
}

/** A fresh server whose first owner signed up, with the two products the templates name. */
export async function editorServer(t: TestContext): Promise<EditorServer> {
  const server = await startTestServer(t);
  const owner = await firstOwner(server);
  const client = api(server);
  await seedProducts(client);
  return { server, owner, client };
}

/** The page signed in as `person` (their session cookie), at `route` of the dashboard. */
export async function openSignedIn(page: Page, url: string, person: Person, route = ''): Promise<void> {
  await page.context().addCookies([{ name: 'paywalld_session', value: person.token, url, httpOnly: true, sameSite: 'Strict' }]);
  await page.goto(`${url}/dashboard/${route}`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * axe-core's violations on the page as shown. The dashboard's CSP lets no
 * script in but its own, so axe is evaluated through the DevTools protocol,
 * which the CSP does not govern (the page's own scripts stay under it).
 */
export async function assertAxeClean(page: Page, what: string): Promise<void> {
  const violations: Json[] = await page.evaluate(`(async () => {
    if (!window.axe) { ${AXE} }
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  })()`);
  assert.deepEqual(violations, [], `axe-core on ${what}: ${JSON.stringify(violations, null, 2)}`);
}

/** Presses Tab (or Shift+Tab) until `target` has the focus: what a keyboard user does to reach it. */
export async function tabTo(page: Page, target: Locator, backwards = false, most = 250): Promise<void> {
  for (let i = 0; i < most; i++) {
    if (await target.evaluate((element) => element === document.activeElement || element.contains(document.activeElement)).catch(() => false)) return;
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

/** The focused element's accessible role and name, as a keyboard user hears it. */
export async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return `${element?.getAttribute('role') ?? element?.tagName.toLowerCase()}: ${element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? ''}`;
  });
}

/** The document the API holds for a paywall. */
export async function storedDocument(client: Api, id: string): Promise<{ revision: number; live_revision: number | null; document: Record<string, Json> }> {
  const response = await client.request('GET', `/api/paywalls/${id}`);
  assert.equal(response.status, 200);
  return (await response.json()) as { revision: number; live_revision: number | null; document: Record<string, Json> };
}
