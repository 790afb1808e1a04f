/**
 * Each template as layoutModel lays it out, without a DOM: resolved in
 * English and German as the server resolves it, drawn with the fixture's
 * store prices, compared with the template's fixture (which gallery.browser.test.ts
 * compares Chromium's drawing with). PAYWALLD_WRITE_FIXTURES=1 writes the
 * fixtures instead, for a template that changed on purpose.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { layoutModel } from '../../render/layout.ts';
import type { ResolvedInput } from '../../render/types.ts';
import { validatePaywall } from '../../src/paywalls/document/index.ts';
import { CompiledPaywall } from '../../src/paywalls/resolve/compiled.ts';
import { TEMPLATES } from '../../src/templates/catalog.ts';
import { drawnNodes, type Fixture, fixturePath, LOCALES, PRICES, PRODUCTS, readFixture } from './fixture.ts';

/** The fixtures' clock: countdowns are drawn an hour after the first view. */
const NOW = Date.parse('2030-01-01T12:00:00Z');

function resolved(id: string, locale: string): ResolvedInput {
  const template = TEMPLATES.find((candidate) => candidate.id === id)!;
  const validation = validatePaywall(template.document, { productExists: (productId) => Object.hasOwn(PRODUCTS, productId) });
  assert.ok(validation.ok, `${id}: ${JSON.stringify(validation.ok ? [] : validation.errors)}`);
  const compiled = new CompiledPaywall({
    paywallId: id,
    revision: 1,
    document: validation.value,
    product: (productId) => ({ name: PRODUCTS[productId]!, store_ids: { stripe: `price_${productId}` } }),
  });
  return JSON.parse(compiled.serve(compiled.defaultChoice(), [locale], 'web').body.toString('utf8')) as ResolvedInput;
}

test('the gallery has the eight templates the issue names, each with a name and a description', () => {
  assert.deepEqual(
    TEMPLATES.map((template) => template.id),
    ['single-product', 'annual-vs-monthly', 'free-trial-toggle', 'feature-carousel', 'countdown-sale', 'win-back', 'lifetime-unlock', 'video-hero'],
  );
  for (const template of TEMPLATES) assert.ok(template.name.length > 0 && template.description.length > 20, template.id);
});

for (const template of TEMPLATES) {
  test(`${template.id}: layoutModel in English and German is the fixture`, () => {
    const actual = Object.fromEntries(
      LOCALES.map((locale) => [locale, drawnNodes(layoutModel(resolved(template.id, locale), PRICES, { now: NOW, firstViewedAt: NOW - 3_600_000 }).root)]),
    ) as Fixture;
    if (process.env.PAYWALLD_WRITE_FIXTURES === '1') fs.writeFileSync(fixturePath(template.id), `${JSON.stringify(actual, null, 2)}\n`);
    assert.deepEqual(actual, readFixture(template.id));
    // What a person reads: no variable left, and the German drawing says something else than the English one.
    assert.doesNotMatch(JSON.stringify(actual), /\{\{|\}\}/);
    assert.notDeepEqual(
      actual.de.map((node) => node.text),
      actual.en.map((node) => node.text),
    );
  });
}
