/**
 * The visual editor's walk in headless Chromium, by accessible names only:
 * a paywall from the "Annual vs monthly" template, its headline changed
 * through Properties, a variant b at weight 50 with its own headline (made
 * while "Editing" is b), saved, published, and read back through the API:
 * the base and b hold the two headlines, the weights are 50/50. Once with
 * the mouse at 1280 px, once at 390 px with the keyboard alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_PROGRAM, openBrowser } from '../helpers/browser.ts';
import { needs } from '../helpers/requirements.ts';
import { assertAxeClean, type EditorServer, editorServer, NARROW, openSignedIn, storedDocument, tabTo } from './editor-browser.ts';

/** What both walks must leave in the API. */
async function assertPublished({ client }: EditorServer, id: string): Promise<void> {
  const stored = await storedDocument(client, id);
  assert.equal(stored.live_revision, stored.revision);
  const document = stored.document as { strings: { en: { title: string } }; variants: unknown };
  assert.equal(document.strings.en.title, 'Go Pro today');
  assert.deepEqual(document.variants, [
    { id: 'control', weight: 50 },
    { id: 'b', weight: 50, strings: { en: { title: 'Try Pro' } } },
  ]);
  // What apps get: each variant its own headline.
  for (const [variant, title] of [
    ['control', 'Go Pro today'],
    ['b', 'Try Pro'],
  ]) {
    const preview = await client.request('POST', `/api/paywalls/${id}/preview`, { body: { document: stored.document, variant } });
    assert.match(await preview.text(), new RegExp(`"text":"${title}"`));
  }
}

test(
  'a paywall from a template, a headline, a variant b with its own headline at 50/50, saved and published, with the mouse at 1280 px',
  needs(CHROMIUM_PROGRAM),
  async (t) => {
    const setup = await editorServer(t);
    const { page, errors } = await openBrowser(t);
    await openSignedIn(page, setup.server.url, setup.owner);

    // Create from the template: the gallery names each template and draws it.
    await page.getByLabel('Id (what apps ask for)').fill('annual');
    const gallery = page.getByRole('group', { name: 'Template' });
    await gallery.getByRole('radio', { name: 'Annual vs monthly' }).check();
    await gallery.locator('.thumb .pw-root').first().waitFor();
    await assertAxeClean(page, 'the template gallery');
    await page.getByRole('button', { name: 'Create from template' }).click();
    await page.getByRole('heading', { name: /annual/ }).waitFor();

    // The headline, through the outline and Properties.
    const outline = page.getByRole('tree', { name: 'Outline' });
    const properties = page.getByRole('region', { name: 'Properties' });
    await outline.getByRole('treeitem', { name: 'text: Go Pro' }).click();
    await properties.getByLabel('Text', { exact: true }).fill('Go Pro today');
    await outline.getByRole('treeitem', { name: 'text: Go Pro today' }).waitFor();
    const preview = page.getByTestId('preview');
    await preview.getByText('Go Pro today').waitFor();

    // Variant b at 50, control at 50.
    await page.getByRole('tab', { name: 'Variants' }).click();
    assert.equal(await page.getByLabel('New variant id').inputValue(), 'b');
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.getByRole('group', { name: 'Variant b' }).getByLabel('Weight').fill('50');
    await page.getByRole('group', { name: 'Variant control' }).getByLabel('Weight').fill('50');
    await page.getByText('Weights add up to 100.').waitFor();

    // b's own headline, made while editing b; the outline marks what b changes.
    await page.getByLabel('Editing').selectOption('b');
    await page.getByRole('tab', { name: 'Design' }).click();
    await outline.getByRole('treeitem', { name: 'text: Go Pro today' }).click();
    await properties.getByLabel('Text', { exact: true }).fill('Try Pro');
    const changed = outline.getByRole('treeitem', { name: 'text: Try Pro' });
    await changed.waitFor();
    assert.equal(await changed.getAttribute('aria-describedby').then((id) => page.locator(`#${id}`).innerText()), 'changed in variant b');
    await preview.getByText('Try Pro').waitFor();
    assert.match(await page.getByTestId('preview-summary').innerText(), /Variant b/);
    await assertAxeClean(page, 'the Design tab');

    // Save and publish: the publish question says a new split starts no phase before the first publish.
    await page.getByRole('button', { name: 'Save revision' }).click();
    await page.getByText(/Saved as revision 2/).waitFor();
    await page.getByRole('button', { name: 'Publish r2' }).click();
    await page.getByRole('dialog', { name: 'Publish r2?' }).getByRole('button', { name: 'Publish r2' }).click();
    await page.getByText(/Revision 2 is live/).waitFor();
    await assertPublished(setup, 'annual');
    assert.deepEqual(
      errors.filter((message) => !message.startsWith('Failed to load resource')),
      [],
    );
  },
);

/** Selects the option of a focused native select by typing its first letters, as a keyboard user does. */
async function typeToSelect(page: Page, text: string): Promise<void> {
  await page.keyboard.type(text);
}

test('the same walk at 390 px with the keyboard alone', needs(CHROMIUM_PROGRAM), async (t) => {
  const setup = await editorServer(t);
  const { page, errors } = await openBrowser(t, NARROW);
  // Signing in by keyboard: Tab to the email, type, Tab, type, Enter.
  await page.goto(`${setup.server.url}/dashboard/`);
  await tabTo(page, page.getByLabel('Email'));
  await page.keyboard.type(setup.owner.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(setup.owner.password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Paywalls' }).waitFor();

  await tabTo(page, page.getByLabel('Id (what apps ask for)'));
  await page.keyboard.type('narrow');
  const gallery = page.getByRole('group', { name: 'Template' });
  // The gallery is a radio group: Tab enters at the chosen template (annual vs monthly unless another is picked).
  await tabTo(page, gallery);
  assert.equal(await gallery.getByRole('radio', { name: 'Annual vs monthly' }).isChecked(), true);
  await page.keyboard.press('ArrowRight');
  assert.equal(await gallery.getByRole('radio', { name: 'Free-trial toggle' }).isChecked(), true);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await gallery.getByRole('radio', { name: 'Annual vs monthly' }).isChecked(), true);
  await tabTo(page, page.getByRole('button', { name: 'Create from template' }));
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /narrow/ }).waitFor();

  // The outline: Tab enters at the root, arrow keys move (selection follows focus) to the headline.
  const outline = page.getByRole('tree', { name: 'Outline' });
  await tabTo(page, outline);
  const headline = outline.getByRole('treeitem', { name: 'text: Go Pro' });
  for (let i = 0; i < 10 && (await headline.getAttribute('aria-selected')) !== 'true'; i++) await page.keyboard.press('ArrowDown');
  assert.equal(await headline.getAttribute('aria-selected'), 'true');
  const text = page.getByRole('region', { name: 'Properties' }).getByLabel('Text', { exact: true });
  await tabTo(page, text);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Go Pro today');
  await outline.getByRole('treeitem', { name: 'text: Go Pro today' }).waitFor();

  // The tabs: arrow keys from the Design tab to Variants.
  await tabTo(page, page.getByRole('tab', { name: 'Design' }), true);
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await page.getByRole('tab', { name: 'Variants' }).getAttribute('aria-selected'), 'true');
  await tabTo(page, page.getByRole('button', { name: 'Add variant' }));
  await page.keyboard.press('Enter');
  for (const variant of ['b', 'control']) {
    await tabTo(page, page.getByRole('group', { name: `Variant ${variant}` }).getByLabel('Weight'), true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('50');
  }
  await page.getByText('Weights add up to 100.').waitFor();
  await assertAxeClean(page, 'the Variants tab at 390 px');

  // Editing b, then b's headline.
  await tabTo(page, page.getByLabel('Editing'), true);
  await typeToSelect(page, 'b');
  assert.equal(await page.getByLabel('Editing').inputValue(), 'b');
  await tabTo(page, page.getByRole('tab', { name: 'Variants' }));
  await page.keyboard.press('Home');
  await tabTo(page, outline);
  const ours = outline.getByRole('treeitem', { name: 'text: Go Pro today' });
  for (let i = 0; i < 10 && (await ours.getAttribute('aria-selected')) !== 'true'; i++) await page.keyboard.press('ArrowDown');
  await tabTo(page, text);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Try Pro');
  await outline.getByRole('treeitem', { name: 'text: Try Pro' }).waitFor();
  await assertAxeClean(page, 'the Design tab at 390 px');

  // Save and publish from the keyboard.
  await tabTo(page, page.getByRole('button', { name: 'Save revision' }), true);
  await page.keyboard.press('Enter');
  await page.getByText(/Saved as revision 2/).waitFor();
  await tabTo(page, page.getByRole('button', { name: 'Publish r2' }));
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Publish r2?' });
  await dialog.waitFor();
  await tabTo(page, dialog.getByRole('button', { name: 'Publish r2' }));
  await page.keyboard.press('Enter');
  await page.getByText(/Revision 2 is live/).waitFor();
  await assertPublished(setup, 'narrow');
  assert.deepEqual(
    errors.filter((message) => !message.startsWith('Failed to load resource')),
    [],
  );
});
