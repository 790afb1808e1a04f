/** GET /api/sdk/config through HTTP: the response, locales, audiences, assignment, caching and isolation. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { spawnServe } from '../helpers/cli.ts';
import { example } from '../helpers/example-paywall.ts';
import type { Json } from '../helpers/json.ts';
import { type Api, api, seedProducts, single } from '../helpers/paywalls.ts';
import { problem } from '../helpers/problem.ts';
import { serverOn, startTestServer, type TestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { assignments } from './assignments.ts';

async function setup(t: TestContext, overrides: Parameters<typeof startTestServer>[1] = {}): Promise<{ server: TestServer; client: Api }> {
  const server = await startTestServer(t, overrides);
  const client = api(server);
  await seedProducts(client);
  return { server, client };
}

async function live(client: Api, id: string, doc: Json): Promise<void> {
  await client.putPaywall(id, doc);
  await client.publish(id);
}

async function resolved(client: Api, query: Record<string, string>, headers?: Record<string, string>): Promise<Json> {
  const response = await client.resolve(query, headers);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as Json;
}

test('the example resolves to the documented body: variant, locale, resolved tree and product slots', async (t) => {
  const { client } = await setup(t);
  await live(client, 'onboarding', example());
  const body = await resolved(client, { paywallId: 'onboarding', userId: 'user-1', platform: 'ios', country: 'US', locale: 'de-AT' });
  assert.deepEqual(body, {
    paywall_id: 'onboarding',
    revision: 1,
    variant: { id: 'annual_first', audience: 'us_ios', assignment: 'hashed' },
    locale: 'de',
    metadata: {},
    root: {
      type: 'stack',
      props: { axis: 'vertical' },
      children: [
        { type: 'text', props: { text: 'Werde Pro' } },
        {
          type: 'product',
          props: { slot: 'primary' },
          product: { id: 'pro_monthly', name: 'Pro Monthly', store_product_id: 'com.acme.pro.monthly' },
        },
        {
          type: 'purchase_button',
          props: { slot: 'primary', text: 'Continue' },
          product: { id: 'pro_monthly', name: 'Pro Monthly', store_product_id: 'com.acme.pro.monthly' },
        },
      ],
    },
    product_slots: [
      { slot: 'primary', product_id: 'pro_monthly', store_product_id: 'com.acme.pro.monthly' },
      { slot: 'secondary', product_id: 'pro_monthly', store_product_id: 'com.acme.pro.monthly' },
    ],
  });
});

test('store_product_id follows the platform: ios app_store, android play_store, web stripe then web, none null', async (t) => {
  const { client } = await setup(t);
  await client.putProduct('web_only', { name: 'Web', store_ids: { web: 'checkout-42' } });
  await live(client, 'p', single({ en: { title: 'T' } }, { slots: { primary: 'pro_annual', other: 'web_only' } }));
  const storeIds = async (query: Record<string, string>) =>
    (await resolved(client, { paywallId: 'p', ...query })).product_slots.map((slot: Json) => slot.store_product_id);
  assert.deepEqual(await storeIds({ platform: 'ios' }), ['com.acme.pro.annual', null]);
  assert.deepEqual(await storeIds({ platform: 'android' }), ['pro_annual', null]);
  assert.deepEqual(await storeIds({ platform: 'web' }), ['price_annual', 'checkout-42']);
  assert.deepEqual(await storeIds({}), [null, null]);
  assert.deepEqual(await storeIds({ platform: 'IOS' }), ['com.acme.pro.annual', null]);
  const invalid = await problem(await client.resolve({ paywallId: 'p', platform: 'windows' }), 400, 'invalid_query');
  assert.deepEqual(
    invalid.errors.map((e: Json) => e.path),
    ['/platform'],
  );
});

test('a product changed after publishing is served changed at once', async (t) => {
  const { client } = await setup(t);
  await live(client, 'p', single({ en: { title: 'T' } }));
  await client.putProduct('pro_annual', { name: 'Pro Yearly', store_ids: { app_store: 'com.acme.yearly' } });
  const body = await resolved(client, { paywallId: 'p', platform: 'ios' });
  assert.deepEqual(body.product_slots, [{ slot: 'primary', product_id: 'pro_annual', store_product_id: 'com.acme.yearly' }]);
  await problem(await client.request('DELETE', '/api/products/pro_annual'), 409, 'product_in_use');
});

test('without userId the first variant with traffic is served, marked as the default assignment', async (t) => {
  const { client } = await setup(t);
  const doc = example();
  doc.variants = [
    { id: 'off', weight: 0 },
    { id: 'control', weight: 50 },
    { id: 'annual_first', weight: 50, slots: { primary: 'pro_monthly' } },
  ];
  await live(client, 'onboarding', doc);
  assert.deepEqual((await resolved(client, { paywallId: 'onboarding' })).variant, { id: 'control', audience: null, assignment: 'default' });
  assert.deepEqual((await resolved(client, { paywallId: 'onboarding', userId: '' })).variant.assignment, 'default');
  // An audience's weights decide the default too.
  assert.deepEqual((await resolved(client, { paywallId: 'onboarding', country: 'US', platform: 'ios' })).variant, {
    id: 'annual_first',
    audience: 'us_ios',
    assignment: 'default',
  });
});

test('variants override root, slots, strings and metadata; a holdout variant shows no paywall', async (t) => {
  const { client } = await setup(t);
  const doc = single(
    { en: { title: 'Base' } },
    {
      metadata: { theme: 'light', layout: 'a' },
      variants: [
        { id: 'base', weight: 0 },
        {
          id: 'override',
          weight: 1,
          strings: { en: { title: 'Override' } },
          slots: { primary: 'pro_monthly' },
          metadata: { theme: 'dark' },
          root: {
            type: 'stack',
            props: { axis: 'z' },
            children: [
              { type: 'text', props: { text_key: 'title' } },
              { type: 'product', props: { slot: 'primary' } },
            ],
          },
        },
        { id: 'holdout', weight: 0, holdout: true, metadata: { measured: true } },
      ],
      audiences: [{ id: 'holdouts', when: { 'attr.group': 'holdout' }, weights: { holdout: 1 } }],
    },
  );
  await live(client, 'p', doc);
  const overridden = await resolved(client, { paywallId: 'p', platform: 'android' });
  assert.equal(overridden.variant.id, 'override');
  assert.deepEqual(overridden.metadata, { theme: 'dark', layout: 'a' });
  assert.equal(overridden.root.props.axis, 'z');
  assert.equal(overridden.root.children[0].props.text, 'Override');
  assert.equal(overridden.root.children[1].product.id, 'pro_monthly');
  assert.deepEqual(overridden.product_slots, [{ slot: 'primary', product_id: 'pro_monthly', store_product_id: 'pro_monthly' }]);

  const holdout = await resolved(client, { paywallId: 'p', userId: 'u', 'attr.group': 'holdout' });
  assert.deepEqual(holdout.variant, { id: 'holdout', audience: 'holdouts', assignment: 'hashed' });
  assert.equal(holdout.root, null);
  assert.deepEqual(holdout.product_slots, []);
  assert.deepEqual(holdout.metadata, { theme: 'light', layout: 'a', measured: true });
});

test('fallback nodes are passed through, resolved like any node', async (t) => {
  const { client } = await setup(t);
  const doc = single({ en: { title: 'Title', old: 'Buy' } });
  doc.root.children.push({
    type: 'purchase_button',
    props: { slot: 'primary', text_key: 'title' },
    fallback: { type: 'button', props: { text_key: 'old', action: 'custom' } },
  });
  await live(client, 'p', doc);
  const node = (await resolved(client, { paywallId: 'p' })).root.children[1];
  assert.deepEqual(node.fallback, { type: 'button', props: { text: 'Buy', action: 'custom' } });
  assert.equal(node.props.text, 'Title');
});

test('locale fallback chain: region, script, Norwegian, case and separators, Accept-Language, default', async (t) => {
  const { client } = await setup(t);
  await live(
    client,
    'p',
    single(
      {
        en: { title: 'en', extra: 'en extra' },
        de: { title: 'de' },
        'zh-Hant': { title: 'zh-Hant' },
        zh: { title: 'zh', extra: 'zh extra' },
        no: { title: 'no' },
        'pt-br': { title: 'pt-BR' },
      },
      {
        root: {
          type: 'stack',
          props: { axis: 'vertical' },
          children: [
            { type: 'text', props: { text_key: 'title' } },
            { type: 'text', props: { text_key: 'extra' } },
          ],
        },
      },
    ),
  );
  const served = async (query: Record<string, string>, headers?: Record<string, string>) => {
    const body = await resolved(client, { paywallId: 'p', ...query }, headers);
    return [body.locale, body.root.children[0].props.text, body.root.children[1].props.text];
  };
  assert.deepEqual(await served({ locale: 'de-AT' }), ['de', 'de', 'en extra']);
  assert.deepEqual(await served({ locale: 'zh-Hant-TW' }), ['zh-Hant', 'zh-Hant', 'zh extra']);
  assert.deepEqual(await served({ locale: 'zh_hant_tw' }), ['zh-Hant', 'zh-Hant', 'zh extra']);
  assert.deepEqual(await served({ locale: 'zh-CN' }), ['zh', 'zh', 'zh extra']);
  assert.deepEqual(await served({ locale: 'nb-NO' }), ['no', 'no', 'en extra']);
  assert.deepEqual(await served({ locale: 'nn' }), ['no', 'no', 'en extra']);
  assert.deepEqual(await served({ locale: 'PT_BR' }), ['pt-BR', 'pt-BR', 'en extra']);
  assert.deepEqual(await served({ locale: 'DE' }), ['de', 'de', 'en extra']);
  assert.deepEqual(await served({ locale: 'fr-FR' }), ['en', 'en', 'en extra']);
  assert.deepEqual(await served({ locale: 'not a locale' }), ['en', 'en', 'en extra']);
  assert.deepEqual(await served({}, { 'accept-language': 'fr-CH, de-CH;q=0.8, en;q=0.5' }), ['de', 'de', 'en extra']);
  assert.deepEqual(await served({ locale: 'zh' }, { 'accept-language': 'de' }), ['zh', 'zh', 'zh extra']);
  assert.deepEqual(await served({}), ['en', 'en', 'en extra']);
});

test('the Norwegian link works the other way round too: a paywall in nb serves no', async (t) => {
  const { client } = await setup(t);
  await live(client, 'p', single({ en: { title: 'en' }, nb: { title: 'nb' } }));
  assert.equal((await resolved(client, { paywallId: 'p', locale: 'no' })).locale, 'nb');
  assert.equal((await resolved(client, { paywallId: 'p', locale: 'nn-NO' })).locale, 'nb');
});

/** Serves variant "in" to users whose attributes match `when`, "out" to everyone else. */
async function audienceMatches(client: Api, when: Json, cases: [query: Record<string, string>, matches: boolean][]): Promise<void> {
  const id = `a${Math.random().toString(36).slice(2, 10)}`;
  await live(
    client,
    id,
    single(
      { en: { title: 'T' } },
      {
        variants: [
          { id: 'out', weight: 1 },
          { id: 'in', weight: 0 },
        ],
        audiences: [{ id: 'target', when, weights: { in: 1 } }],
      },
    ),
  );
  for (const [query, matches] of cases) {
    const body = await resolved(client, { paywallId: id, userId: 'u-1', ...query });
    assert.equal(body.variant.id, matches ? 'in' : 'out', `${JSON.stringify(when)} with ${JSON.stringify(query)}`);
    assert.equal(body.variant.audience, matches ? 'target' : null);
  }
}

test('audiences: plain equality, $eq and $ne', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { country: 'DE', platform: 'android' }, [
    [{ country: 'DE', platform: 'android' }, true],
    [{ country: 'de', platform: 'android' }, true],
    [{ country: 'DE', platform: 'ios' }, false],
    [{ country: 'DE' }, false],
  ]);
  await audienceMatches(client, { platform: { $eq: 'web' }, country: { $ne: 'US' } }, [
    [{ platform: 'web', country: 'FR' }, true],
    [{ platform: 'web' }, true],
    [{ platform: 'web', country: 'US' }, false],
    [{ platform: 'ios', country: 'FR' }, false],
  ]);
});

test('audiences: $in and $nin', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { country: { $in: ['DE', 'AT', 'CH'] }, platform: { $nin: ['web'] } }, [
    [{ country: 'AT', platform: 'ios' }, true],
    [{ country: 'CH' }, true],
    [{ country: 'FR', platform: 'ios' }, false],
    [{ country: 'DE', platform: 'web' }, false],
  ]);
});

test('audiences: $gt, $gte, $lt and $lte on custom attributes', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { 'attr.sessions': { $gte: 3, $lt: 10 }, 'attr.spend': { $gt: 0, $lte: 100 } }, [
    [{ 'attr.sessions': '3', 'attr.spend': '100' }, true],
    [{ 'attr.sessions': '9', 'attr.spend': '0.5' }, true],
    [{ 'attr.sessions': '2', 'attr.spend': '50' }, false],
    [{ 'attr.sessions': '10', 'attr.spend': '50' }, false],
    [{ 'attr.sessions': '5', 'attr.spend': '0' }, false],
    [{ 'attr.sessions': '5', 'attr.spend': '101' }, false],
  ]);
});

test('audiences: $exists', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { 'attr.campaign': { $exists: true }, appVersion: { $exists: false } }, [
    [{ 'attr.campaign': 'spring' }, true],
    [{ 'attr.campaign': 'spring', appVersion: '1.0.0' }, false],
    [{}, false],
  ]);
});

test('audiences: $regex', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { locale: { $regex: '^de(-|$)' }, 'attr.email': { $regex: '@acme\\.com$' } }, [
    [{ locale: 'de-AT', 'attr.email': 'a@acme.com' }, true],
    [{ locale: 'de', 'attr.email': 'b@acme.com' }, true],
    [{ locale: 'dev', 'attr.email': 'a@acme.com' }, false],
    [{ locale: 'de', 'attr.email': 'a@acme.com.evil' }, false],
  ]);
});

test('audiences: version comparison $vgt, $vgte, $vlt and $vlte on appVersion', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { appVersion: { $vgte: '2.10.0', $vlt: '3.0.0' } }, [
    [{ appVersion: '2.10.0' }, true],
    [{ appVersion: '2.10.1' }, true],
    [{ appVersion: '2.9.9' }, false],
    [{ appVersion: '3.0.0' }, false],
    [{ appVersion: '3.0.0-beta.1' }, true],
  ]);
  await audienceMatches(client, { appVersion: { $vgt: '1.2.3', $vlte: '1.4' } }, [
    [{ appVersion: '1.2.4' }, true],
    [{ appVersion: 'v1.4' }, true],
    [{ appVersion: '1.2.3' }, false],
    [{ appVersion: '1.4.1' }, false],
  ]);
});

test('audiences: $and, $or and $not', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { $and: [{ $or: [{ country: 'US' }, { country: 'CA' }] }, { $not: { platform: 'web' } }] }, [
    [{ country: 'US', platform: 'ios' }, true],
    [{ country: 'CA' }, true],
    [{ country: 'CA', platform: 'web' }, false],
    [{ country: 'MX', platform: 'ios' }, false],
  ]);
});

test('audiences are tried in order and the first match wins', async (t) => {
  const { client } = await setup(t);
  await live(
    client,
    'p',
    single(
      { en: { title: 'T' } },
      {
        variants: [
          { id: 'a', weight: 1 },
          { id: 'b', weight: 0 },
          { id: 'c', weight: 0 },
        ],
        audiences: [
          { id: 'first', when: { country: 'US' }, weights: { b: 1 } },
          { id: 'second', when: { platform: 'ios' }, weights: { c: 1 } },
        ],
      },
    ),
  );
  const variant = async (query: Record<string, string>) => (await resolved(client, { paywallId: 'p', userId: 'u', ...query })).variant;
  assert.deepEqual(await variant({ country: 'US', platform: 'ios' }), { id: 'b', audience: 'first', assignment: 'hashed' });
  assert.deepEqual(await variant({ platform: 'ios' }), { id: 'c', audience: 'second', assignment: 'hashed' });
  assert.deepEqual(await variant({}), { id: 'a', audience: null, assignment: 'hashed' });
});

test('assignment is stable across a server restart and in another process', async (t) => {
  const dbPath = path.join(tempDir(t), 'paywalld.db');
  const first = await startTestServer(t, { dbPath });
  const client = api(first);
  await seedProducts(client);
  const doc = example();
  doc.audiences = [];
  await live(client, 'onboarding', doc);
  const users = Array.from({ length: 300 }, (_, i) => `stable-${i}`);
  const before = await assignments(first.url, first.keys.sdk, 'onboarding', users);
  assert.ok(before.includes('control') && before.includes('annual_first'));
  await first.server.stop();

  const restarted = await serverOn(t, dbPath);
  assert.deepEqual(await assignments(restarted.url, first.keys.sdk, 'onboarding', users), before);
  // serve owns its database file: one server at a time.
  await restarted.server.stop();

  const child = await spawnServe(t, ['--db', dbPath, '--rate-limit-sdk', '0']);
  assert.deepEqual(await assignments(child.url, first.keys.sdk, 'onboarding', users), before);
  assert.equal(await child.stop(), 0);
});

test('the document seed replaces the paywall id as hash seed: same seed, same split', async (t) => {
  const { client } = await setup(t);
  const doc = example();
  doc.audiences = [];
  await live(client, 'one', { ...doc, seed: 'shared' });
  await live(client, 'two', { ...doc, seed: 'shared' });
  await live(client, 'three', doc);
  const users = Array.from({ length: 200 }, (_, i) => `seed-${i}`);
  const one = await assignments(client.url, client.sdk, 'one', users);
  assert.deepEqual(await assignments(client.url, client.sdk, 'two', users), one);
  assert.notDeepEqual(await assignments(client.url, client.sdk, 'three', users), one);
});

test('ETag and Cache-Control on every response; If-None-Match with the ETag answers 304', async (t) => {
  const { client } = await setup(t);
  await live(client, 'onboarding', example());
  const query = { paywallId: 'onboarding', userId: 'u-7', locale: 'de' };
  const first = await client.resolve(query);
  assert.equal(first.status, 200);
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.equal(first.headers.get('cache-control'), 'private, max-age=60');

  const again = await client.resolve(query, { 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal(again.headers.get('cache-control'), 'private, max-age=60');
  assert.equal(await again.text(), '');
  assert.equal((await client.resolve(query, { 'if-none-match': `W/${etag}, "other"` })).status, 304);

  const english = await client.resolve({ ...query, locale: 'en' }, { 'if-none-match': etag });
  assert.equal(english.status, 200, 'another locale is another representation');
  assert.notEqual(english.headers.get('etag'), etag);

  await client.putPaywall('onboarding', { ...example(), strings: { en: { title: 'New' }, de: { title: 'Neu' } } });
  await client.publish('onboarding');
  const republished = await client.resolve(query, { 'if-none-match': etag });
  assert.equal(republished.status, 200, 'a new revision changes the ETag');
});

test('unknown, unpublished, archived paywalls and a missing paywallId', async (t) => {
  const { client } = await setup(t);
  await problem(await client.resolve({ paywallId: 'nothing' }), 404, 'paywall_not_found');
  await client.putPaywall('draft', example());
  await problem(await client.resolve({ paywallId: 'draft' }), 404, 'paywall_not_found');
  await live(client, 'gone', example());
  await client.request('DELETE', '/api/paywalls/gone');
  await problem(await client.resolve({ paywallId: 'gone' }), 404, 'paywall_not_found');
  const missing = await problem(await client.resolve({}), 400, 'invalid_query');
  assert.deepEqual(
    missing.errors.map((e: Json) => e.path),
    ['/paywallId'],
  );
});

test('the resolve endpoint takes an sdk or a secret key, and nothing else', async (t) => {
  const { client } = await setup(t);
  await live(client, 'onboarding', example());
  assert.equal((await client.resolve({ paywallId: 'onboarding' })).status, 200);
  assert.equal((await fetch(`${client.url}/api/sdk/config?paywallId=onboarding`, { headers: { authorization: `Bearer ${client.secret}` } })).status, 200);
  await problem(await fetch(`${client.url}/api/sdk/config?paywallId=onboarding`), 401, 'missing_api_key');
});

test('the events contract: variantFor agrees with resolve, projectsWithPaywall lists non-archived paywalls', async (t) => {
  const { server, client } = await setup(t);
  const doc = example();
  await live(client, 'onboarding', doc);
  await client.putPaywall('draft', doc);
  const paywalls = server.server.ctx.paywalls;
  for (const userId of ['a', 'b', 'c', 'd', 'e', 'f']) {
    const body = await resolved(client, { paywallId: 'onboarding', userId });
    assert.equal(paywalls.variantFor(server.projectId, 'onboarding', userId), body.variant.id);
  }
  assert.equal(paywalls.variantFor(server.projectId, 'draft', 'a'), undefined);
  assert.deepEqual(paywalls.projectsWithPaywall('onboarding'), [server.projectId]);
  assert.deepEqual(paywalls.projectsWithPaywall('draft'), [server.projectId]);
  await client.request('DELETE', '/api/paywalls/draft');
  assert.deepEqual(paywalls.projectsWithPaywall('draft'), []);
  assert.deepEqual(paywalls.projectsWithPaywall('nothing'), []);
});

test('custom attributes are plain names, whatever they are called', async (t) => {
  const { client } = await setup(t);
  await audienceMatches(client, { 'attr.__proto__': 'x', 'attr.constructor': { $exists: true } }, [
    [{ 'attr.__proto__': 'x', 'attr.constructor': 'y' }, true],
    [{ 'attr.__proto__': 'x' }, false],
    [{}, false],
  ]);
});

test('query parameters: limits and the platform list answer 400 naming each parameter; escapes, case and repeats are read as sent', async (t) => {
  const { client } = await setup(t);
  await live(client, 'onboarding', example());
  const invalid = await problem(
    await client.resolve({ paywallId: 'onboarding', userId: 'u'.repeat(257), platform: 'tv', appVersion: '1'.repeat(257) }),
    400,
    'invalid_query',
  );
  assert.deepEqual(
    invalid.errors.map((e: Json) => e.path),
    ['/userId', '/platform', '/appVersion'],
  );
  const tooLongId = await problem(await client.resolve({ paywallId: 'p'.repeat(65) }), 400, 'invalid_query');
  assert.deepEqual(
    tooLongId.errors.map((e: Json) => e.path),
    ['/paywallId'],
  );

  const plain = await resolved(client, { paywallId: 'onboarding', userId: 'u'.repeat(256), platform: 'ios', locale: 'de' });
  const shouted = await resolved(client, { paywallId: 'onboarding', userId: 'u'.repeat(256), platform: 'IOS', locale: 'de' });
  assert.deepEqual(shouted, plain, 'platform is case-insensitive, 256 characters is the longest userId');
  const url = (query: string) => fetch(`${client.url}/api/sdk/config?${query}`, { headers: { authorization: `Bearer ${client.sdk}` } });
  const escaped = await url(`paywall%49d=onboarding&user%49d=&userId=${'u'.repeat(256)}&userId=other&platform=i%4Fs&locale=d%65`);
  assert.equal(escaped.status, 200);
  assert.deepEqual(await escaped.json(), plain, 'escaped names and values, an empty first userId skipped, the first non-empty one kept');
});
