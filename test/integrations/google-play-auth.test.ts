/**
 * Who may push to /hooks/google-play: only Pub/Sub's OIDC token of the configured subscription
 * (fake-google.ts signs real RS256 tokens with keys it publishes). Forged, expired, wrong-audience,
 * wrong-email, unverified and foreign tokens answer 401 and store nothing, before the Play API is
 * asked anything; Google's keys are cached for the lifetime their cache headers give and fetched
 * again on an unknown kid, at most once per 30 s.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { configured, deliver } from '../helpers/hooks.ts';
import { metric } from '../helpers/metrics.ts';
import { problem } from '../helpers/problem.ts';
import { startTestServer } from '../helpers/server.ts';
import { type FakeGoogle, pushBody, signJwt, startFakeGoogle } from './fake-google.ts';

async function setup(t: TestContext) {
  const google = await startFakeGoogle(t);
  const server = await startTestServer(t, { google: google.endpoints });
  await configured(server.url, server.keys.secret, 'google-play', google.config());
  // A subscription the Play API knows: were a refused push to get that far, a record would be stored.
  google.subscriptions.set('tok-1', {
    subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
    externalAccountIdentifiers: { obfuscatedExternalAccountId: 'someone' },
    lineItems: [{ productId: 'pro', offerPhase: { freeTrial: {} } }],
  });
  const body = pushBody({ subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: 'tok-1' } });
  const push = (authorization: string | undefined, notification = body) =>
    deliver(server.url, 'google-play', server.projectId, notification, authorization === undefined ? {} : { authorization });
  const test = pushBody({ testNotification: { version: '1.0' } });
  const stored = async () => (await server.server.ctx.purchases.list(server.projectId)).length;
  return { ...server, google, push, test, stored };
}

async function refusedWith(response: Response, why: RegExp): Promise<void> {
  const body = await problem(response, 401, 'invalid_signature');
  assert.match(body.detail, why);
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

test('a forged, an expired, a wrong-audience and a wrong-email token each answer 401 and store nothing, the Play API unasked', async (t) => {
  const { google, push, stored, url, keys } = await setup(t);
  const bearer = (token: string) => `Bearer ${token}`;
  // Signed by a key Google never published, under the kid of one it did.
  await refusedWith(await push(bearer(google.pushToken({}, { key: google.stranger() }))), /signature does not match/);
  await refusedWith(await push(bearer(google.pushToken({ exp: now() - 120, iat: now() - 3720 }))), /expired/);
  await refusedWith(await push(bearer(google.pushToken({ aud: 'https://other.example.com/push' }))), /audience/);
  await refusedWith(await push(bearer(google.pushToken({ email: 'someone-else@example-project.iam.gserviceaccount.com' }))), /email is not/);
  await refusedWith(await push(bearer(google.pushToken({ email_verified: false }))), /not verified/);
  await refusedWith(await push(bearer(google.pushToken({ email_verified: 'true' }))), /not verified/);
  await refusedWith(await push(bearer(google.pushToken({ iss: 'https://evil.example.com' }))), /issued by Google/);
  await refusedWith(await push(bearer(google.pushToken({ iat: now() + 600, exp: now() + 4200 }))), /future/);
  await refusedWith(await push(bearer(google.pushToken({ iat: now(), exp: now() + 200_000 }))), /too far ahead/);
  await refusedWith(await push(bearer(google.pushToken({ exp: undefined }))), /exp is missing/);
  await refusedWith(await push(bearer(google.pushToken({}, { header: { alg: 'HS256' } }))), /alg must be RS256/);
  await refusedWith(await push(bearer(google.pushToken({}, { header: { kid: undefined } }))), /names no key/);
  await refusedWith(await push(undefined), /Authorization header must be "Bearer"/);
  await refusedWith(await push('Basic dXNlcjpwYXNz'), /Authorization header must be "Bearer"/);
  await refusedWith(await push('Bearer not.a.jwt!'), /not a compact JWT/);
  const [header, , signature] = google.pushToken().split('.');
  await refusedWith(await push(`Bearer ${header}.${Buffer.from('{"aud":1}').toString('base64url')}.${signature}`), /signature does not match/);
  assert.equal(await stored(), 0);
  assert.equal(google.calls.api + google.calls.token, 0);
  assert.equal(await metric(url, keys.secret, 'paywalld_store_notifications_total{provider="google-play",outcome="refused"}'), 16);
  // The same push with Pub/Sub's own token is stored: nothing else was wrong with it.
  assert.deepEqual(await (await push(bearer(google.pushToken()))).json(), { outcome: 'no_user', stored: 0 });
});

test('the issuer may be written without its scheme; a token expired within the clock skew (60 s) is still accepted', async (t) => {
  const { google, push, test } = await setup(t);
  assert.equal((await push(`Bearer ${google.pushToken({ iss: 'accounts.google.com' })}`, test)).status, 200);
  assert.equal((await push(`Bearer ${google.pushToken({ exp: now() - 30, iat: now() - 3630 })}`, test)).status, 200);
  assert.equal((await push(`bearer  ${google.pushToken()}`, test)).status, 200);
});

test("Google's keys are fetched once while their cache headers allow; an unknown kid fetches them again, at most once per 30 s", async (t) => {
  const { google, push, test } = await setup(t);
  const send = (token: string) => push(`Bearer ${token}`, test);
  assert.equal((await send(google.pushToken())).status, 200);
  assert.equal((await send(google.pushToken())).status, 200);
  assert.equal(google.calls.jwks, 1);
  // Google rotates: a token signed by the new key makes paywalld fetch the keys again.
  const rotated = google.rotate();
  assert.equal((await send(google.pushToken({}, { key: rotated }))).status, 200);
  assert.equal(google.calls.jwks, 2);
  // Made-up kids: refused, and no more fetches within the bound, however many arrive.
  const forged = (google: FakeGoogle) => signJwt({ kid: `made-up-${Math.random()}` }, { aud: 'x' }, google.stranger().privateKey);
  for (let i = 0; i < 5; i++) await refusedWith(await send(forged(google)), /not one of Google's/);
  assert.equal(google.calls.jwks, 2);
  // The known keys still verify without a fetch.
  assert.equal((await send(google.pushToken())).status, 200);
  assert.equal(google.calls.jwks, 2);
});

test('keys whose answer may not be cached are fetched for every push; when Google cannot give them the push answers 503 and is delivered again', async (t) => {
  const { google, push, test } = await setup(t);
  google.jwksCacheControl = 'no-cache, no-store, max-age=0, must-revalidate';
  for (let i = 0; i < 3; i++) assert.equal((await push(`Bearer ${google.pushToken()}`, test)).status, 200);
  assert.equal(google.calls.jwks, 3);
  google.jwksOutage = true;
  const refused = await problem(await push(`Bearer ${google.pushToken()}`, test), 503, 'store_unavailable');
  assert.match(refused.detail, /public keys answered 503/);
  google.jwksOutage = false;
  assert.equal((await push(`Bearer ${google.pushToken()}`, test)).status, 200);
});

test("a key shorter than Google's 2048 bits is not taken from the JWKS, even when it is published there", async (t) => {
  const { google, push, test } = await setup(t);
  const weak = google.rotate(1024);
  await refusedWith(await push(`Bearer ${google.pushToken({}, { key: weak })}`, test), /not one of Google's/);
  assert.equal((await push(`Bearer ${google.pushToken({}, { key: google.rotate() })}`, test)).status, 200);
});
