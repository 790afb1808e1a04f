import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import {
  COMPONENT_TYPES,
  type ComponentNode,
  ComponentNodeSchema,
  PaywallSchema,
  type PaywallWarning,
  validatePaywall,
} from '../../src/paywalls/document/index.ts';
import { example as issueExample } from '../helpers/example-paywall.ts';

const PRODUCTS = new Set(['pro_annual', 'pro_monthly']);
const deps = { productExists: (productId: string) => PRODUCTS.has(productId) };

/** The reference example document, with metadata and a holdout variant added. */
function example(): Record<string, any> {
  const document = issueExample();
  return {
    ...document,
    metadata: { theme: 'dark', tags: ['a', { nested: true }] },
    variants: [...document.variants, { id: 'holdout', weight: 0, holdout: true }],
  };
}

/** A tree with everything the warnings look for. */
function completeRoot(): ComponentNode {
  return {
    type: 'stack',
    props: { axis: 'vertical' },
    children: [
      { type: 'purchase_button', props: { slot: 'primary', text: 'Continue' } },
      { type: 'button', props: { text: 'Restore', action: 'restore' } },
      { type: 'link', props: { text: 'Terms', url: 'https://example.com/terms', kind: 'terms' } },
      { type: 'link', props: { text: 'Privacy', url: 'https://example.com/privacy', kind: 'privacy' } },
    ],
  };
}

function errorsOf(doc: unknown): { path: string; message: string }[] {
  const result = validatePaywall(doc, deps);
  assert.equal(result.ok, false, 'expected the document to be rejected');
  return result.ok ? [] : result.errors;
}

function errorPaths(doc: unknown): string[] {
  return errorsOf(doc).map((error) => error.path);
}

function warningsOf(doc: unknown): PaywallWarning[] {
  const result = validatePaywall(doc, deps);
  assert.ok(result.ok, `expected a valid document, got ${JSON.stringify(result.ok ? [] : result.errors)}`);
  return result.warnings;
}

/** A stack nested `depth` levels deep (the outermost stack is level 1), a text at the bottom. */
function nested(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'text', props: { text: 'x' } };
  for (let level = 1; level < depth; level++) node = { type: 'stack', props: { axis: 'vertical' }, children: [node] };
  return node;
}

function wide(nodes: number): ComponentNode {
  return {
    type: 'stack',
    props: { axis: 'vertical' },
    children: Array.from({ length: nodes - 1 }, () => ({ type: 'spacer' as const })),
  };
}

describe('valid documents', () => {
  test('the reference example is valid with the products pro_annual and pro_monthly', () => {
    const result = validatePaywall(example(), deps);
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.variants.map((variant) => variant.id),
      ['control', 'annual_first', 'holdout'],
    );
    assert.deepEqual(result.value.metadata, { theme: 'dark', tags: ['a', { nested: true }] });
    assert.deepEqual(
      result.warnings.map((warning) => warning.code),
      ['no_privacy_link', 'no_restore_button', 'no_terms_link'],
    );
  });

  test('variants default to one variant "default" of weight 100', () => {
    const doc = example();
    delete doc.variants;
    delete doc.audiences;
    const result = validatePaywall(doc, deps);
    assert.ok(result.ok);
    assert.deepEqual(result.value.variants, [{ id: 'default', weight: 100 }]);
    assert.deepEqual(result.value.audiences, []);
  });

  test('every component type has a minimal valid node', () => {
    const minimal: Record<(typeof COMPONENT_TYPES)[number], ComponentNode> = {
      stack: { type: 'stack', props: { axis: 'z' } },
      text: { type: 'text', props: { text: 'Hi', style: { font_size: 17, font_weight: 'bold', color: '#112233', alignment: 'center' } } },
      image: { type: 'image', props: { url: 'https://cdn.example.com/hero.png', alt: 'Hero', aspect_ratio: 1.5 } },
      button: { type: 'button', props: { text: 'Close', action: 'close' } },
      purchase_button: { type: 'purchase_button', props: { slot: 'primary', text: 'Buy' } },
      product: { type: 'product', props: { slot: 'primary' } },
      spacer: { type: 'spacer' },
      icon: { type: 'icon', props: { name: 'star.fill', size: 24, color: '#FFD700FF' } },
      link: { type: 'link', props: { text: 'Terms', url: 'https://example.com/terms', kind: 'terms' } },
      package_group: { type: 'package_group', props: { default_slot: 'primary' }, children: [{ type: 'package', props: { slot: 'primary' } }] },
      // A package lives in a group: the group is the root.
      package: {
        type: 'package_group',
        props: { default_slot: 'secondary' },
        children: [{ type: 'package', props: { slot: 'secondary', badge_key: 'title' }, children: [{ type: 'text', props: { text: '{{secondary.price}}' } }] }],
      },
      toggle: { type: 'toggle', props: { text_key: 'title', slot_on: 'primary', slot_off: 'secondary', default: false } },
      pages: { type: 'pages', props: { indicator: 'none' }, children: [{ type: 'spacer' }] },
      countdown: { type: 'countdown', props: { duration_seconds: 60, text_key: 'title', expired: 'show' } },
      video: { type: 'video', props: { url: 'https://cdn.example.com/hero.mp4', poster_url: 'https://cdn.example.com/hero.jpg' } },
    };
    assert.deepEqual(Object.keys(minimal), [...COMPONENT_TYPES]);
    for (const node of Object.values(minimal)) {
      const result = validatePaywall({ ...example(), root: node }, deps);
      assert.ok(result.ok, `${node.type}: ${JSON.stringify(result.ok ? [] : result.errors)}`);
    }
  });

  test('a tree exactly 32 levels deep and one of exactly 2,000 nodes are accepted', () => {
    assert.ok(validatePaywall({ ...example(), root: nested(32) }, deps).ok);
    assert.ok(validatePaywall({ ...example(), root: wide(2000) }, deps).ok);
  });

  test('a variant root may use string keys and slots its own overrides define', () => {
    const doc = example();
    doc.variants[0] = {
      id: 'control',
      weight: 50,
      strings: { en: { promo: 'Half price' } },
      slots: { extra: 'pro_monthly' },
      root: {
        type: 'stack',
        props: { axis: 'vertical' },
        children: [
          { type: 'text', props: { text_key: 'promo' } },
          { type: 'text', props: { text_key: 'title' } },
          { type: 'product', props: { slot: 'extra' } },
        ],
      },
    };
    assert.ok(validatePaywall(doc, deps).ok);
  });
});

describe('rejected at write time, with a JSON pointer to the place', () => {
  test('unknown component type', () => {
    const doc = example();
    doc.root.children[0].type = 'carousel';
    assert.deepEqual(errorsOf(doc), [
      {
        path: '/root/children/0/type',
        message: `Unknown component type; expected one of: ${COMPONENT_TYPES.join(', ')}`,
      },
    ]);
  });

  test('a guardrail named twice, at its second mention; each once is valid', () => {
    const doc = example();
    doc.experiment = { guardrails: ['refund_rate', 'conversion', 'refund_rate'] };
    assert.deepEqual(errorsOf(doc), [{ path: '/experiment/guardrails/2', message: 'Must not name a metric twice' }]);
    doc.experiment.guardrails = ['refund_rate', 'conversion'];
    assert.ok(validatePaywall(doc, deps).ok);
  });

  test('missing component type', () => {
    const doc = example();
    delete doc.root.children[1].type;
    assert.deepEqual(errorPaths(doc), ['/root/children/1/type']);
  });

  test('unknown prop', () => {
    const doc = example();
    doc.root.children[1].props.bogus = 1;
    assert.deepEqual(errorsOf(doc), [{ path: '/root/children/1/props/bogus', message: 'Unknown property' }]);
  });

  test('unknown style prop', () => {
    const doc = example();
    doc.root.children[0].props.style = { font_size: 12, blink: true };
    assert.deepEqual(errorPaths(doc), ['/root/children/0/props/style/blink']);
  });

  test('children on anything but a stack', () => {
    const doc = example();
    doc.root.children[0].children = [];
    assert.deepEqual(errorPaths(doc), ['/root/children/0/children']);
  });

  test('a bad prop value', () => {
    const doc = example();
    doc.root.props.axis = 'diagonal';
    assert.deepEqual(errorsOf(doc), [{ path: '/root/props/axis', message: 'Expected one of: vertical, horizontal, z' }]);
  });

  test('missing required prop', () => {
    const doc = example();
    delete doc.root.children[1].props.slot;
    assert.deepEqual(errorsOf(doc), [{ path: '/root/children/1/props/slot', message: 'Required property is missing' }]);
  });

  test('both text and text_key, or neither', () => {
    const doc = example();
    doc.root.children[0].props.text = 'Go Pro';
    doc.root.children[2].props = { slot: 'primary' };
    assert.deepEqual(errorPaths(doc), ['/root/children/0/props/text_key', '/root/children/2/props']);
  });

  test('text_key missing from the default locale', () => {
    const doc = example();
    doc.strings.de.subtitle = 'Nur auf Deutsch';
    doc.root.children[0].props.text_key = 'subtitle';
    assert.deepEqual(errorsOf(doc), [{ path: '/root/children/0/props/text_key', message: "Not a key of the default locale's strings" }]);
  });

  test('alt_key missing from the default locale', () => {
    const doc = example();
    doc.root.children.push({ type: 'image', props: { url: 'https://example.com/a.png', alt_key: 'nope' } });
    assert.deepEqual(errorPaths(doc), ['/root/children/3/props/alt_key']);
  });

  test('text_key of a variant root missing from the default locale merged with the variant strings', () => {
    const doc = example();
    doc.variants[1].strings = { de: { promo: 'Nur auf Deutsch' } };
    doc.variants[1].root = {
      type: 'stack',
      props: { axis: 'vertical' },
      children: [
        { type: 'text', props: { text_key: 'title' } },
        { type: 'text', props: { text_key: 'promo' } },
      ],
    };
    assert.deepEqual(errorPaths(doc), ['/variants/1/root/children/1/props/text_key']);
  });

  test('slot not defined in slots', () => {
    const doc = example();
    doc.root.children[1].props.slot = 'tertiary';
    assert.deepEqual(errorsOf(doc), [{ path: '/root/children/1/props/slot', message: 'Not a slot defined in slots' }]);
  });

  test('a slot defined only by a variant cannot be used by the paywall root', () => {
    const doc = example();
    doc.variants[1].slots = { tertiary: 'pro_monthly' };
    doc.root.children[2].props.slot = 'tertiary';
    assert.deepEqual(errorPaths(doc), ['/root/children/2/props/slot']);
  });

  test('slot of a variant root not defined in the variant slots merged with the paywall slots', () => {
    const doc = example();
    doc.variants[0].root = { type: 'product', props: { slot: 'tertiary' } };
    doc.variants[1].root = { type: 'product', props: { slot: 'secondary' } };
    assert.deepEqual(errorPaths(doc), ['/variants/0/root/props/slot']);
  });

  test('slot naming a product that does not exist', () => {
    const doc = example();
    doc.slots.primary = 'pro_lifetime';
    doc.variants[1].slots.primary = 'pro_weekly';
    assert.deepEqual(errorsOf(doc), [
      { path: '/slots/primary', message: 'No product with this id exists in the project' },
      { path: '/variants/1/slots/primary', message: 'No product with this id exists in the project' },
    ]);
  });

  test('each product is looked up once', () => {
    const looked: string[] = [];
    const doc = example();
    doc.slots.tertiary = 'pro_annual';
    validatePaywall(doc, {
      productExists: (id) => {
        looked.push(id);
        return PRODUCTS.has(id);
      },
    });
    assert.deepEqual(looked.sort(), ['pro_annual', 'pro_monthly']);
  });

  test('default_locale missing from strings', () => {
    const doc = example();
    doc.default_locale = 'fr';
    assert.ok(errorPaths(doc).includes('/default_locale'));
  });

  test('duplicate variant ids', () => {
    const doc = example();
    doc.variants[1].id = 'control';
    doc.audiences[0].weights = { control: 100 };
    assert.deepEqual(errorsOf(doc), [{ path: '/variants/1/id', message: 'Duplicate variant id' }]);
  });

  test('holdout variant with a tree', () => {
    const doc = example();
    doc.variants[2].root = { type: 'spacer' };
    doc.variants[2].slots = { primary: 'pro_annual' };
    doc.variants[2].metadata = { reason: 'allowed' };
    assert.deepEqual(errorPaths(doc), ['/variants/2/root', '/variants/2/slots']);
  });

  test('no variants', () => {
    const doc = example();
    doc.variants = [];
    doc.audiences = [];
    assert.deepEqual(errorsOf(doc), [{ path: '/variants', message: 'At least one variant is required' }]);
  });

  test('all weights zero', () => {
    const doc = example();
    for (const variant of doc.variants) variant.weight = 0;
    assert.deepEqual(errorsOf(doc), [{ path: '/variants', message: 'At least one variant needs a weight above zero' }]);
  });

  test('weights that are not non-negative integers', () => {
    const doc = example();
    doc.variants[0].weight = -1;
    doc.variants[1].weight = 2.5;
    doc.audiences[0].weights.annual_first = '100';
    assert.deepEqual(errorPaths(doc), ['/audiences/0/weights/annual_first', '/variants/0/weight', '/variants/1/weight']);
  });

  test('audience naming an unknown variant', () => {
    const doc = example();
    doc.audiences[0].weights = { annual_first: 50, treatment: 50 };
    assert.deepEqual(errorsOf(doc), [{ path: '/audiences/0/weights/treatment', message: 'No variant has this id' }]);
  });

  test('audience whose weights are all zero', () => {
    const doc = example();
    doc.audiences[0].weights = { control: 0 };
    assert.deepEqual(errorPaths(doc), ['/audiences/0/weights']);
  });

  test('duplicate audience ids', () => {
    const doc = example();
    doc.audiences.push({ id: 'us_ios', when: {}, weights: { control: 1 } });
    assert.deepEqual(errorsOf(doc), [{ path: '/audiences/1/id', message: 'Duplicate audience id' }]);
  });

  test('invalid audience condition, with the paths of validateCondition under /audiences/i/when', () => {
    const doc = example();
    doc.audiences.push({ id: 'eu', when: { country: { $bogus: ['DE'] } }, weights: { control: 1 } });
    doc.audiences.push({ id: 'all', when: { $and: 5 }, weights: { control: 1 } });
    assert.deepEqual(errorPaths(doc), ['/audiences/1/when/country/$bogus', '/audiences/2/when/$and']);
  });

  test('a condition that is an array', () => {
    const doc = example();
    doc.audiences[0].when = [];
    assert.deepEqual(errorPaths(doc), ['/audiences/0/when']);
  });

  test('a tree deeper than 32 levels, at the first node of level 33', () => {
    const doc = example();
    doc.root = nested(40);
    doc.variants[0].root = { type: 'stack', props: { axis: 'vertical' }, children: [{ type: 'spacer' }, nested(33)] };
    assert.deepEqual(errorsOf(doc), [
      { path: `/root${'/children/0'.repeat(32)}`, message: 'The tree is nested deeper than 32 levels' },
      { path: `/variants/0/root/children/1${'/children/0'.repeat(31)}`, message: 'The tree is nested deeper than 32 levels' },
    ]);
  });

  test('100,000 nested stacks give a clean error, not a stack overflow', () => {
    const doc = example();
    doc.root = nested(100_000);
    assert.deepEqual(errorPaths(doc), [`/root${'/children/0'.repeat(32)}`]);
  });

  test('a chain of 100,000 fallbacks gives a clean error', () => {
    let node: Record<string, unknown> = { type: 'spacer' };
    for (let i = 0; i < 100_000; i++) node = { type: 'spacer', fallback: node };
    assert.deepEqual(errorPaths({ ...example(), root: node }), [`/root${'/fallback'.repeat(32)}`]);
  });

  test('a tree of more than 2,000 nodes, at the tree root', () => {
    const doc = example();
    doc.root = wide(2001);
    doc.variants[0].root = wide(100_000);
    assert.deepEqual(errorsOf(doc), [
      { path: '/root', message: 'The tree has more than 2000 nodes' },
      { path: '/variants/0/root', message: 'The tree has more than 2000 nodes' },
    ]);
  });

  test('fallback nodes count towards the 2,000 nodes', () => {
    const root = wide(2000) as { children: ComponentNode[] };
    root.children[0] = { type: 'spacer', fallback: { type: 'spacer' } };
    assert.deepEqual(errorPaths({ ...example(), root }), ['/root']);
  });

  test('free-form JSON nested deeper than 32 levels', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const doc = example();
    doc.metadata = { a: deep };
    doc.audiences[0].when = { $not: { $not: deep } };
    assert.deepEqual(errorPaths(doc), [`/audiences/0/when/$not/$not${'/0'.repeat(30)}`, `/metadata/a${'/0'.repeat(31)}`]);
  });

  test('invalid locale tags', () => {
    const doc = example();
    doc.strings.de_DE = { title: 'x' };
    doc.variants[0].strings = { e: { title: 'x' } };
    assert.deepEqual(errorsOf(doc), [
      { path: '/strings/de_DE', message: 'Must be a language tag such as "en" or "pt-BR"' },
      { path: '/variants/0/strings/e', message: 'Must be a language tag such as "en" or "pt-BR"' },
    ]);
    assert.deepEqual(errorPaths({ ...example(), default_locale: 'english-language-tag' }), ['/default_locale']);
  });

  test('invalid ids: variant, audience, slot name, string key, node id', () => {
    const doc = example();
    doc.variants[0].id = '-control';
    doc.audiences[0].id = 'us ios';
    doc.slots['primary/slot'] = 'pro_annual';
    doc.strings.en['x'.repeat(65)] = 'long';
    doc.root.id = 'héro';
    assert.deepEqual(errorPaths(doc), ['/audiences/0/id', '/root/id', '/slots/primary~1slot', `/strings/en/${'x'.repeat(65)}`, '/variants/0/id']);
  });

  test('an array where an object is expected', () => {
    const doc = example();
    doc.metadata = ['theme'];
    doc.strings.de = ['Werde Pro'];
    assert.deepEqual(errorsOf(doc), [
      { path: '/metadata', message: 'Expected an object, not an array' },
      { path: '/strings/de', message: 'Expected an object, not an array' },
    ]);
  });

  test('unknown top-level property', () => {
    assert.deepEqual(errorPaths({ ...example(), colour: 'red' }), ['/colour']);
  });

  test('not an object at all', () => {
    assert.deepEqual(errorsOf([]), [
      { path: '/default_locale', message: 'Required property is missing' },
      { path: '/name', message: 'Required property is missing' },
      { path: '/root', message: 'Required property is missing' },
      { path: '/strings', message: 'Required property is missing' },
    ]);
    assert.deepEqual(errorsOf(null), [{ path: '', message: 'Expected an object' }]);
  });

  test('button urls: required by open_url, refused otherwise', () => {
    const doc = example();
    doc.root.children.push(
      { type: 'button', props: { text: 'Help', action: 'open_url' } },
      { type: 'button', props: { text: 'Close', action: 'close', url: 'https://example.com' } },
    );
    assert.deepEqual(errorsOf(doc), [
      { path: '/root/children/3/props/url', message: 'The open_url action requires a url' },
      { path: '/root/children/4/props/url', message: 'A url is only allowed with the open_url action' },
    ]);
  });

  test('url schemes: images https or data:image, links http(s) or mailto', () => {
    const doc = example();
    doc.root.children.push(
      { type: 'image', props: { url: 'http://example.com/a.png' } },
      { type: 'image', props: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'link', props: { text: 'x', url: 'javascript:alert(1)' } },
      { type: 'link', props: { text: 'x', url: 'mailto:help@example.com' } },
      { type: 'link', props: { text: 'x', url: 'not a url' } },
    );
    assert.deepEqual(errorsOf(doc), [
      { path: '/root/children/3/props/url', message: 'Must be an https:// URL or a data:image/ URL' },
      { path: '/root/children/5/props/url', message: 'Must start with https://, http:// or mailto:' },
      { path: '/root/children/7/props/url', message: 'Must be a valid URL' },
    ]);
  });
});

describe('fallback nodes', () => {
  test('a fallback is validated like any node', () => {
    const doc = example();
    doc.root.children[0].fallback = { type: 'marquee' };
    doc.root.children[1].fallback = { type: 'text', props: { text_key: 'subtitle' } };
    doc.root.children[2].fallback = { type: 'purchase_button', props: { slot: 'nope', text: 'Buy', bold: true } };
    assert.deepEqual(errorPaths(doc), ['/root/children/0/fallback/type', '/root/children/2/fallback/props/bold']);
    delete doc.root.children[0].fallback;
    delete doc.root.children[2].fallback;
    assert.deepEqual(errorPaths(doc), ['/root/children/1/fallback/props/text_key']);
  });

  test('a valid fallback, itself with a fallback, is kept in the output', () => {
    const doc = example();
    const fallback = { type: 'text', props: { text: 'Pro' }, fallback: { type: 'spacer' } };
    doc.root.children[0].fallback = fallback;
    const result = validatePaywall(doc, deps);
    assert.ok(result.ok);
    assert.deepEqual((result.value.root as { children: ComponentNode[] }).children[0]!.fallback, fallback);
  });
});

describe('errors', () => {
  test('are sorted by path, indexes numerically, and deduplicated', () => {
    const doc = example();
    doc.variants = Array.from({ length: 12 }, (_, i) => ({ id: `v${i}`, weight: 1 }));
    doc.variants[10].weight = -1;
    doc.variants[2].weight = -1;
    doc.audiences = [];
    assert.deepEqual(errorPaths(doc), ['/variants/2/weight', '/variants/10/weight']);
  });

  test('a name holding NUL or a lone surrogate is refused (the name is stored in a text column); a surrogate pair is kept', () => {
    for (const name of ['nul\u0000name', 'lone\ud800', '\udc00first']) {
      const doc = example();
      doc.name = name;
      assert.deepEqual(errorsOf(doc), [{ path: '/name', message: 'must be well-formed Unicode text without NUL (U+0000) or a lone surrogate' }]);
    }
    const doc = example();
    doc.name = 'smile \ud83d\ude00';
    assert.equal(validatePaywall(doc, deps).ok, true);
  });

  test('never echo the values of the input', () => {
    const secret = 'SECRET-VALUE-1234';
    const doc = example();
    doc.name = 5;
    doc.root.props.axis = secret;
    doc.root.children[0].type = secret;
    doc.root.children[1].props.slot = secret;
    doc.root.children.push({ type: 'image', props: { url: secret } }, { type: 'link', props: { text: secret, url: secret } });
    doc.slots.secondary = { value: secret };
    doc.variants[0].weight = secret;
    doc.default_locale = secret;
    const errors = errorsOf(doc);
    assert.ok(errors.length >= 8, JSON.stringify(errors));
    for (const error of errors) assert.ok(!error.message.includes('SECRET'), error.message);
    const semantic = example();
    semantic.slots.primary = secret;
    semantic.root.children[0].props.text_key = 'SECRET';
    for (const error of errorsOf(semantic)) assert.ok(!error.message.includes('SECRET'), error.message);
  });
});

describe('warnings', () => {
  function complete(): Record<string, any> {
    return { ...example(), root: completeRoot() };
  }

  test('a complete paywall has none', () => {
    assert.deepEqual(warningsOf(complete()), []);
  });

  test('no purchase_button', () => {
    const doc = complete();
    doc.root.children.splice(0, 1, { type: 'product', props: { slot: 'primary' } });
    assert.deepEqual(warningsOf(doc), [{ path: '/root', code: 'no_purchase_button', message: 'The tree has no purchase_button' }]);
  });

  test('a purchase_button only in a fallback does not count', () => {
    const doc = complete();
    doc.root.children[0] = { type: 'product', props: { slot: 'primary' }, fallback: doc.root.children[0] };
    assert.deepEqual(
      warningsOf(doc).map((warning) => warning.code),
      ['no_purchase_button'],
    );
  });

  test('no restore button', () => {
    const doc = complete();
    doc.root.children[1].props.action = 'close';
    assert.deepEqual(warningsOf(doc), [{ path: '/root', code: 'no_restore_button', message: 'The tree has no button with the restore action' }]);
  });

  test('no terms link, no privacy link', () => {
    const doc = complete();
    doc.root.children[2].props.kind = 'other';
    assert.deepEqual(
      warningsOf(doc).map((w) => [w.path, w.code]),
      [['/root', 'no_terms_link']],
    );
    doc.root.children[3].props.kind = 'other';
    assert.deepEqual(
      warningsOf(doc).map((w) => [w.path, w.code]),
      [
        ['/root', 'no_privacy_link'],
        ['/root', 'no_terms_link'],
      ],
    );
  });

  test('trees are checked as served: variant roots, and the paywall root only if a variant shows it', () => {
    const doc = complete();
    doc.variants = [
      { id: 'a', weight: 1, root: completeRoot() },
      { id: 'b', weight: 1, root: { type: 'text', props: { text: 'Hi' } } },
      { id: 'holdout', weight: 1, holdout: true },
    ];
    doc.root = { type: 'spacer' };
    doc.audiences = [];
    assert.deepEqual(
      warningsOf(doc).map((w) => [w.path, w.code]),
      [
        ['/variants/1/root', 'no_privacy_link'],
        ['/variants/1/root', 'no_purchase_button'],
        ['/variants/1/root', 'no_restore_button'],
        ['/variants/1/root', 'no_terms_link'],
      ],
    );
  });

  test('a locale that lacks keys of the default locale, one warning per locale', () => {
    const doc = complete();
    doc.strings = {
      en: { title: 'Go Pro', subtitle: 'Unlock', cta: 'Continue' },
      de: { title: 'Werde Pro' },
      fr: { title: 'Passez Pro', subtitle: 'Débloquer', cta: 'Continuer' },
      'pt-BR': { cta: 'Continuar', extra: 'only here' },
    };
    assert.deepEqual(warningsOf(doc), [
      { path: '/strings/de', code: 'missing_translations', message: 'Lacks 2 keys of the default locale: subtitle, cta' },
      { path: '/strings/pt-BR', code: 'missing_translations', message: 'Lacks 2 keys of the default locale: title, subtitle' },
    ]);
  });

  test("a variant's strings are checked for the locales it overrides, the paywall's strings merged in", () => {
    const doc = complete();
    doc.variants[0].strings = { en: { promo: 'Half price' }, de: { title: 'Pro werden' } };
    assert.deepEqual(warningsOf(doc), [
      {
        path: '/variants/0/strings/de',
        code: 'missing_translations',
        message: 'Lacks 1 key of the default locale: promo',
      },
    ]);
  });
});

describe('schemas', () => {
  test('PaywallSchema converts to JSON Schema, the node tree as one recursive definition', () => {
    const schema = toJsonSchema(PaywallSchema, { definitions: { ComponentNode: ComponentNodeSchema } }) as Record<string, any>;
    assert.equal(schema.type, 'object');
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual(schema.properties.root, { $ref: '#/$defs/ComponentNode' });
    assert.deepEqual(schema.properties.variants.items.properties.root, { $ref: '#/$defs/ComponentNode' });
    const node = schema.$defs.ComponentNode;
    assert.equal(node.oneOf.length, COMPONENT_TYPES.length);
    const stack = node.oneOf.find((option: any) => option.properties.type.const === 'stack');
    assert.deepEqual(stack.properties.children.items, { $ref: '#/$defs/ComponentNode' });
    assert.deepEqual(stack.properties.fallback, { $ref: '#/$defs/ComponentNode' });
    assert.equal(stack.properties.props.additionalProperties, false);
    assert.deepEqual(schema.properties.variants.default, [{ id: 'default', weight: 100 }]);
  });

  test('PaywallSchema converts without explicit definitions too', () => {
    assert.doesNotThrow(() => toJsonSchema(PaywallSchema));
  });

  test('ComponentNodeSchema parses a node on its own', () => {
    assert.ok(v.safeParse(ComponentNodeSchema, { type: 'spacer', props: { size: 8 } }).success);
    assert.ok(!v.safeParse(ComponentNodeSchema, { type: 'spacer', props: { width: 8 } }).success);
  });
});
