/**
 * PUT /api/integrations/google-play: the service account's key file is checked when written and
 * never read back (GET shows the account and a fingerprint) nor logged, whatever happens to the
 * notifications it is used for.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Logger } from '../../src/log.ts';
import { configure, deliver } from '../helpers/hooks.ts';
import { problem } from '../helpers/problem.ts';
import { bearer, startTestServer } from '../helpers/server.ts';
import { ACCOUNT_EMAIL, AUDIENCE, PACKAGE, PUSH_EMAIL, pushBody, startFakeGoogle } from './fake-google.ts';

test('the configuration is checked field by field: a key file that is not a service account, a package name, an email', async (t) => {
  const google = await startFakeGoogle(t);
  const { url, keys } = await startTestServer(t, { google: google.endpoints });
  const file = JSON.parse(google.serviceAccountJson);
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' });
  const keyFiles: [unknown, string][] = [
    ['{"type": "service_account", "private_key": "-----BEGIN', 'is not JSON'],
    [JSON.stringify({ ...file, type: 'authorized_user' }), 'must be a service account key file'],
    [JSON.stringify({ ...file, client_email: undefined }), 'has no client_email'],
    [JSON.stringify({ ...file, private_key: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' }), 'has no private_key in PEM'],
    [JSON.stringify({ ...file, private_key: ec }), 'not an RSA key'],
  ];
  for (const [json, message] of keyFiles) {
    const refused = await problem(await configure(url, keys.secret, 'google-play', google.config({ service_account_json: json })), 422, 'validation_failed');
    assert.equal(refused.errors.length, 1);
    assert.equal(refused.errors[0].path, '/service_account_json');
    assert.match(refused.errors[0].message, new RegExp(message));
    assert.ok(!JSON.stringify(refused).includes('PRIVATE KEY') && !JSON.stringify(refused).includes('MIIEvQ'), 'the answer echoes no key');
  }
  const fields: [Record<string, unknown>, string][] = [
    [{ package_name: 'not a package' }, '/package_name'],
    [{ package_name: 'single' }, '/package_name'],
    [{ pubsub_service_account_email: 'nobody' }, '/pubsub_service_account_email'],
    [{ pubsub_audience: '' }, '/pubsub_audience'],
    [{ service_account_json: { type: 'service_account' } }, '/service_account_json'],
    [{ extra: true }, '/extra'],
  ];
  for (const [change, path] of fields) {
    const refused = await problem(await configure(url, keys.secret, 'google-play', google.config(change)), 422, 'validation_failed');
    assert.ok(
      refused.errors.some((error: { path: string }) => error.path === path),
      `${JSON.stringify(change)}: ${JSON.stringify(refused.errors)}`,
    );
  }
  await problem(await fetch(`${url}/api/integrations/google-play`, { headers: bearer(keys.secret) }), 404, 'integration_not_found');
});

test('GET shows the account, the audience and a fingerprint, never the key; no log line holds it', async (t) => {
  const google = await startFakeGoogle(t);
  const lines: string[] = [];
  const log = new Logger('debug', { sink: (text) => lines.push(text) });
  const { url, keys, projectId } = await startTestServer(t, { google: google.endpoints }, log);
  const set = await configure(url, keys.secret, 'google-play', google.config());
  const setText = await set.text();
  assert.equal(set.status, 200, setText);
  const response = await fetch(`${url}/api/integrations/google-play`, { headers: bearer(keys.secret) });
  const text = await response.text();
  assert.equal(text, setText);
  const shown = JSON.parse(text);
  assert.deepEqual(Object.keys(shown).sort(), [
    'fingerprint',
    'package_name',
    'provider',
    'pubsub_audience',
    'pubsub_service_account_email',
    'service_account_email',
    'updated_at',
    'webhook_path',
  ]);
  assert.equal(shown.provider, 'google-play');
  assert.equal(shown.webhook_path, `/hooks/google-play/${projectId}`);
  assert.equal(shown.package_name, PACKAGE);
  assert.equal(shown.service_account_email, ACCOUNT_EMAIL);
  assert.equal(shown.pubsub_audience, AUDIENCE);
  assert.equal(shown.pubsub_service_account_email, PUSH_EMAIL);
  assert.match(shown.fingerprint, /^sha256:[0-9a-f]{16}$/);
  // The key at work: a push looked up (an outage, then a success) and a refused one.
  google.subscriptions.set('tok-1', { lineItems: [{ productId: 'pro', offerPhase: { freeTrial: {} } }] });
  const body = pushBody({ subscriptionNotification: { notificationType: 4, purchaseToken: 'tok-1' } });
  const push = (token: string) => deliver(url, 'google-play', projectId, body, { authorization: `Bearer ${token}` });
  google.playOutage = 'error';
  assert.equal((await push(google.pushToken())).status, 503);
  google.playOutage = undefined;
  assert.equal((await push(google.pushToken())).status, 200);
  assert.equal((await push(google.pushToken({ aud: 'other' }))).status, 401);
  const keyBody = JSON.parse(google.serviceAccountJson)
    .private_key.split('\n')
    .filter((line: string) => line !== '' && !line.startsWith('-----'));
  const logged = lines.join('');
  assert.ok(logged.includes('google-play'), 'the requests were logged');
  for (const line of keyBody) assert.ok(!logged.includes(line) && !text.includes(line), 'no part of the private key is shown or logged');
});
