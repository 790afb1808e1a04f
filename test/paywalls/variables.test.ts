/** Price variables `{{SLOT.NAME}}` in texts: checked at write time with a pointer to the text, kept and listed by resolve. */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { Json } from '../helpers/json.ts';
import { type Api, api, seedProducts } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';

async function client(t: TestContext): Promise<Api> {
  const started = api(await startTestServer(t));
  await seedProducts(started);
  return started;
}

/** A paywall with variables in a string (two locales), a literal label and an alt, and a variant that adds a slot of its own. */
function priced(): Json {
  return {
    name: 'Priced',
    default_locale: 'en',
    strings: {
      en: { offer: '{{primary.trial}} free, then {{primary.price}} per {{primary.period}}', plain: 'No prices here' },
      de: { offer: '{{primary.trial}} gratis, danach {{primary.price}} pro {{primary.period}}' },
    },
    slots: { primary: 'pro_annual' },
    root: {
      type: 'stack',
      props: { axis: 'vertical' },
      children: [
        { type: 'text', props: { text_key: 'offer' } },
        { type: 'text', props: { text_key: 'plain' } },
        { type: 'image', props: { url: 'https://example.com/a.png', alt: '{{primary.product_name}}' } },
        { type: 'purchase_button', props: { slot: 'primary', text: 'Only {{primary.price_per_month}} a month' } },
      ],
    },
    variants: [
      { id: 'control', weight: 1 },
      {
        id: 'two',
        weight: 1,
        slots: { 'monthly.v2': 'pro_monthly' },
        strings: { en: { plain: 'Or {{monthly.v2.price_per_week}} a week' } },
        root: {
          type: 'stack',
          props: { axis: 'vertical' },
          children: [
            { type: 'text', props: { text: '{{monthly.v2.intro_price}} for {{monthly.v2.intro_period}}' } },
            { type: 'text', props: { text_key: 'plain' } },
          ],
        },
      },
    ],
  };
}

/** PUTs `doc` and expects 422 validation_failed with exactly these errors, and nothing stored. */
async function refused(t: TestContext, doc: Json, errors: { path: string; message: string }[]): Promise<void> {
  const c = await client(t);
  const body = await problem(await c.request('PUT', '/api/paywalls/priced', { body: doc }), 422, 'validation_failed');
  assert.deepEqual(body.errors, errors);
  await problem(await c.request('GET', '/api/paywalls/priced'), 404, 'paywall_not_found');
}

const UNKNOWN_SLOT = 'A price variable names a slot not defined in slots';
const UNKNOWN_NAME = 'Unknown price variable; NAME is one of: price, price_per_month, price_per_week, period, trial, intro_price, intro_period, product_name';
const MALFORMED = 'Text between {{ and }} must be a variable: {{SLOT.NAME}}, {{SLOT.savings_vs.OTHER}} or {{countdown}}';

test('resolve keeps price variables as written and lists them on each node that holds them', async (t) => {
  const c = await client(t);
  await c.putPaywall('priced', priced());
  await c.publish('priced');

  const control = (await (await c.resolve({ paywallId: 'priced', locale: 'de' })).json()) as Json;
  // Every field a client written from the seed page reads is still there; `variables` is added on nodes only.
  assert.deepEqual(Object.keys(control).sort(), ['locale', 'metadata', 'paywall_id', 'product_slots', 'revision', 'root', 'variant']);
  const [offer, plain, image, buy] = control.root.children;
  assert.equal(offer.props.text, '{{primary.trial}} gratis, danach {{primary.price}} pro {{primary.period}}');
  assert.deepEqual(offer.variables, [
    { prop: 'text', slot: 'primary', name: 'trial', token: '{{primary.trial}}' },
    { prop: 'text', slot: 'primary', name: 'price', token: '{{primary.price}}' },
    { prop: 'text', slot: 'primary', name: 'period', token: '{{primary.period}}' },
  ]);
  // The German table lacks `plain`: it falls back to English, which has no variables.
  assert.equal(plain.props.text, 'No prices here');
  assert.equal('variables' in plain, false);
  assert.deepEqual(image.variables, [{ prop: 'alt', slot: 'primary', name: 'product_name', token: '{{primary.product_name}}' }]);
  assert.deepEqual(buy.variables, [{ prop: 'text', slot: 'primary', name: 'price_per_month', token: '{{primary.price_per_month}}' }]);
  assert.equal(buy.product.id, 'pro_annual');

  // The variant's own slot (with a dot in its name) in its own tree and its own strings.
  let two: Json | undefined;
  for (let user = 0; !two; user++) {
    const answer = (await (await c.resolve({ paywallId: 'priced', userId: `u${user}` })).json()) as Json;
    if (answer.variant.id === 'two') two = answer;
  }
  assert.deepEqual(
    two.root.children.map((node: Json) => node.variables),
    [
      [
        { prop: 'text', slot: 'monthly.v2', name: 'intro_price', token: '{{monthly.v2.intro_price}}' },
        { prop: 'text', slot: 'monthly.v2', name: 'intro_period', token: '{{monthly.v2.intro_period}}' },
      ],
      [{ prop: 'text', slot: 'monthly.v2', name: 'price_per_week', token: '{{monthly.v2.price_per_week}}' }],
    ],
  );
});

test('an unknown variable name in a literal label is refused at the label', async (t) => {
  const doc = priced();
  doc.root.children[3].props.text = 'Only {{primary.cost}}';
  await refused(t, doc, [{ path: '/root/children/3/props/text', message: UNKNOWN_NAME }]);
});

test('an unknown slot in a string is refused at the string of that locale', async (t) => {
  const doc = priced();
  doc.strings.de.offer = 'Nur {{secondary.price}}';
  await refused(t, doc, [{ path: '/strings/de/offer', message: UNKNOWN_SLOT }]);
});

test('a malformed variable and one in an alt text are refused at their pointers', async (t) => {
  const doc = priced();
  doc.strings.en.plain = 'Only {{price}}';
  doc.root.children[2].props.alt = '{{nowhere.product_name}}';
  await refused(t, doc, [
    { path: '/root/children/2/props/alt', message: UNKNOWN_SLOT },
    { path: '/strings/en/plain', message: MALFORMED },
  ]);
});

test("a variant's slot counts for the variant's texts only", async (t) => {
  // The paywall's root is served with the paywall's slots: the variant's slot is not one of them.
  const doc = priced();
  doc.root.children[1].props = { text: '{{monthly.v2.price}}' };
  await refused(t, doc, [{ path: '/root/children/1/props/text', message: UNKNOWN_SLOT }]);
});

test("a variant's string naming a slot the variant lacks is refused at the variant's string", async (t) => {
  const doc = priced();
  // Variant two has monthly.v2; a control-only override naming it is shown with the control's slots.
  doc.variants[0].strings = { en: { offer: '{{monthly.v2.price}}' } };
  await refused(t, doc, [{ path: '/variants/0/strings/en/offer', message: UNKNOWN_SLOT }]);
});

test('a string no tree shows may name the slot of any variant, but no unknown slot', async (t) => {
  const c = await client(t);
  const doc = priced();
  doc.strings.en.spare = 'Spare {{monthly.v2.price}}';
  assert.equal((await c.request('PUT', '/api/paywalls/priced', { body: doc })).status, 201);
  doc.strings.en.spare = 'Spare {{gone.price}}';
  const body = await problem(await c.request('PUT', '/api/paywalls/priced', { body: doc }), 422, 'validation_failed');
  assert.deepEqual(body.errors, [{ path: '/strings/en/spare', message: UNKNOWN_SLOT }]);
});

test('text that only looks like a variable is left alone: single braces and an unclosed pair', async (t) => {
  const c = await client(t);
  const doc = priced();
  doc.strings.en.plain = 'Use {primary.price} or {{ and be happy';
  assert.equal((await c.request('PUT', '/api/paywalls/priced', { body: doc })).status, 201);
});
