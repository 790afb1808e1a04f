/**
 * The App Store connector through the real server, with a certificate chain
 * made by openssl in Apple's shape: valid, forged (another key, another root,
 * no Apple extensions), another app's bundle id, redelivery, unused types, and
 * the user found from appAccountToken.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { ingest } from '../helpers/events.ts';
import { configure, configured, deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { until } from '../helpers/until.ts';
import { type AppleChain, makeAppleChain, makeHeavyRsaChain, signJws } from './apple-chain.ts';

const BUNDLE = 'com.example.app';

// python3 -c "import uuid; print(uuid.uuid5(uuid.UUID('ff1445ad-bcbd-4919-a44a-6c50ada1157e'), 'user-1'))"
const USER_1_TOKEN = '809e6b54-7522-528c-ad9a-b36f7d3f321d';

let chains: { apple: AppleChain; other: AppleChain; unmarked: AppleChain; expired: AppleChain } | undefined;

function chainsFor(t: Parameters<typeof tempDir>[0]) {
  chains ??= (() => {
    const dir = tempDir(t);
    return {
      apple: makeAppleChain(dir, 'apple'),
      other: makeAppleChain(dir, 'other'),
      unmarked: makeAppleChain(dir, 'unmarked', { markers: 'none' }),
      expired: makeAppleChain(dir, 'expired', { leafDays: -1 }),
    };
  })();
  return chains;
}

interface Options {
  type: string;
  subtype?: string;
  uuid?: string;
  transaction?: Record<string, unknown>;
  bundleId?: string;
  chain?: AppleChain;
  key?: crypto.KeyObject;
}

function notification(chain: AppleChain, options: Options): string {
  const signer = options.chain ?? chain;
  const transaction = {
    transactionId: `tx-${options.uuid ?? 'n1'}`,
    originalTransactionId: 'otx-1',
    bundleId: BUNDLE,
    productId: 'com.example.pro.monthly',
    purchaseDate: Date.now() - 10_000,
    type: 'Auto-Renewable Subscription',
    appAccountToken: USER_1_TOKEN,
    price: 9990,
    currency: 'EUR',
    environment: 'Production',
    signedDate: Date.now(),
    ...options.transaction,
  };
  const payload = {
    notificationType: options.type,
    ...(options.subtype ? { subtype: options.subtype } : {}),
    notificationUUID: options.uuid ?? crypto.randomUUID(),
    version: '2.0',
    signedDate: Date.now(),
    data: {
      environment: 'Production',
      bundleId: options.bundleId ?? BUNDLE,
      bundleVersion: '1.0',
      signedTransactionInfo: signJws(signer, transaction, options.key),
      signedRenewalInfo: signJws(signer, { originalTransactionId: 'otx-1', autoRenewStatus: 1, signedDate: Date.now() }, options.key),
      status: 1,
    },
  };
  return JSON.stringify({ signedPayload: signJws(signer, payload, options.key) });
}

async function setup(t: Parameters<typeof startTestServer>[0], seen: 'identify' | 'event' = 'identify') {
  const { apple, other, unmarked } = chainsFor(t);
  const server = await startTestServer(t);
  await configured(server.url, server.keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [apple.rootPem] });
  if (seen === 'identify') {
    const linked = await fetch(`${server.url}/api/sdk/identify`, {
      method: 'POST',
      headers: { ...bearer(server.keys.sdk), 'content-type': 'application/json' },
      body: JSON.stringify({ anonymous_id: 'device-1', user_id: 'user-1' }),
    });
    assert.equal(linked.status, 200);
  } else {
    await ingest(server.url, server.keys.sdk, { events: [{ type: 'screen_impression', paywall_id: 'pw', user_id: 'user-1', ts: Date.now() }] });
  }
  const send = (options: Options) => deliver(server.url, 'app-store', server.projectId, notification(apple, options));
  const stored = async () => (await server.server.ctx.purchases.list(server.projectId)).map((p) => [p.type, p.userId, p.revenue, p.currency]);
  return { ...server, apple, other, unmarked, send, stored };
}

test('a free trial, its conversion, a renewal, a refund and an expiry; price in milli-units; the user from appAccountToken', async (t) => {
  const { send, stored } = await setup(t, 'event');
  const trial: Options = { type: 'SUBSCRIBED', subtype: 'INITIAL_BUY', transaction: { offerType: 1, offerDiscountType: 'FREE_TRIAL', price: 0 } };
  // user-1 is known from an event only: its token is found once the event users dictionary has been checkpointed
  // (every few seconds); until then the notification names no known user and stores nothing.
  await until(async () => ((await (await send(trial)).json()) as { outcome: string }).outcome === 'stored', 'the event checkpoint');
  const steps: Options[] = [
    { type: 'DID_RENEW', transaction: { price: 9990 } },
    { type: 'DID_RENEW', subtype: 'BILLING_RECOVERY', transaction: { price: 9990 } },
    { type: 'REFUND', transaction: { price: 9990, revocationDate: Date.now() - 1000, revocationReason: 0 } },
    { type: 'DID_CHANGE_RENEWAL_STATUS', subtype: 'AUTO_RENEW_DISABLED' },
    { type: 'EXPIRED', subtype: 'VOLUNTARY' },
  ];
  for (const step of steps) assert.deepEqual(await (await send(step)).json(), { outcome: 'stored', stored: 1 }, step.type);
  assert.deepEqual(await stored(), [
    ['trial_started', 'user-1', 0, 'EUR'],
    ['trial_converted', 'user-1', 9.99, 'EUR'],
    ['renewal', 'user-1', 9.99, 'EUR'],
    ['refund', 'user-1', 9.99, 'EUR'],
    ['cancellation', 'user-1', 0, 'EUR'],
    ['expiration', 'user-1', 0, 'EUR'],
  ]);
});

test('forged notifications answer 401 and store nothing: another key, another root, no Apple extensions, a broken JWS', async (t) => {
  const { send, stored, other, unmarked, url, keys, projectId } = await setup(t);
  await problem(await send({ type: 'DID_RENEW', key: crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey }), 401, 'invalid_signature');
  await problem(await send({ type: 'DID_RENEW', chain: other }), 401, 'invalid_signature');
  // Its root configured too: refused only for lacking Apple's extensions.
  await configured(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [chainsFor(t).apple.rootPem, unmarked.rootPem] });
  await problem(await send({ type: 'DID_RENEW', chain: unmarked }), 401, 'invalid_signature');
  for (const signedPayload of ['x.y', 'a.b.c', 42]) {
    await problem(await deliver(url, 'app-store', projectId, JSON.stringify({ signedPayload })), 401, 'invalid_signature');
  }
  assert.deepEqual(await stored(), []);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="app-store",outcome="refused"}'), 6);
});

test('a stale notification, signed by a leaf certificate that has expired, answers 401 and stores nothing', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  // Its root configured too: refused only for the leaf's validity.
  const { apple, expired } = chainsFor(t);
  await configured(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [apple.rootPem, expired.rootPem] });
  await problem(await send({ type: 'DID_RENEW', chain: expired }), 401, 'invalid_signature');
  assert.deepEqual(await stored(), []);
  assert.equal((await send({ type: 'DID_RENEW' })).status, 200);
  assert.equal((await stored()).length, 1);
});

test("another app's bundle id is refused with 401", async (t) => {
  const { send, stored } = await setup(t);
  await problem(await send({ type: 'DID_RENEW', bundleId: 'com.other.app' }), 401, 'invalid_signature');
  await problem(await send({ type: 'DID_RENEW', transaction: { bundleId: 'com.other.app' } }), 401, 'invalid_signature');
  assert.deepEqual(await stored(), []);
});

test('a redelivered notification (same notificationUUID) is stored once; unused types answer 200 and are counted; an unknown token stores nothing', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  const uuid = crypto.randomUUID();
  assert.deepEqual(await (await send({ type: 'ONE_TIME_CHARGE', uuid, transaction: { type: 'Non-Consumable', price: 4990 } })).json(), {
    outcome: 'stored',
    stored: 1,
  });
  assert.deepEqual(await (await send({ type: 'ONE_TIME_CHARGE', uuid, transaction: { type: 'Non-Consumable', price: 4990 } })).json(), {
    outcome: 'duplicate',
    stored: 0,
  });
  assert.deepEqual(await (await send({ type: 'DID_FAIL_TO_RENEW' })).json(), { outcome: 'unused_type', stored: 0 });
  assert.deepEqual(await (await send({ type: 'DID_RENEW', transaction: { appAccountToken: crypto.randomUUID() } })).json(), {
    outcome: 'no_user',
    stored: 0,
  });
  assert.deepEqual(await stored(), [['non_renewing_purchase', 'user-1', 4.99, 'EUR']]);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="app-store",outcome="unused_type"}'), 1);
});

test('the configuration needs PEM certificates; GET shows the roots by fingerprint', async (t) => {
  const { apple } = chainsFor(t);
  const { url, keys } = await startTestServer(t);
  await problem(await configure(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: ['not a pem'] }), 422, 'validation_failed');
  const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  const body = await problem(await configure(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [broken] }), 422, 'validation_failed');
  assert.deepEqual(body.errors, [{ path: '/root_certificates/0', message: 'is not a PEM certificate' }]);
  await configured(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [apple.rootPem] });
  const shown = (await (await fetch(`${url}/api/integrations/app-store`, { headers: bearer(keys.secret) })).json()) as any;
  assert.equal(shown.bundle_id, BUNDLE);
  assert.deepEqual(shown.root_certificates, [new crypto.X509Certificate(apple.rootPem).fingerprint256]);
});

test('a body parsed before its signature verifies is refused unread when it holds more than Apple sends', async (t) => {
  const { url, projectId, stored, apple } = await setup(t);
  // A megabyte of `[{},{},…]` or of '[' costs V8 hundreds of milliseconds; Apple's body is one field.
  const wide = JSON.stringify({ signedPayload: 'a.b.c', pad: Array.from({ length: 200_000 }, () => ({})) });
  const deep = `{"signedPayload":"a.b.c","pad":${'['.repeat(100)}${']'.repeat(100)}}`;
  for (const body of [wide, deep]) {
    const refused = await problem(await deliver(url, 'app-store', projectId, body), 400, 'invalid_notification');
    assert.match(refused.detail, /more than (16 values|64 levels)/);
  }
  // The JWS header is read before the signature too: one with a padded x5c is refused as not JSON it reads.
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c: [...apple.x5c, ...Array.from({ length: 50 }, () => 0)] })).toString('base64url');
  const padded = await problem(await deliver(url, 'app-store', projectId, JSON.stringify({ signedPayload: `${header}.e30.AA` })), 401, 'invalid_signature');
  assert.match(padded.detail, /header is not JSON/);
  assert.deepEqual(await stored(), []);
});

const CHECKS = 'paywalld_store_signature_checks_total{provider="app-store"}';

test('an issuer that is not a CA, a path length exceeded, or markers only as bytes in other extensions: 401 though the root is configured', async (t) => {
  const { send, stored, url, keys } = await setup(t);
  const dir = tempDir(t);
  const broken = [
    makeAppleChain(dir, 'not-ca', { intermediateCa: false }),
    makeAppleChain(dir, 'path', { pastPathLength: true }),
    makeAppleChain(dir, 'hidden', { markers: 'hidden' }),
  ];
  const { apple } = chainsFor(t);
  await configured(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [apple.rootPem, ...broken.map((chain) => chain.rootPem)] });
  const reasons = [];
  for (const chain of broken) reasons.push((await problem(await send({ type: 'DID_RENEW', chain }), 401, 'invalid_signature')).detail);
  assert.deepEqual(reasons, [
    'the signed data does not verify: an issuer of the chain is not a CA (basicConstraints CA:TRUE)',
    "the signed data does not verify: an issuer's path length does not allow the CAs below it",
    "the signed data does not verify: the chain lacks Apple's App Store signing extensions",
  ]);
  assert.deepEqual(await stored(), []);
  assert.equal((await send({ type: 'DID_RENEW' })).status, 200);
});

test('a chain of RSA-3072 certificates with huge public exponents is refused before any signature check; a valid chain is checked once', async (t) => {
  const { url, keys, projectId, send, stored } = await setup(t);
  const heavy = makeHeavyRsaChain(tempDir(t), 'heavy');
  const checks = async () => (await metric(url, keys.secret, CHECKS)) ?? Number.NaN;
  const before = await checks();
  // Signed by the leaf's RSA key; the header says ES256, as it must to get as far as the chain.
  const hostile = JSON.stringify({ signedPayload: signJws(heavy, { notificationType: 'DID_RENEW' }) });
  for (let i = 0; i < 3; i++) await problem(await deliver(url, 'app-store', projectId, hostile), 401, 'invalid_signature');
  assert.equal(await checks(), before, 'no signature was checked');
  // Even with its RSA root configured: an RSA key is never used to verify.
  await configured(url, keys.secret, 'app-store', { bundle_id: BUNDLE, root_certificates: [chainsFor(t).apple.rootPem, heavy.rootPem] });
  const refused = await problem(await deliver(url, 'app-store', projectId, hostile), 401, 'invalid_signature');
  assert.match(refused.detail, /not ECDSA P-256/);
  assert.equal(await checks(), before, 'no signature was checked');
  assert.deepEqual(await stored(), []);
  // A real notification: its chain's two certificates and its three JWS, then only the JWS (the chain is remembered).
  assert.equal((await send({ type: 'DID_RENEW' })).status, 200);
  const first = (await checks()) - before;
  assert.ok(first <= 5, `${first} checks`);
  assert.equal((await send({ type: 'DID_RENEW' })).status, 200);
  assert.equal((await checks()) - before - first, 3);
});
