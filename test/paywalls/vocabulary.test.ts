/**
 * The new vocabulary through the real server: what resolve answers for a
 * selection, a toggle, badges, countdowns, show_if and the theme; the
 * fallback bundle (API, `paywalld fallback` and the client reading it)
 * carrying fonts' and posters' URLs, never their bytes; publish warning of
 * newer nodes without a fallback and of ended countdowns; the OpenAPI
 * document describing every node type with its props' kinds.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { COMPONENT_TYPES } from '../../src/paywalls/document/components.ts';
import { runCli } from '../helpers/cli.ts';
import { fileStorage, loadClient } from '../helpers/client.ts';
import type { Json } from '../helpers/json.ts';
import { api } from '../helpers/paywalls.ts';
import { startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';

const FONT = 'https://fonts.example.com/brand-sans.woff2';
const POSTER = 'https://cdn.example.com/hero.jpg';

const DOCUMENT = {
  name: 'Rich',
  default_locale: 'en',
  theme: { colors: { accent: { light: '#4338CA', dark: '#A5B4FC' } }, fonts: { heading: { family: 'Brand Sans', url: FONT, weight: 700 } } },
  strings: {
    en: { save: 'Save {{annual.savings_vs.monthly}}', trial: 'Free trial', ends: 'Ends in {{countdown}}' },
    de: { save: 'Spare {{annual.savings_vs.monthly}}' },
  },
  slots: { annual: 'pro_annual', monthly: 'pro_monthly' },
  root: {
    type: 'stack',
    props: { axis: 'vertical', background: '@accent' },
    children: [
      {
        type: 'package_group',
        props: { default_slot: 'monthly' },
        children: [
          { type: 'package', props: { slot: 'annual', badge_key: 'save' } },
          { type: 'package', props: { slot: 'monthly' } },
        ],
      },
      { type: 'text', props: { text: '{{selected.trial}} free', style: { font: '@heading' } }, show_if: { slot: 'selected', eligible_for_intro: true } },
      { type: 'purchase_button', props: { slot: 'selected', text: 'Continue' } },
      { type: 'countdown', props: { ends_at: '2001-01-01T00:00:00Z', text_key: 'ends', expired: 'show' } },
      { type: 'video', props: { url: 'https://cdn.example.com/hero.mp4', poster_url: POSTER }, fallback: { type: 'image', props: { url: POSTER } } },
    ],
  },
};

const TOGGLED = {
  name: 'Toggled',
  default_locale: 'en',
  strings: { en: { trial: 'Free trial' } },
  slots: { annual: 'pro_annual', monthly: 'pro_monthly' },
  root: {
    type: 'toggle',
    props: { text_key: 'trial', slot_on: 'annual', slot_off: 'monthly', default: true },
    fallback: { type: 'product', props: { slot: 'annual' } },
  },
};

async function seeded(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t);
  const client = api(server);
  await client.putProduct('pro_annual', { name: 'Pro Annual', store_ids: { app_store: 'com.acme.annual', play_store: 'annual' } });
  await client.putProduct('pro_monthly', { name: 'Pro Monthly', store_ids: { app_store: 'com.acme.monthly', play_store: 'monthly' } });
  return { server, client };
}

test('publishing warns of newer nodes without a fallback and of a countdown that has ended, at their pointers', async (t) => {
  const { client } = await seeded(t);
  const written = await client.putPaywall('rich', DOCUMENT);
  const expected = [
    { path: '/root/children/0', code: 'missing_fallback', message: 'Apps too old for package_group show nothing here: give it a fallback' },
    { path: '/root/children/3', code: 'missing_fallback', message: 'Apps too old for countdown show nothing here: give it a fallback' },
    { path: '/root/children/3/props/ends_at', code: 'countdown_ended', message: 'This time has passed: the countdown shows as ended' },
  ];
  assert.deepEqual(
    written.warnings.filter((warning: Json) => warning.code === 'missing_fallback' || warning.code === 'countdown_ended'),
    expected,
  );
  const published = await client.publish('rich');
  assert.deepEqual(
    published.warnings.filter((warning: Json) => warning.code === 'missing_fallback' || warning.code === 'countdown_ended'),
    expected,
  );
});

test('resolve: the theme, a badge with its variables, "selected" bought as the default, show_if kept, a toggle with both products', async (t) => {
  const { client } = await seeded(t);
  await client.putPaywall('rich', DOCUMENT);
  await client.publish('rich');
  await client.putPaywall('toggled', TOGGLED);
  await client.publish('toggled');
  const rich = await (await client.resolve({ paywallId: 'rich', platform: 'ios', locale: 'de' })).json();
  assert.deepEqual(rich.theme, DOCUMENT.theme);
  const [group, trial, buy, countdown] = rich.root.children;
  assert.deepEqual(group.children[0], {
    type: 'package',
    props: { slot: 'annual', badge: 'Spare {{annual.savings_vs.monthly}}' },
    variables: [{ prop: 'badge', slot: 'annual', name: 'savings_vs', versus: 'monthly', token: '{{annual.savings_vs.monthly}}' }],
    product: { id: 'pro_annual', name: 'Pro Annual', store_product_id: 'com.acme.annual' },
  });
  assert.deepEqual(trial.show_if, { slot: 'selected', eligible_for_intro: true });
  assert.deepEqual(trial.variables, [{ prop: 'text', slot: 'selected', name: 'trial', token: '{{selected.trial}}' }]);
  // An app that knows no selection buys what is selected when the paywall opens.
  assert.deepEqual(buy.product, { id: 'pro_monthly', name: 'Pro Monthly', store_product_id: 'com.acme.monthly' });
  assert.deepEqual(countdown.props, { ends_at: '2001-01-01T00:00:00Z', text: 'Ends in {{countdown}}', expired: 'show' });
  assert.deepEqual(countdown.variables, [{ prop: 'text', name: 'countdown', token: '{{countdown}}' }]);
  const toggled = await (await client.resolve({ paywallId: 'toggled', platform: 'android' })).json();
  assert.deepEqual(toggled.root.props, { text: 'Free trial', slot_on: 'annual', slot_off: 'monthly', default: true });
  assert.deepEqual(
    [toggled.root.product_on, toggled.root.product_off],
    [
      { id: 'pro_annual', name: 'Pro Annual', store_product_id: 'annual' },
      { id: 'pro_monthly', name: 'Pro Monthly', store_product_id: 'monthly' },
    ],
  );
  assert.equal(toggled.theme, undefined, 'no theme, no theme field');
});

test('the fallback bundle and paywalld fallback carry the fonts and posters as URLs; the client draws from it offline', async (t) => {
  const { server, client } = await seeded(t);
  await client.putPaywall('rich', DOCUMENT);
  await client.publish('rich');
  await client.putPaywall('toggled', TOGGLED);
  await client.publish('toggled');
  const served = (await (
    await fetch(`${server.url}/api/sdk/fallback?paywallId=rich,toggled`, { headers: { authorization: `Bearer ${server.keys.sdk}` } })
  ).json()) as Json;
  const file = path.join(tempDir(t), 'bundle.json');
  const written = await runCli(['fallback', '--out', file, '--db', server.dbPath, '--paywall', 'rich', '--paywall', 'toggled']);
  assert.equal(written.status, 0, written.stderr);
  const shipped = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const bundle of [served, shipped]) {
    const rich = bundle.paywalls[0];
    assert.deepEqual(rich.theme.fonts.heading, { family: 'Brand Sans', url: FONT, weight: 700 });
    assert.equal(rich.trees.en.children[4].props.poster_url, POSTER);
    // URLs only: the bundle of two small paywalls holds no font or image bytes.
    assert.ok(JSON.stringify(bundle).length < 8000, `${JSON.stringify(bundle).length} characters`);
  }
  assert.deepEqual(shipped.paywalls[0].theme, served.paywalls[0].theme);

  // The client, with nothing but the shipped bundle: the theme and the toggle's products with the platform's store ids.
  const { createClient } = await loadClient();
  const offline = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'pwk_sdk_any', fallback: shipped, platform: 'ios', timeoutMs: 500 });
  const rich = await offline.getPaywall('rich');
  assert.equal(rich.source, 'fallback');
  assert.deepEqual(rich.paywall.theme, DOCUMENT.theme);
  const toggled = await offline.getPaywall('toggled');
  const root = toggled.paywall.root as Json;
  assert.deepEqual([root.product_on.store_product_id, root.product_off.store_product_id], ['com.acme.annual', 'com.acme.monthly']);
});

test("the client keeps the user's first view of a paywall, which countdowns run from, across restarts", async (t) => {
  const { createClient } = await loadClient();
  const file = path.join(tempDir(t), 'storage.json');
  const before = Date.now();
  const first = await createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'pwk_sdk_any', storage: fileStorage(file) }).firstViewedAt('sale');
  assert.ok(first >= before && first <= Date.now());
  // A later launch reads it back; another paywall has its own.
  const again = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'pwk_sdk_any', storage: fileStorage(file) });
  assert.equal(await again.firstViewedAt('sale'), first);
  assert.ok((await again.firstViewedAt('other')) >= first);
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8'))['paywalld:first-view:sale'], String(first));
});

test('the OpenAPI document describes every node type, its props with their kinds, show_if and the theme', async (t) => {
  const server = await startTestServer(t);
  const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Json;
  const node = document.components.schemas.ComponentNode;
  const types = node.oneOf.map((option: Json) => option.properties.type.const);
  assert.deepEqual(types, [...COMPONENT_TYPES]);
  for (const option of node.oneOf) {
    assert.ok(option.properties.type.description?.length > 10, `${option.properties.type.const} is described`);
    assert.ok(option.properties.show_if, `${option.properties.type.const} takes show_if`);
  }
  const props = (type: string) => {
    const option = node.oneOf.find((candidate: Json) => candidate.properties.type.const === type);
    return option.properties.props.anyOf?.[0]?.properties ?? option.properties.props.properties;
  };
  assert.equal(props('toggle').slot_on['x-kind'], 'slot');
  assert.equal(props('package').badge_key['x-kind'], 'text_key');
  assert.equal(props('stack').background['x-kind'], 'color');
  assert.equal(props('video').poster_url['x-kind'], 'url');
  assert.deepEqual(props('pages').indicator.enum, ['dots', 'none']);
  const paywall = JSON.stringify(document.paths['/api/paywalls/{id}'].put.requestBody);
  assert.match(paywall + JSON.stringify(document.components.schemas), /"theme"/);
});
