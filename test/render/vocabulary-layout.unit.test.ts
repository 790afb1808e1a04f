/**
 * layoutModel on the selection, savings, countdowns, show_if, the theme,
 * pages and videos, without a DOM: what a native view draws with a switch
 * over `type`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layoutModel } from '../../render/layout.ts';
import type { LayoutNode, ResolvedInput, StorePrice } from '../../render/types.ts';

type Json = Record<string, unknown>;

const product = (id: string, name: string) => ({ id, name, store_product_id: `com.acme.${id}` });
const ANNUAL: StorePrice = { amount: 49.99, currency: 'USD', period: 'P1Y', trial: 'P7D', eligible_for_intro: true };
const MONTHLY: StorePrice = { amount: 9.99, currency: 'USD', period: 'P1M' };
const PRICES = { pro_annual: ANNUAL, pro_monthly: MONTHLY };

/** An answer with an annual and a monthly slot around `children`. */
function answer(children: Json[], more: Partial<ResolvedInput> = {}, locale = 'en'): ResolvedInput {
  return {
    locale,
    product_slots: [
      { slot: 'annual', product_id: 'pro_annual', store_product_id: 'com.acme.pro_annual' },
      { slot: 'monthly', product_id: 'pro_monthly', store_product_id: 'com.acme.pro_monthly' },
    ],
    root: { type: 'stack', props: { axis: 'vertical' }, children },
    ...more,
  };
}

const picker = (defaultSlot = 'annual') => ({
  type: 'package_group',
  props: { default_slot: defaultSlot },
  children: [
    {
      type: 'package',
      props: { slot: 'annual', badge: 'Save {{annual.savings_vs.monthly}}' },
      product: product('pro_annual', 'Pro Annual'),
      children: [{ type: 'text', props: { text: '{{annual.price}}' } }],
    },
    {
      type: 'package',
      props: { slot: 'monthly' },
      product: product('pro_monthly', 'Pro Monthly'),
      children: [{ type: 'text', props: { text: '{{monthly.price}}' } }],
    },
  ],
});
const buy = { type: 'purchase_button', props: { slot: 'selected', text: 'Continue for {{selected.price}}' }, product: null };
const then = { type: 'text', props: { text: 'Then {{selected.price_per_month}} a month' } };

const children = (node: LayoutNode | null) => node!.children!;
const plain = (text: string | undefined) => text?.replace(/[\u00a0\u202f]/g, ' ');

test('a package_group selects its default_slot; the selection fills "selected" and the purchase button buys it', () => {
  const model = layoutModel(answer([picker(), buy, then]), PRICES);
  assert.equal(model.selected, 'annual');
  const [group, button, text] = children(model.root);
  assert.deepEqual(
    children(group!).map((pkg) => [pkg.type, pkg.selected, pkg.action]),
    [
      ['package', true, { type: 'select', slot: 'annual', product_id: 'pro_annual', store_product_id: 'com.acme.pro_annual' }],
      ['package', false, { type: 'select', slot: 'monthly', product_id: 'pro_monthly', store_product_id: 'com.acme.pro_monthly' }],
    ],
  );
  assert.equal(button!.text, 'Continue for $49.99');
  assert.deepEqual(button!.action, { type: 'purchase', slot: 'annual', product_id: 'pro_annual', store_product_id: 'com.acme.pro_annual' });
  assert.equal(button!.enabled, true);
  assert.equal(text!.text, 'Then $4.17 a month');

  // The user picks the monthly package.
  const monthly = layoutModel(answer([picker(), buy, then]), PRICES, { selected: 'monthly' });
  assert.deepEqual(
    children(children(monthly.root)[0]!).map((pkg) => pkg.selected),
    [false, true],
  );
  assert.deepEqual(children(monthly.root)[1]!.action, {
    type: 'purchase',
    slot: 'monthly',
    product_id: 'pro_monthly',
    store_product_id: 'com.acme.pro_monthly',
  });
  assert.equal(children(monthly.root)[2]!.text, 'Then $9.99 a month');
  // A slot the selection cannot hold is ignored.
  assert.equal(layoutModel(answer([picker(), buy]), PRICES, { selected: 'weekly' }).selected, 'annual');
});

test('a toggle selects slot_on or slot_off; it holds one product and a tap asks for the other', () => {
  const toggle = { type: 'toggle', props: { text: 'Free trial', slot_on: 'annual', slot_off: 'monthly', default: true } };
  const on = layoutModel(answer([toggle, buy]), PRICES);
  const [node, button] = children(on.root);
  assert.deepEqual([node!.on, node!.text, node!.product?.id, node!.action?.slot], [true, 'Free trial', 'pro_annual', 'monthly']);
  assert.equal(button!.text, 'Continue for $49.99');
  const off = layoutModel(answer([toggle, buy]), PRICES, { selected: 'monthly' });
  assert.deepEqual([children(off.root)[0]!.on, children(off.root)[0]!.action?.slot, children(off.root)[1]!.text], [false, 'annual', 'Continue for $9.99']);
  assert.equal(layoutModel(answer([{ ...toggle, props: { ...toggle.props, default: false } }]), PRICES).selected, 'monthly');
});

test('savings: a whole percent per month in the locale, rounded down, left out when it cannot be told', () => {
  const save = (prices: Json, locale = 'en') => children(layoutModel(answer([picker()], {}, locale), prices as never).root)[0]!.children![0]!.badge;
  assert.equal(save(PRICES), 'Save 58%');
  assert.equal(plain(save({ pro_annual: { ...ANNUAL, currency: 'EUR' }, pro_monthly: { ...MONTHLY, currency: 'EUR' } }, 'de')), 'Save 58 %');
  assert.equal(save({ pro_annual: ANNUAL }), undefined, 'no price for the other');
  assert.equal(save({ pro_annual: { ...ANNUAL, period: undefined }, pro_monthly: MONTHLY }), undefined, 'no period');
  assert.equal(save({ pro_annual: ANNUAL, pro_monthly: { ...MONTHLY, currency: 'EUR' } }), undefined, 'two currencies');
  assert.equal(save({ pro_annual: { ...ANNUAL, amount: 200 }, pro_monthly: MONTHLY }), undefined, 'not cheaper');
});

test('a countdown: ends_at in epoch milliseconds, the time left each second, days, and hiding or showing once ended', () => {
  const endsAt = Date.parse('2030-01-04T12:00:00Z');
  const countdown = (expired: string, props: Json = { ends_at: '2030-01-04T12:00:00Z' }) => ({
    type: 'countdown',
    props: { text: 'Ends in {{countdown}}', expired, ...props },
  });
  const at = (now: number, node = countdown('hide')) => children(layoutModel(answer([node]), {}, { now }).root)[0]!;
  assert.deepEqual([at(endsAt - 7_985_000).ends_at, at(endsAt - 7_985_000).text, at(endsAt - 7_985_000).expired], [endsAt, 'Ends in 02:13:05', false]);
  assert.equal(at(endsAt - 7_984_000).text, 'Ends in 02:13:04');
  assert.equal(at(endsAt - (3 * 86_400_000 + 7_985_000)).text, 'Ends in 3d 02:13:05');
  assert.deepEqual([at(endsAt).visible, at(endsAt).expired], [false, true]);
  assert.deepEqual([at(endsAt + 5000, countdown('show')).visible, at(endsAt + 5000, countdown('show')).text], [true, 'Ends in 00:00:00']);
  // duration_seconds runs from the user's first view.
  const fromFirstView = children(
    layoutModel(answer([countdown('hide', { duration_seconds: 3600 })]), {}, { now: 2_000_000, firstViewedAt: 1_000_000 }).root,
  )[0]!;
  assert.deepEqual([fromFirstView.ends_at, fromFirstView.text], [1_000_000 + 3_600_000, 'Ends in 00:43:20']);
});

test('show_if: shown by the store eligibility of a slot or of the selection; unknown is not eligible', () => {
  const trial = (slot: string, eligible: boolean) => ({
    type: 'text',
    props: { text: `${slot} ${eligible}` },
    show_if: { slot, eligible_for_intro: eligible },
  });
  const nodes = [picker(), trial('annual', true), trial('annual', false), trial('monthly', true), trial('monthly', false), trial('selected', true)];
  const shown = (options = {}) =>
    children(layoutModel(answer(nodes), PRICES, options).root)
      .slice(1)
      .map((node) => node.visible);
  assert.deepEqual(shown(), [true, false, false, true, true]);
  assert.deepEqual(shown({ selected: 'monthly' }), [true, false, false, true, false]);
  assert.deepEqual(
    children(layoutModel(answer(nodes), {}).root)
      .slice(1)
      .map((node) => node.visible),
    [false, true, false, true, false],
  );
});

test('the theme: colours for the asked scheme, fonts by family, unknown names left out', () => {
  const theme = {
    colors: { brand: { light: '#4338CA', dark: '#A5B4FC' }, surface: { light: '#FFFFFF', dark: '#111118' }, accent: { light: '#B91C1C', dark: '#FCA5A5' } },
    fonts: { heading: { family: 'Inter Display', url: 'https://fonts.example.com/inter.woff2', weight: 700 }, body: { family: 'Georgia' } },
  };
  const tree = [
    { type: 'stack', props: { axis: 'vertical', background: '@surface' }, children: [] },
    { type: 'text', props: { text: 'Hi', style: { color: '@brand', font: '@heading', font_size: 20 } } },
    { type: 'icon', props: { name: 'star', color: '@missing' } },
  ];
  const light = layoutModel(answer(tree, { theme }), {});
  const dark = layoutModel(answer(tree, { theme }), {}, { colorScheme: 'dark' });
  assert.deepEqual([light.scheme, dark.scheme], ['light', 'dark']);
  assert.deepEqual([light.accent, dark.accent], ['#B91C1C', '#FCA5A5']);
  assert.equal(children(light.root)[0]!.props.background, '#FFFFFF');
  assert.equal(children(dark.root)[0]!.props.background, '#111118');
  assert.deepEqual(children(light.root)[1]!.props.style, { color: '#4338CA', font: 'Inter Display', font_size: 20 });
  assert.deepEqual(children(dark.root)[1]!.props.style, { color: '#A5B4FC', font: 'Inter Display', font_size: 20 });
  assert.deepEqual(children(dark.root)[2]!.props, { name: 'star' });
  // A theme from elsewhere that is not what the server writes draws without its colours, and does not throw.
  const broken = { colors: { brand: null, surface: 'white' }, fonts: { heading: 7 } } as never;
  assert.deepEqual(children(layoutModel(answer(tree, { theme: broken }), {}).root)[1]!.props.style, { font_size: 20 });
  assert.deepEqual(layoutModel(answer(tree, { theme: broken }), {}).fonts, []);
  assert.deepEqual(light.fonts, [
    { name: 'heading', family: 'Inter Display', url: 'https://fonts.example.com/inter.woff2', weight: 700 },
    { name: 'body', family: 'Georgia' },
  ]);
});

test('pages advance by themselves unless the user asks for less motion; a video plays by itself only then too', () => {
  const pages = {
    type: 'pages',
    props: { indicator: 'dots', auto_advance_seconds: 4 },
    children: [
      { type: 'text', props: { text: 'One' } },
      { type: 'text', props: { text: 'Two' } },
    ],
  };
  const video = { type: 'video', props: { url: 'https://cdn.example.com/v.mp4', poster_url: 'https://cdn.example.com/p.jpg', autoplay: true, loop: true } };
  const moving = children(layoutModel(answer([pages, video]), {}).root);
  assert.equal(moving[0]!.interval, 4000);
  assert.deepEqual(
    moving[0]!.children!.map((page) => page.text),
    ['One', 'Two'],
  );
  assert.deepEqual([moving[1]!.url, moving[1]!.poster_url, moving[1]!.autoplay], ['https://cdn.example.com/v.mp4', 'https://cdn.example.com/p.jpg', true]);
  const still = children(layoutModel(answer([pages, video]), {}, { reducedMotion: true }).root);
  assert.equal(still[0]!.interval, undefined);
  assert.deepEqual([still[1]!.url, still[1]!.poster_url, still[1]!.autoplay, still[1]!.visible], [undefined, 'https://cdn.example.com/p.jpg', false, true]);
  const cleartext = children(
    layoutModel(answer([{ type: 'video', props: { url: 'http://cdn.example.com/v.mp4', poster_url: 'http://cdn.example.com/p.jpg' } }]), {}).root,
  );
  assert.equal(cleartext[0]!.visible, false);
});

test('an app too old for the new types draws their fallbacks', () => {
  const withFallback = { ...picker(), fallback: { type: 'product', props: { slot: 'annual' }, product: product('pro_annual', 'Pro Annual') } };
  const model = layoutModel(answer([withFallback]), PRICES, { asOlderApp: true });
  assert.deepEqual(
    children(model.root).map((node) => [node.type, node.path]),
    [['product', '/children/0/fallback']],
  );
});
