// The Google endpoints the Google Play connector calls are serve settings: Google's addresses by default, HTTPS only but on loopback.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEnv, serveConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/config-error.ts';

test("Google's addresses are the defaults; a flag or PAYWALLD_GOOGLE_* replaces each", () => {
  assert.deepEqual(serveConfig({}, {}).google, {
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    playApiUrl: 'https://androidpublisher.googleapis.com',
    timeoutMs: 5000,
  });
  const env = readEnv({ PAYWALLD_GOOGLE_PLAY_API_URL: 'https://play-proxy.example.com/', PAYWALLD_GOOGLE_TOKEN_URL: 'http://127.0.0.1:9/token' });
  const config = serveConfig({ 'google-jwks-url': 'http://[::1]:8/certs' }, env);
  assert.equal(config.google.playApiUrl, 'https://play-proxy.example.com');
  assert.equal(config.google.tokenUrl, 'http://127.0.0.1:9/token');
  assert.equal(config.google.jwksUrl, 'http://[::1]:8/certs');
});

test('a Google address must be HTTPS (HTTP only on loopback), without credentials, query or fragment', () => {
  const refusals: [string, string, RegExp][] = [
    ['google-jwks-url', 'not a url', /--google-jwks-url must be an absolute URL/],
    ['google-token-url', 'http://oauth2.example.com/token', /--google-token-url must be an https:\/\/ URL/],
    ['google-play-api-url', 'https://user:pw@play.example.com', /--google-play-api-url must be an https:\/\/ URL/],
    ['google-play-api-url', 'https://play.example.com/?key=1', /without credentials, query or fragment/],
    ['google-jwks-url', 'ftp://127.0.0.1/certs', /must be an https:\/\/ URL/],
  ];
  for (const [flag, value, message] of refusals) {
    assert.throws(
      () => serveConfig({ [flag]: value }, {}),
      (e) => e instanceof ConfigError && message.test(e.message),
      `${flag} ${value}`,
    );
  }
});
