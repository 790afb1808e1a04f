/**
 * Every panel of the visual editor in headless Chromium: each at 1280 and
 * 390 px without sideways scrolling and with no axe-core violation; the
 * JSON unchanged by a walk through the tabs and kept in order by visual
 * edits; the outline's toolbar, drag and drop and keyboard; the server's
 * errors beside the field; undo and redo; strings, slots, audiences (a
 * condition the builder cannot show kept read-only) and theme; the preview
 * selecting what is clicked; the guard before leaving; a viewer offered
 * nothing to change, told why. With PAYWALLD_SCREENSHOTS_DIR set, each
 * panel's screenshot is kept there (docs/guide/dashboard.md shows them).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { TEMPLATES } from '../../src/templates/catalog.ts';
import { member } from '../helpers/accounts.ts';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { needs } from '../helpers/requirements.ts';
import { tempDir } from '../helpers/temp.ts';
import { assertAxeClean, editorServer, NARROW, openSignedIn, storedDocument, WIDE } from './editor-browser.ts';

const TABS = ['Design', 'Strings', 'Products and slots', 'Variants', 'Audiences', 'Theme', 'JSON'];

/** The template with a 50/50 split and two audiences: one the builder shows, one it cannot (a $not). */
function splitPaywall() {
  const template = structuredClone(TEMPLATES.find((candidate) => candidate.id === 'annual-vs-monthly')!.document);
  return {
    ...template,
    variants: [
      { id: 'control', weight: 50 },
      { id: 'b', weight: 50, strings: { en: { title: 'Try Pro' } } },
    ],
    audiences: [
      { id: 'germany', when: { country: 'DE' }, weights: { control: 1, b: 1 } },
      { id: 'not_ios', when: { $not: { platform: 'ios' } }, weights: { control: 1 } },
    ],
  };
}

async function fits(page: Page, what: string): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth }));
  assert.ok(scroll <= width, `${what} scrolls sideways (${scroll} > ${width})`);
}

async function jsonText(page: Page): Promise<string> {
  await page.getByRole('tab', { name: 'JSON' }).click();
  return page.getByLabel('Document (JSON)').inputValue();
}

test('every panel fits and is axe-clean at 1280 and 390 px, and a walk through the tabs changes nothing', needs(CHROMIUM_PROGRAM), async (t) => {
  const setup = await editorServer(t);
  await setup.client.putPaywall('split', splitPaywall());
  await setup.client.publish('split');
  const shots = process.env.PAYWALLD_SCREENSHOTS_DIR ?? tempDir(t);
  fs.mkdirSync(shots, { recursive: true });
  const { page, errors } = await openBrowser(t, WIDE);
  await openSignedIn(page, setup.server.url, setup.owner, '#/paywalls/split');
  await page.getByTestId('preview').getByText('Go Pro').waitFor();
  // The headline selected (variant b has its own, so the outline marks it), as the screenshots show it.
  await page.getByRole('tree', { name: 'Outline' }).getByRole('treeitem', { name: 'text: Go Pro' }).click();
  const before = await jsonText(page);
  for (const [label, size] of [
    ['1280', WIDE],
    ['390', NARROW],
  ] as const) {
    await page.setViewportSize(size);
    for (const tab of TABS) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('tabpanel').waitFor();
      await fits(page, `${tab} at ${label} px`);
      await assertAxeClean(page, `${tab} at ${label} px`);
      const name = tab === 'Design' ? 'visual-editor' : `visual-editor-${tab.toLowerCase().replaceAll(' ', '-')}`;
      if (tab === 'Design' || label === '1280') await page.screenshot({ path: path.join(shots, `${name}-${label}.png`), fullPage: tab !== 'Design' });
    }
  }
  await page.setViewportSize(WIDE);
  // Nothing was edited: the text is the document, byte for byte, key order and all.
  assert.equal(await jsonText(page), before);
  assert.equal(before, JSON.stringify((await storedDocument(setup.client, 'split')).document, null, 2));
  // Edited here: the split changes, so the Variants tab says a publish starts a new phase, as the publish question will.
  await page.getByRole('tab', { name: 'Variants' }).click();
  assert.equal(await page.getByText(/starts a new experiment phase/).count(), 0);
  await page.getByRole('group', { name: 'Variant b' }).getByLabel('Weight').fill('40');
  await page.getByRole('group', { name: 'Variant control' }).getByLabel('Weight').fill('60');
  await page.getByRole('status').filter({ hasText: 'publishing it starts a new experiment phase' }).waitFor();
  // The audience the builder cannot show is kept as written; the other one is built in place.
  await page.getByRole('tab', { name: 'Audiences' }).click();
  const notIos = page.getByRole('group', { name: 'Audience not_ios' });
  await notIos.getByText('This condition uses what the builder cannot show').waitFor();
  const germany = page.getByRole('group', { name: 'Audience germany' });
  await germany.getByRole('button', { name: 'Add condition' }).click();
  await germany.getByLabel('Attribute').nth(1).selectOption('appVersion');
  await germany.getByLabel('Operator').nth(1).selectOption({ label: 'version at least' });
  await germany.getByLabel('Value').nth(1).fill('2.1');
  const audiences = JSON.parse(await jsonText(page)).audiences;
  assert.deepEqual(audiences, [
    { id: 'germany', when: { country: 'DE', appVersion: { $vgte: '2.1' } }, weights: { control: 1, b: 1 } },
    { id: 'not_ios', when: { $not: { platform: 'ios' } }, weights: { control: 1 } },
  ]);
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});

test(
  'outline, properties, strings, slots and theme edit the draft; errors show beside their field; undo, redo and the leave guard',
  needs(CHROMIUM_PROGRAM),
  async (t) => {
    const setup = await editorServer(t);
    await setup.client.putPaywall('split', splitPaywall());
    await setup.client.putProduct('pro_weekly', { name: 'Pro Weekly', store_ids: { app_store: 'com.acme.pro.weekly' } });
    const { page, errors } = await openBrowser(t, WIDE);
    // Opened from the list, so that the back button has a page of the dashboard to go back to.
    await openSignedIn(page, setup.server.url, setup.owner, '#/paywalls');
    await page.getByRole('link', { name: splitPaywall().name, exact: true }).click();
    const outline = page.getByRole('tree', { name: 'Outline' });
    const properties = page.getByRole('region', { name: 'Properties' });
    const preview = page.getByTestId('preview');
    await preview.getByText('Go Pro').waitFor();

    // A click in the preview selects the node in the outline.
    await preview.getByText('Pick a plan: switch or cancel anytime.').click();
    assert.equal(await outline.getByRole('treeitem', { name: 'text: Pick a plan: switch or cancel anytime.' }).getAttribute('aria-selected'), 'true');

    // A URL checked as typed, then by the server, beside its field; undo and redo put it back and again.
    await outline.getByRole('treeitem', { name: 'link: Terms' }).click();
    const url = properties.getByLabel('URL', { exact: true });
    await url.fill('ftp://example.com/terms');
    await properties.getByText('Must start with https://, http:// or mailto:').first().waitFor();
    await page.getByText('Must start with https://, http://, mailto: or data:image/').waitFor();
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    // The problem's pointer, under the tabs, leads back to its field from any tab.
    await page.getByRole('tab', { name: 'Strings' }).click();
    await page.locator('#problems [data-pointer$="/props/url"]').getByRole('button').click();
    assert.equal(await outline.getByRole('treeitem', { name: 'link: Terms' }).getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Control+z');
    assert.equal(await url.inputValue(), 'https://example.com/terms');
    await page.getByRole('button', { name: 'Redo' }).click();
    assert.equal(await url.inputValue(), 'ftp://example.com/terms');
    await page.getByRole('button', { name: 'Undo' }).click();

    // Add a text to the feature list, move it up, duplicate it, delete the copy.
    await outline.getByRole('treeitem', { name: 'text: No ads, ever' }).click();
    await page.getByRole('button', { name: 'Add component' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add component' }).isDisabled(), true);
    await page.getByText('A text holds no components').waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('button', { name: 'Add component' }).click();
    await page.getByRole('menu', { name: 'Add component' }).getByRole('menuitem', { name: 'text', exact: true }).click();
    const added = outline.getByRole('treeitem', { name: 'text: New text' });
    assert.equal(await added.getAttribute('aria-selected'), 'true');
    await properties.getByLabel('Text', { exact: true }).fill('Cancel anytime');
    await page.getByRole('button', { name: 'Move up' }).click();
    await page.getByRole('button', { name: 'Duplicate' }).click();
    assert.equal(await outline.getByRole('treeitem', { name: 'text: Cancel anytime' }).count(), 2);
    await page.getByRole('button', { name: 'Delete' }).click();
    assert.equal(await outline.getByRole('treeitem', { name: 'text: Cancel anytime' }).count(), 1);
    // Drag and drop: the new text onto the top half of the headline goes before it.
    const source = outline.getByRole('treeitem', { name: 'text: Cancel anytime' });
    const target = outline.getByRole('treeitem', { name: 'text: Go Pro' });
    await target.scrollIntoViewIfNeeded();
    const from = (await source.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + 40, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + 40, to.y + 3, { steps: 8 });
    await page.mouse.up();
    const names = await outline.getByRole('treeitem').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));
    assert.deepEqual(names.slice(1, 5), ['stack', 'button: Not now', 'text: Cancel anytime', 'text: Go Pro']);

    // Strings: German as the table shows it; a new locale marked missing, then translated.
    await page.getByRole('tab', { name: 'Strings' }).click();
    assert.equal(await page.getByLabel('title in de', { exact: true }).inputValue(), 'Werde Pro');
    await page.getByLabel('Language tag').fill('fr');
    await page.getByRole('button', { name: 'Add locale' }).click();
    assert.equal(await page.getByLabel('title in fr', { exact: true }).getAttribute('placeholder'), 'missing');
    await page.getByLabel('title in fr', { exact: true }).fill('Passez Pro');
    // Products and slots, and the theme.
    await page.getByRole('tab', { name: 'Products and slots' }).click();
    await page.getByLabel('Product in slot monthly').selectOption('pro_weekly');
    assert.match(
      await page.getByRole('listitem').filter({ hasText: 'Product in slot monthly' }).innerText(),
      /iOS: com\.acme\.pro\.weekly · Android: no store id · Web: no store id/,
    );
    await page.getByRole('tab', { name: 'Theme' }).click();
    await page.getByLabel('accent in dark', { exact: true }).fill('#FF00FF');
    const document = JSON.parse(await jsonText(page));
    assert.equal(document.strings.fr.title, 'Passez Pro');
    assert.deepEqual(document.theme.colors.accent, { light: '#4338CA', dark: '#FF00FF' });
    assert.equal(document.slots.monthly, 'pro_weekly');
    assert.equal(document.strings.en[document.root.children[0].children[1].props.text_key], 'Cancel anytime');
    // Every key where it was in the document as loaded.
    assert.deepEqual(Object.keys(document), Object.keys((await storedDocument(setup.client, 'split')).document));

    // Publishing a saved revision from the list leaves the unsaved draft as it is.
    await page.getByRole('button', { name: 'Publish this r1' }).click();
    await page.getByRole('dialog', { name: 'Publish r1?' }).getByRole('button', { name: 'Publish r1' }).click();
    await page.getByText('newest r1 · live r1 · unsaved changes').waitFor();
    assert.equal(JSON.parse(await jsonText(page)).strings.fr.title, 'Passez Pro');
    // Leaving with unsaved changes asks first.
    await page.getByRole('link', { name: 'Paywalls', exact: true }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.getByRole('button', { name: 'Cancel' }).click();
    assert.match(page.url(), /#\/paywalls\/split$/);
    // The back button, a typed address and signing out ask too, and keep the page on Cancel.
    await page.goBack();
    await leave.getByRole('button', { name: 'Cancel' }).click();
    assert.match(page.url(), /#\/paywalls\/split$/);
    await page.evaluate(() => (location.hash = '#/keys'));
    await leave.getByRole('button', { name: 'Cancel' }).click();
    assert.match(page.url(), /#\/paywalls\/split$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await leave.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('newest r1 · live r1 · unsaved changes').waitFor();
    await page.getByRole('link', { name: 'Paywalls', exact: true }).click();
    await leave.getByRole('button', { name: 'Leave and lose the changes' }).click();
    await page.getByRole('heading', { name: 'Paywalls', exact: true }).waitFor();
    assert.deepEqual(
      errors.filter((message) => !message.startsWith('Failed to load resource')),
      [],
    );
  },
);

test('a viewer reads every panel and is offered nothing to change, told why', needs(CHROMIUM_PROGRAM), async (t) => {
  const setup = await editorServer(t);
  await setup.client.putPaywall('split', splitPaywall());
  const viewer = await member(setup.server, setup.owner, 'viewer');
  const { page, errors } = await openBrowser(t, WIDE);
  await openSignedIn(page, setup.server.url, viewer, '#/paywalls/split');
  await page.getByRole('note').filter({ hasText: 'Saving and publishing revisions needs the owner or editor role' }).waitFor();
  await page.getByRole('note').filter({ hasText: 'Editing needs the owner or editor role; you are viewer in this project.' }).waitFor();
  const outline = page.getByRole('tree', { name: 'Outline' });
  await outline.getByRole('treeitem', { name: 'text: Go Pro' }).click();
  assert.equal(await page.getByRole('region', { name: 'Properties' }).getByLabel('Text', { exact: true }).isDisabled(), true);
  for (const button of ['Add component', 'Duplicate', 'Delete', 'Undo'])
    assert.equal(await page.getByRole('button', { name: button }).isDisabled(), true, button);
  await page.getByRole('tab', { name: 'Variants' }).click();
  assert.equal(await page.getByRole('group', { name: 'Variant b' }).getByLabel('Weight').isDisabled(), true);
  await page.getByRole('tab', { name: 'JSON' }).click();
  assert.equal(await page.getByLabel('Document (JSON)').getAttribute('readonly'), '');
  await assertAxeClean(page, "a viewer's JSON tab");
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});
