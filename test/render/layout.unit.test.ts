/** layoutModel, pure: variables filled from store prices in the answer's locale, visibility, actions, fallbacks, allowed URLs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { layoutModel } from '../../render/layout.ts';
import { DRAWN_TYPES, type LayoutNode, type Prices, type ResolvedInput } from '../../render/types.ts';
import { COMPONENT_TYPES } from '../../src/paywalls/document/components.ts';
import { PRICE_VARIABLE_NAMES } from '../../src/paywalls/document/variables.ts';

/** Intl separates amount and currency sign with a no-break space in many locales. */
const nb = (text: string) => text.replace(/ /g, '\u00a0');

const EVERY_VARIABLE = PRICE_VARIABLE_NAMES.map((name) => `${name}={{annual.${name}}}`).join(';');

/** A resolve answer as the server gives it: a text per variable set, a product card and a purchase button per slot. */
function answer(locale: string, root: Record<string, unknown> | null = null): ResolvedInput {
  const product = (id: string, name: string) => ({ id, name, store_product_id: `com.acme.${id}` });
  return {
    locale,
    product_slots: [
      { slot: 'annual', product_id: 'pro_annual', store_product_id: 'com.acme.pro_annual' },
      { slot: 'weekly', product_id: 'pro_weekly', store_product_id: null },
    ],
    root: root ?? {
      type: 'stack',
      props: { axis: 'vertical' },
      children: [
        { type: 'text', props: { text: EVERY_VARIABLE } },
        { type: 'text', props: { text: 'Weekly {{weekly.price}}' } },
        { type: 'product', props: { slot: 'annual' }, product: product('pro_annual', 'Pro Annual') },
        { type: 'purchase_button', props: { slot: 'annual', text: 'Buy for {{annual.price}}' }, product: product('pro_annual', 'Pro Annual') },
        { type: 'purchase_button', props: { slot: 'weekly', text: 'Buy weekly for {{weekly.price}}' }, product: product('pro_weekly', 'Pro Weekly') },
      ],
    },
  };
}

const ANNUAL = { amount: 49.99, currency: 'USD', period: 'P1Y', trial: 'P7D', intro: { amount: 1.99, period: 'P1M', cycles: 3 }, eligible_for_intro: true };

function child(model: { root: LayoutNode | null }, i: number): LayoutNode {
  return model.root!.children![i]!;
}

/** `name=value` pairs of the every-variable text, as a map. */
function filled(node: LayoutNode): Record<string, string> {
  return Object.fromEntries(node.text!.split(';').map((pair) => pair.split('=') as [string, string]));
}

test('the renderer draws exactly the component types of the document schema', () => {
  assert.deepEqual([...DRAWN_TYPES].sort(), [...COMPONENT_TYPES].sort());
});

test('every variable is filled in English and in German, from the period in days', () => {
  const english = layoutModel(answer('en'), { pro_annual: ANNUAL });
  assert.deepEqual(filled(child(english, 0)), {
    price: '$49.99',
    price_per_month: '$4.17',
    price_per_week: '$0.96',
    period: 'year',
    trial: '7 days',
    intro_price: '$1.99',
    intro_period: '3 months',
    product_name: 'Pro Annual',
  });
  const german = layoutModel(answer('de-DE'), { pro_annual: { ...ANNUAL, currency: 'EUR' } });
  assert.deepEqual(filled(child(german, 0)), {
    price: nb('49,99 €'),
    price_per_month: nb('4,17 €'),
    price_per_week: nb('0,96 €'),
    period: 'Jahr',
    trial: '7 Tage',
    intro_price: nb('1,99 €'),
    intro_period: '3 Monate',
    product_name: 'Pro Annual',
  });
  assert.equal(german.locale, 'de-DE');
});

test('a weekly price gives its monthly equivalent, and a two-month period keeps its number', () => {
  const node = layoutModel(answer('en', { type: 'text', props: { text: '{{annual.price_per_month}} {{annual.price_per_week}} {{annual.period}}' } }), {
    pro_annual: { amount: 2.99, currency: 'USD', period: 'P1W' },
  }).root!;
  assert.equal(node.text, '$12.99 $2.99 week');
  const twoMonths = layoutModel(answer('en', { type: 'text', props: { text: '{{annual.period}}' } }), {
    pro_annual: { amount: 10, currency: 'USD', period: 'P2M' },
  }).root!;
  assert.equal(twoMonths.text, '2 months');
});

test('a product without a price: its texts hide, its purchase button is disabled and its label drops the price', () => {
  const model = layoutModel(answer('en'), { pro_annual: ANNUAL });
  const weeklyText = child(model, 1);
  assert.equal(weeklyText.visible, false);
  assert.equal(weeklyText.text, '');
  const weeklyButton = child(model, 4);
  assert.equal(weeklyButton.text, 'Buy weekly for');
  assert.equal(weeklyButton.enabled, false);
  assert.deepEqual(weeklyButton.action, { type: 'purchase', slot: 'weekly', product_id: 'pro_weekly', store_product_id: null });
  const annualButton = child(model, 3);
  assert.equal(annualButton.text, 'Buy for $49.99');
  assert.equal(annualButton.enabled, true);
  assert.deepEqual(annualButton.action, { type: 'purchase', slot: 'annual', product_id: 'pro_annual', store_product_id: 'com.acme.pro_annual' });
  // A product card shows without a price; the card's values carry only the name.
  const card = layoutModel(answer('en'), {}).root!.children![2]!;
  assert.equal(card.visible, true);
  assert.deepEqual(card.product!.values, { product_name: 'Pro Annual' });
  assert.equal(card.product!.priced, false);
  // Unusable prices count as none: a currency Intl does not know, a negative amount.
  for (const price of [
    { amount: 1, currency: 'DOLLARS' },
    { amount: -1, currency: 'USD' },
  ]) {
    assert.equal(child(layoutModel(answer('en'), { pro_annual: price }), 3).enabled, false);
  }
  // No text of the model holds a variable: labels are filled, props lose their raw text.
  assert.doesNotMatch(JSON.stringify(layoutModel(answer('en'), {})), /\{\{/);
});

test('trial and introductory texts show only when the store says the user is eligible', () => {
  const model = (eligible: boolean | undefined) =>
    layoutModel(answer('en', { type: 'text', props: { text: '{{annual.trial}} free' } }), { pro_annual: { ...ANNUAL, eligible_for_intro: eligible } }).root!;
  assert.deepEqual([model(true).visible, model(true).text], [true, '7 days free']);
  assert.equal(model(false).visible, false);
  assert.equal(model(undefined).visible, false);
  const intro = layoutModel(answer('en', { type: 'text', props: { text: '{{annual.intro_price}} for {{annual.intro_period}}' } }), {
    pro_annual: { ...ANNUAL, eligible_for_intro: false },
  }).root!;
  assert.equal(intro.visible, false);
});

test('what is not a variable is never shown: malformed braces, unknown names and slots hide the text', () => {
  for (const text of ['{{price}}', '{{annual.cost}}', '{{nowhere.price}}']) {
    const node = layoutModel(answer('en', { type: 'text', props: { text } }), { pro_annual: ANNUAL }).root!;
    assert.deepEqual([node.visible, node.text], [false, ''], text);
  }
});

test('actions: close, restore, open_url as link, custom with its node id, links; unsafe URLs are neither drawn nor reported', () => {
  const root = {
    type: 'stack',
    props: { axis: 'vertical' },
    children: [
      { type: 'button', props: { action: 'close', text: 'x' } },
      { type: 'button', props: { action: 'restore', text: 'Restore' } },
      { type: 'button', props: { action: 'open_url', url: 'https://example.com/help', text: 'Help' } },
      { type: 'button', id: 'quiz', props: { action: 'custom', text: 'Quiz' } },
      { type: 'link', props: { url: 'mailto:help@example.com', text: 'Mail', kind: 'other' } },
      { type: 'link', props: { url: 'javascript:alert(1)', text: 'Bad' } },
      { type: 'button', props: { action: 'open_url', url: 'javascript:alert(1)', text: 'Bad' } },
      { type: 'image', props: { url: 'http://example.com/a.png', alt: 'cleartext' } },
      { type: 'image', props: { url: 'https://example.com/a.png', alt: 'ok' } },
    ],
  };
  const nodes = layoutModel(answer('en', root)).root!.children!;
  assert.deepEqual(
    nodes.map((node) => [node.action, node.enabled, node.url, node.visible]),
    [
      [{ type: 'close' }, true, undefined, true],
      [{ type: 'restore' }, true, undefined, true],
      [{ type: 'link', url: 'https://example.com/help' }, true, 'https://example.com/help', true],
      [{ type: 'custom', node_id: 'quiz' }, true, undefined, true],
      [{ type: 'link', url: 'mailto:help@example.com' }, true, 'mailto:help@example.com', true],
      [undefined, false, undefined, true],
      [undefined, false, undefined, true],
      [undefined, undefined, undefined, false],
      [undefined, undefined, 'https://example.com/a.png', true],
    ],
  );
  assert.equal(nodes[8]!.alt, 'ok');
  assert.equal('text' in nodes[8]!.props, false);
});

test('fallbacks: for a type the renderer does not know, and for every node as an older app; paths point into the answer', () => {
  const root = {
    type: 'stack',
    props: { axis: 'vertical' },
    children: [
      { type: 'carousel', props: {}, fallback: { type: 'text', props: { text: 'No carousel here' } } },
      { type: 'carousel', props: {} },
      { type: 'button', props: { action: 'close', text: 'Close' }, fallback: { type: 'text', props: { text: 'Old close' } } },
    ],
  };
  const current = layoutModel(answer('en', root)).root!.children!;
  assert.deepEqual(
    current.map((node) => [node.type, node.text, node.path]),
    [
      ['text', 'No carousel here', '/children/0/fallback'],
      ['button', 'Close', '/children/2'],
    ],
  );
  const older = layoutModel(answer('en', root), {}, { asOlderApp: true }).root!.children!;
  assert.deepEqual(
    older.map((node) => node.text),
    ['No carousel here', 'Old close'],
  );
});

test('a holdout answer lays out nothing', () => {
  const holdout: ResolvedInput = { locale: 'en', root: null, product_slots: [] };
  assert.deepEqual(layoutModel(holdout, {} as Prices), { locale: 'en', scheme: 'light', selected: null, accent: null, fonts: [], root: null });
});

test('no text of any shape shows a {{…}}: texts of braces, dots and variables, filled or not', () => {
  const piece = fc.constantFrom(
    '{',
    '}',
    '{{',
    '}}',
    'a',
    '.',
    ' ',
    'annual',
    'weekly',
    'price',
    'trial',
    '{{annual.price}}',
    '{{weekly.price}}',
    '{{annual.trial}}',
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 24 }), fc.boolean(), (pieces, priced) => {
      const text = pieces.join('');
      const root = {
        type: 'stack',
        props: { axis: 'vertical' },
        children: [
          { type: 'text', props: { text } },
          { type: 'button', props: { action: 'close', text } },
          { type: 'image', props: { url: 'https://example.com/a.png', alt: text } },
        ],
      };
      const nodes = layoutModel(answer('en', root), priced ? { pro_annual: ANNUAL } : {}).root!.children!;
      for (const node of nodes) {
        const shown = node.visible ? `${node.text ?? ''}${node.alt ?? ''}` : '';
        assert.doesNotMatch(shown, /\{\{[^{}]*\}\}/, JSON.stringify(text));
      }
    }),
    { numRuns: 2000 },
  );
});
