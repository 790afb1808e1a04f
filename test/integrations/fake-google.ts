/**
 * Google, as the Google Play connector meets it, on a loopback port: the JWKS that signs Pub/Sub's
 * push tokens (keys this harness makes), the OAuth 2 token endpoint (it verifies the service
 * account's RS256 assertion with the key file's public key before it issues a token) and the Play
 * Developer API (subscriptionsv2, products, orders), answering only with a token it issued. A test
 * sets the purchases and orders it answers, counts its calls, and can make it fail or hang.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { GoogleEndpoints } from '../../src/integrations/providers/google-endpoints.ts';

export const PACKAGE = 'com.example.app';
export const AUDIENCE = 'https://paywalld.example.com/hooks/google-play';
export const PUSH_EMAIL = 'pubsub-push@example-project.iam.gserviceaccount.com';
export const ACCOUNT_EMAIL = 'paywalld@example-project.iam.gserviceaccount.com';
const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';

type Json = Record<string, unknown>;

interface SigningKey {
  kid: string;
  privateKey: crypto.KeyObject;
  publicKey: crypto.KeyObject;
}

function signingKey(kid = crypto.randomBytes(8).toString('hex'), bits = 2048): SigningKey {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: bits });
  return { kid, privateKey, publicKey };
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A compact JWT signed with RS256 (or whatever `alg` the header claims, signed RS256 all the same). */
export function signJwt(header: Json, claims: Json, key: crypto.KeyObject): string {
  const input = `${base64url({ alg: 'RS256', typ: 'JWT', ...header })}.${base64url(claims)}`;
  return `${input}.${crypto.sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

export interface FakeGoogle {
  endpoints: GoogleEndpoints;
  /** The service account's key file, as the configuration takes it. */
  serviceAccountJson: string;
  /** The configuration of a project for this Google. */
  config(overrides?: Json): Json;
  /** A push token as Pub/Sub makes it, its claims replaced by `claims`; signed by Google's current key unless `key` says otherwise. */
  pushToken(claims?: Json, options?: { key?: SigningKey; header?: Json }): string;
  /** A new key (of `bits`), published in the JWKS from now on; the old ones stay published. */
  rotate(bits?: number): SigningKey;
  /** A key Google never published. */
  stranger(): SigningKey;
  calls: { jwks: number; token: number; api: number; elsewhere: number };
  /** Makes every access token issued so far invalid, as a revocation or a key rotation does. */
  revokeTokens(): void;
  /** The claims of every assertion the token endpoint verified. */
  assertions: Json[];
  subscriptions: Map<string, Json>;
  products: Map<string, Json>;
  orders: Map<string, Json>;
  /** What the JWKS answer's Cache-Control says. */
  jwksCacheControl: string;
  /** `error`: the Play API answers 503; `hang`: it never answers; `redirect`: it sends the caller elsewhere; undefined: it works. */
  playOutage: 'error' | 'hang' | 'redirect' | undefined;
  jwksOutage: boolean;
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

/** Checks the assertion as Google does: RS256 by the account's key, the account as iss, the token endpoint as aud, the API's scope, an hour at most. */
function verifyAssertion(assertion: string, publicKey: crypto.KeyObject, tokenUrl: string): Json {
  const [header, payload, signature] = assertion.split('.') as [string, string, string];
  assert.equal(JSON.parse(Buffer.from(header, 'base64url').toString()).alg, 'RS256');
  assert.ok(crypto.verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url')), 'the assertion signature');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Json;
  assert.equal(claims.iss, ACCOUNT_EMAIL);
  assert.equal(claims.aud, tokenUrl);
  assert.equal(claims.scope, SCOPE);
  const now = Date.now() / 1000;
  assert.ok(Math.abs((claims.iat as number) - now) < 60 && (claims.exp as number) - (claims.iat as number) <= 3600, 'iat and exp');
  return claims;
}

export async function startFakeGoogle(t: TestContext): Promise<FakeGoogle> {
  const keys = [signingKey()];
  const account = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url!, 'http://localhost');
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === '/oauth2/v3/certs') {
      fake.calls.jwks++;
      if (fake.jwksOutage) return reply(503, { error: 'unavailable' });
      const published = keys.map(({ kid, publicKey }) => ({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }));
      return reply(200, { keys: published }, { 'cache-control': fake.jwksCacheControl });
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      fake.calls.token++;
      const form = new URLSearchParams(await readBody(request));
      assert.equal(form.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
      try {
        fake.assertions.push(verifyAssertion(form.get('assertion') ?? '', account.publicKey, fake.endpoints.tokenUrl));
      } catch {
        return reply(400, { error: 'invalid_grant' });
      }
      const token = `ya29.${crypto.randomBytes(24).toString('base64url')}`;
      issued.add(token);
      return reply(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    if (url.pathname === '/elsewhere') {
      fake.calls.elsewhere++;
      return reply(200, {});
    }
    const api = /^\/androidpublisher\/v3\/applications\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (api) {
      fake.calls.api++;
      if (fake.playOutage === 'hang') return void hanging.add(response);
      if (fake.playOutage === 'error') return reply(503, { error: { code: 503, message: 'Backend Error' } });
      if (fake.playOutage === 'redirect') return reply(307, {}, { location: `${base}/elsewhere` });
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
      if (!bearer || !issued.has(bearer[1]!)) return reply(401, { error: { code: 401 } });
      if (decodeURIComponent(api[1]!) !== PACKAGE) return reply(404, { error: { code: 404 } });
      const rest = api[2]!.split('/').map(decodeURIComponent);
      const found =
        rest[0] === 'orders'
          ? fake.orders.get(rest[1]!)
          : rest[1] === 'subscriptionsv2'
            ? fake.subscriptions.get(rest[3]!)
            : rest[1] === 'products'
              ? fake.products.get(`${rest[2]}/${rest[4]}`)
              : undefined;
      return found ? reply(200, found) : reply(404, { error: { code: 404, message: 'not found' } });
    }
    reply(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const serviceAccountJson = JSON.stringify({
    type: 'service_account',
    project_id: 'example-project',
    private_key_id: crypto.randomBytes(20).toString('hex'),
    private_key: account.privateKey.export({ format: 'pem', type: 'pkcs8' }),
    client_email: ACCOUNT_EMAIL,
    client_id: '100000000000000000001',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  const fake: FakeGoogle = {
    endpoints: { jwksUrl: `${base}/oauth2/v3/certs`, tokenUrl: `${base}/token`, playApiUrl: base, timeoutMs: 5000 },
    serviceAccountJson,
    config: (overrides = {}) => ({
      package_name: PACKAGE,
      service_account_json: serviceAccountJson,
      pubsub_audience: AUDIENCE,
      pubsub_service_account_email: PUSH_EMAIL,
      ...overrides,
    }),
    pushToken(claims = {}, options = {}) {
      const key = options.key ?? keys.at(-1)!;
      const iat = Math.floor(Date.now() / 1000);
      const standard = {
        aud: AUDIENCE,
        azp: '113774264463038321964',
        email: PUSH_EMAIL,
        email_verified: true,
        exp: iat + 3600,
        iat,
        iss: 'https://accounts.google.com',
        sub: '113774264463038321964',
      };
      return signJwt({ kid: key.kid, ...options.header }, { ...standard, ...claims }, key.privateKey);
    },
    rotate(bits = 2048) {
      const key = signingKey(undefined, bits);
      keys.push(key);
      return key;
    },
    stranger: () => signingKey(keys[0]!.kid),
    calls: { jwks: 0, token: 0, api: 0, elsewhere: 0 },
    revokeTokens: () => issued.clear(),
    assertions: [],
    subscriptions: new Map(),
    products: new Map(),
    orders: new Map(),
    jwksCacheControl: 'public, max-age=3600, must-revalidate, no-transform',
    playOutage: undefined,
    jwksOutage: false,
  };
  return fake;
}

let messages = 0;

/** A Pub/Sub push body carrying this DeveloperNotification (packageName and eventTimeMillis filled in). */
export function pushBody(notification: Json, messageId = String(++messages)): string {
  const developer = { version: '1.0', packageName: PACKAGE, eventTimeMillis: String(Date.now()), ...notification };
  return JSON.stringify({
    message: { data: Buffer.from(JSON.stringify(developer)).toString('base64'), messageId, publishTime: new Date().toISOString() },
    subscription: 'projects/example-project/subscriptions/paywalld-play',
  });
}

/** google.type.Money as the Play API writes it. */
export function money(currencyCode: string, units: number, nanos = 0): Json {
  return { currencyCode, units: String(units), nanos };
}
