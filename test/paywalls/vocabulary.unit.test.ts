/**
 * The selection, pages, countdown, video, show_if and theme vocabulary: each
 * rule refuses at its pointer with a message a person understands, the
 * warnings for older apps and ended countdowns, and the vocabulary as data.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMPONENT_TYPES, type PaywallWarning, validatePaywall } from '../../src/paywalls/document/index.ts';
import { nodeVocabulary } from '../../src/paywalls/document/vocabulary.ts';

const PRODUCTS = new Set(['pro_annual', 'pro_monthly', 'pro_weekly']);
const deps = { productExists: (productId: string) => PRODUCTS.has(productId) };

type Json = Record<string, any>;

const pkg = (slot: string, more: Json = {}) => ({
  type: 'package',
  props: { slot },
  children: [{ type: 'text', props: { text: `{{${slot}.price}}` } }],
  ...more,
});
const group = (packages: Json[], defaultSlot = 'annual') => ({ type: 'package_group', props: { default_slot: defaultSlot }, children: packages });
const buy = { type: 'purchase_button', props: { slot: 'selected', text: 'Continue with {{selected.price}}' } };

/** A document around `children` (the root stack's), with three slots and a string of each kind. */
function doc(children: Json[], more: Json = {}): Json {
  return {
    name: 'Picker',
    default_locale: 'en',
    strings: { en: { title: 'Go Pro', save: 'Save {{annual.savings_vs.monthly}}', ends: 'Ends in {{countdown}}', trial: 'Free trial' } },
    slots: { annual: 'pro_annual', monthly: 'pro_monthly', weekly: 'pro_weekly' },
    root: { type: 'stack', props: { axis: 'vertical' }, children },
    ...more,
  };
}

function errors(document: Json): [string, string][] {
  const result = validatePaywall(document, deps);
  assert.equal(result.ok, false, 'expected the document to be refused');
  return result.ok ? [] : result.errors.map((error) => [error.path, error.message]);
}

function warnings(document: Json): PaywallWarning[] {
  const result = validatePaywall(document, deps);
  assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
  return result.warnings;
}

describe('the selection', () => {
  test('a package_group with a fallback, a badge, "selected" in texts and the purchase button is valid', () => {
    const picker = {
      ...group([pkg('annual', { props: { slot: 'annual', badge_key: 'save' } }), pkg('monthly')]),
      fallback: { type: 'product', props: { slot: 'annual' } },
    };
    const result = validatePaywall(doc([picker, { type: 'text', props: { text: 'Then {{selected.price}} a {{selected.period}}' } }, buy]), deps);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
  });

  test('a package outside a package_group, and anything but a package inside one, are refused at their pointers', () => {
    assert.deepEqual(errors(doc([pkg('annual')])), [['/root/children/0', 'A package must be a child of a package_group']]);
    assert.deepEqual(errors(doc([group([pkg('annual'), { type: 'text', props: { text: 'x' } }])])), [
      ['/root/children/0/children/1', 'A package_group holds package nodes only'],
    ]);
  });

  test('a group needs packages, at most six, each slot once, and a default that is one of them', () => {
    assert.deepEqual(errors(doc([group([])])), [['/root/children/0', 'A package_group needs at least one package']]);
    const seven = ['annual', 'monthly', 'weekly', 'annual', 'monthly', 'weekly', 'annual'].map((slot) => pkg(slot));
    assert.ok(errors(doc([group(seven)])).some(([path, message]) => path === '/root/children/0/children' && message === 'At most 6 packages in a group'));
    assert.deepEqual(errors(doc([group([pkg('annual'), pkg('annual')])])), [
      ['/root/children/0/children/1/props/slot', 'Another package of this group has this slot'],
    ]);
    assert.deepEqual(errors(doc([group([pkg('annual'), pkg('monthly')], 'weekly')])), [
      ['/root/children/0/props/default_slot', "Must be the slot of one of the group's packages"],
    ]);
    assert.deepEqual(errors(doc([group([pkg('annual')], 'yearly')])), [
      ['/root/children/0/props/default_slot', "Must be the slot of one of the group's packages"],
      ['/root/children/0/props/default_slot', 'Not a slot defined in slots'],
    ]);
  });

  test('one selection per tree: a second package_group or toggle is refused at its pointer', () => {
    const toggle = { type: 'toggle', props: { text_key: 'trial', slot_on: 'weekly', slot_off: 'monthly', default: true } };
    assert.deepEqual(errors(doc([group([pkg('annual')]), toggle])), [
      ['/root/children/1', 'A paywall has one selection: this is a second package_group or toggle'],
    ]);
    assert.deepEqual(errors(doc([{ ...toggle, props: { ...toggle.props, slot_off: 'weekly' } }])), [
      ['/root/children/0/props/slot_off', 'Must differ from slot_on'],
    ]);
  });

  test('"selected" needs a selection: in a text, a string, the purchase button and show_if', () => {
    const noSelection = 'Names the selection ("selected"), but this tree has no package_group or toggle';
    assert.deepEqual(errors(doc([buy])), [
      ['/root/children/0/props/slot', noSelection],
      ['/root/children/0/props/text', 'A variable names the selection ("selected"), but this tree has no package_group or toggle'],
    ]);
    const keyed = doc([{ type: 'text', props: { text_key: 'after' } }]);
    keyed.strings.en.after = 'Then {{selected.price}}';
    assert.deepEqual(errors(keyed), [['/strings/en/after', 'A variable names the selection ("selected"), but this tree has no package_group or toggle']]);
    assert.deepEqual(errors(doc([{ type: 'text', props: { text: 'Free' }, show_if: { slot: 'selected', eligible_for_intro: true } }])), [
      ['/root/children/0/show_if/slot', noSelection],
    ]);
  });

  test('"selected" is reserved: no slot may be named so', () => {
    const document = doc([]);
    document.slots.selected = 'pro_annual';
    assert.deepEqual(errors(document), [['/slots/selected', '"selected" is reserved: it names the slot a package_group or toggle selects']]);
  });

  test('savings name two slots where the text is shown', () => {
    assert.ok(validatePaywall(doc([{ type: 'text', props: { text: 'Save {{annual.savings_vs.monthly}}' } }]), deps).ok);
    assert.deepEqual(errors(doc([{ type: 'text', props: { text: 'Save {{annual.savings_vs.daily}}' } }])), [
      ['/root/children/0/props/text', 'A price variable names a slot not defined in slots'],
    ]);
  });
});

describe('show_if, pages, countdown and video', () => {
  test('show_if names a slot of the document', () => {
    assert.ok(validatePaywall(doc([{ type: 'text', props: { text_key: 'trial' }, show_if: { slot: 'annual', eligible_for_intro: true } }]), deps).ok);
    assert.deepEqual(errors(doc([{ type: 'text', props: { text_key: 'trial' }, show_if: { slot: 'daily', eligible_for_intro: true } }])), [
      ['/root/children/0/show_if/slot', 'Not a slot defined in slots'],
    ]);
    assert.deepEqual(errors(doc([{ type: 'text', props: { text_key: 'trial' }, show_if: { slot: 'annual' } }])), [
      ['/root/children/0/show_if/eligible_for_intro', 'Required property is missing'],
    ]);
  });

  test('pages hold one to ten pages and auto-advance every 2 to 60 seconds', () => {
    const pages = (count: number, props: Json = { indicator: 'dots' }) => ({
      type: 'pages',
      props,
      children: Array.from({ length: count }, () => ({ type: 'spacer' })),
    });
    assert.ok(validatePaywall(doc([pages(10, { indicator: 'dots', auto_advance_seconds: 5 })]), deps).ok);
    assert.deepEqual(errors(doc([pages(11)])), [['/root/children/0/children', 'At most 10 pages']]);
    assert.deepEqual(errors(doc([pages(0)])), [['/root/children/0', 'A pages node needs at least one page']]);
    assert.deepEqual(errors(doc([pages(1, { indicator: 'dots', auto_advance_seconds: 1 })])), [
      ['/root/children/0/props/auto_advance_seconds', 'Must be at least 2'],
    ]);
    assert.deepEqual(errors(doc([pages(1, { indicator: 'bars' })])), [['/root/children/0/props/indicator', 'Expected one of: dots, none']]);
  });

  test('a countdown has ends_at or duration_seconds, and {{countdown}} fills only its text', () => {
    const countdown = (props: Json) => ({ type: 'countdown', props: { text_key: 'ends', expired: 'hide', ...props } });
    assert.ok(validatePaywall(doc([countdown({ ends_at: '2099-01-01T00:00:00+02:00' })]), deps).ok);
    assert.deepEqual(errors(doc([countdown({ ends_at: '2099-01-01T00:00:00Z', duration_seconds: 3600 })])), [
      ['/root/children/0/props/duration_seconds', 'Give either ends_at or duration_seconds, not both'],
    ]);
    assert.deepEqual(errors(doc([countdown({})])), [['/root/children/0/props', 'Requires ends_at or duration_seconds']]);
    assert.deepEqual(errors(doc([countdown({ ends_at: 'tomorrow' })])), [
      ['/root/children/0/props/ends_at', 'Must be an RFC 3339 instant such as 2025-11-28T23:59:59Z'],
    ]);
    assert.deepEqual(errors(doc([countdown({ ends_at: '2099-13-01T00:00:00Z' })])), [['/root/children/0/props/ends_at', 'Must be a real date and time']]);
    assert.deepEqual(errors(doc([countdown({ duration_seconds: 59 })])), [['/root/children/0/props/duration_seconds', 'Must be at least 60']]);
    assert.deepEqual(errors(doc([{ type: 'text', props: { text_key: 'ends' } }])), [
      ['/strings/en/ends', '{{countdown}} is filled only in the text of a countdown'],
    ]);
  });

  test('a video and its poster are https', () => {
    const video = (props: Json) => ({ type: 'video', props: { url: 'https://cdn.example.com/a.mp4', poster_url: 'https://cdn.example.com/a.jpg', ...props } });
    assert.ok(validatePaywall(doc([video({ loop: true, autoplay: true })]), deps).ok);
    assert.deepEqual(errors(doc([video({ url: 'http://cdn.example.com/a.mp4' })])), [['/root/children/0/props/url', 'Must be an https:// URL']]);
    assert.deepEqual(errors(doc([video({ poster_url: 'data:image/png;base64,AAAA' })])), [['/root/children/0/props/poster_url', 'Must be an https:// URL']]);
  });

  test('a fallback holds nothing an older app cannot draw, and no "selected"', () => {
    const picker = group([pkg('annual')]);
    assert.deepEqual(errors(doc([{ type: 'video', props: { url: 'https://a.example/v.mp4', poster_url: 'https://a.example/p.jpg' }, fallback: picker }])), [
      ['/root/children/0/fallback', 'A fallback is shown by apps too old for package_group: it cannot hold one'],
    ]);
    assert.deepEqual(errors(doc([{ ...picker, fallback: buy }])), [
      ['/root/children/0/fallback/props/slot', 'A fallback is shown by apps that know no selection: name a slot, not "selected"'],
      ['/root/children/0/fallback/props/text', 'A variable names the selection ("selected"), but this tree has no package_group or toggle'],
    ]);
  });
});

describe('the theme', () => {
  const theme = {
    colors: { brand: { light: '#4338CA', dark: '#A5B4FC' } },
    fonts: { heading: { family: 'Inter Display', url: 'https://fonts.example.com/inter.woff2', weight: 700 } },
  };

  test('colour props and style.font take @NAME of the theme', () => {
    const themed = doc(
      [
        { type: 'text', props: { text: 'Hi', style: { color: '@brand', font: '@heading' } } },
        { type: 'icon', props: { name: 'star', color: '@brand' } },
      ],
      { theme },
    );
    themed.root.props.background = '@brand';
    assert.ok(validatePaywall(themed, deps).ok);
  });

  test('an unknown colour or font name is refused at its pointer', () => {
    const unknown = doc(
      [
        { type: 'text', props: { text: 'Hi', style: { color: '@accent', font: '@body' } } },
        { type: 'icon', props: { name: 'star', color: '@accent' } },
      ],
      { theme },
    );
    assert.deepEqual(errors(unknown), [
      ['/root/children/0/props/style/color', 'No color of the theme has this name'],
      ['/root/children/0/props/style/font', 'No font of the theme has this name'],
      ['/root/children/1/props/color', 'No color of the theme has this name'],
    ]);
    assert.deepEqual(errors(doc([{ type: 'text', props: { text: 'Hi', style: { color: '@brand' } } }])), [
      ['/root/children/0/props/style/color', 'No color of the theme has this name'],
    ]);
  });

  test('theme values: hex colours, plain family names, https WOFF2 files, weights, at most four fonts', () => {
    const withTheme = (value: Json) => doc([], { theme: value });
    assert.deepEqual(errors(withTheme({ colors: { brand: { light: 'blue', dark: '#000000' } } })), [
      ['/theme/colors/brand/light', 'Must be a hex color: #RRGGBB or #RRGGBBAA'],
    ]);
    assert.deepEqual(errors(withTheme({ fonts: { body: { family: 'Inter"; x', url: 'http://fonts.example.com/a.woff2' } } })), [
      ['/theme/fonts/body/family', 'Must be 1 to 64 letters, digits, spaces, "_" or "-"'],
      ['/theme/fonts/body/url', 'Must be an https:// URL of a .woff2 file'],
    ]);
    assert.deepEqual(errors(withTheme({ fonts: { body: { family: 'Inter', url: 'https://fonts.example.com/a.ttf', weight: 950 } } })), [
      ['/theme/fonts/body/url', 'Must be an https:// URL of a .woff2 file'],
      ['/theme/fonts/body/weight', 'Must be at most 900'],
    ]);
    const five = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((name) => [name, { family: 'Inter' }]));
    assert.deepEqual(errors(withTheme({ fonts: five })), [['/theme/fonts', 'At most 4 fonts']]);
    const colors = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`c${i}`, { light: '#000000', dark: '#FFFFFF' }]));
    assert.ok(validatePaywall(withTheme({ colors: colors(32) }), deps).ok);
    assert.deepEqual(errors(withTheme({ colors: colors(33) })), [['/theme/colors', 'At most 32 colors']]);
    assert.deepEqual(errors(withTheme({ colors: { '1st': { light: '#000000', dark: '#ffffff' } } })), [
      ['/theme/colors/1st', 'Must be 1 to 32 letters, digits, "_" or "-", starting with a letter'],
    ]);
  });
});

describe('warnings', () => {
  test('a node of a newer type without a fallback warns at its pointer; nodes inside it do not', () => {
    const codes = (document: Json) => warnings(document).filter((warning) => warning.code === 'missing_fallback');
    const bare = codes(doc([group([pkg('annual')]), buy]));
    assert.deepEqual(bare, [
      { path: '/root/children/0', code: 'missing_fallback', message: 'Apps too old for package_group show nothing here: give it a fallback' },
    ]);
    assert.deepEqual(codes(doc([{ ...group([pkg('annual')]), fallback: { type: 'product', props: { slot: 'annual' } } }, buy])), []);
  });

  test('a countdown whose ends_at has passed warns', () => {
    const countdown = (endsAt: string) => ({ type: 'countdown', props: { text_key: 'ends', expired: 'hide', ends_at: endsAt }, fallback: { type: 'spacer' } });
    assert.deepEqual(
      warnings(doc([countdown('2001-01-01T00:00:00Z')])).filter((warning) => warning.code === 'countdown_ended'),
      [{ path: '/root/children/0/props/ends_at', code: 'countdown_ended', message: 'This time has passed: the countdown shows as ended' }],
    );
    assert.deepEqual(
      warnings(doc([countdown('2099-01-01T00:00:00Z')])).filter((warning) => warning.code === 'countdown_ended'),
      [],
    );
  });
});

describe('the vocabulary as data', () => {
  test('every node type, with what it is for, each prop with its kind, and the children it takes', () => {
    const vocabulary = nodeVocabulary();
    assert.deepEqual(
      vocabulary.map((node) => node.type),
      [...COMPONENT_TYPES],
    );
    for (const node of vocabulary) assert.ok(node.description.length > 10, node.type);
    const byType = Object.fromEntries(vocabulary.map((node) => [node.type, node]));
    assert.deepEqual(
      byType.toggle!.props.map((prop) => [prop.name, prop.kind, prop.required]),
      [
        ['text_key', 'text_key', true],
        ['slot_on', 'slot', true],
        ['slot_off', 'slot', true],
        ['default', 'boolean', true],
        ['style', 'style', false],
      ],
    );
    assert.deepEqual(byType.pages!.props[1], { name: 'auto_advance_seconds', kind: 'number', required: false, min: 2, max: 60, integer: true });
    assert.deepEqual(byType.pages!.props[0], { name: 'indicator', kind: 'enum', required: true, options: ['dots', 'none'] });
    assert.equal(byType.stack!.props.find((prop) => prop.name === 'background')!.kind, 'color');
    assert.equal(byType.countdown!.props.find((prop) => prop.name === 'ends_at')!.kind, 'instant');
    assert.equal(byType.video!.props.find((prop) => prop.name === 'poster_url')!.kind, 'url');
    assert.deepEqual(
      byType.text!.props.find((prop) => prop.name === 'style')!.fields!.map((field) => field.kind),
      ['size', 'enum', 'color', 'enum', 'font'],
    );
    assert.deepEqual(byType.package_group!.children, { only: 'package', max: 6 });
    assert.deepEqual(byType.pages!.children, { max: 10 });
    assert.equal(byType.text!.children, null);
    assert.deepEqual(
      vocabulary.filter((node) => node.needs_fallback).map((node) => node.type),
      ['package_group', 'package', 'toggle', 'pages', 'countdown', 'video'],
    );
  });
});
