/**
 * paywalld as the project's service account (OAuth 2 for service accounts, RFC 7523): a JWT
 * assertion signed RS256 with the key file's private key (iss the account, scope the Play
 * Developer API's, aud the token endpoint, an hour long) is exchanged at the token endpoint for
 * an access token, kept until REFRESH_MARGIN_MS before it expires. Tokens are kept per key (a
 * hash of the account, its private key and the endpoint), never per email alone: a project that
 * names another project's account without its key gets no token of it.
 */
import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import type { FieldError } from '../../shared/errors.ts';
import { callGoogle, okObject, unavailable } from './google-http.ts';
import { signRs256 } from './jwt.ts';

const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
const ASSERTION_SECONDS = 3600;
const REFRESH_MARGIN_MS = 5 * 60_000;
/** Accounts whose tokens are kept at most; past it the cache starts over (one per configured project). */
const MAX_ACCOUNTS = 1000;

export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  /** The key file's private_key_id, named in the assertion's header so that Google finds the key at once. */
  privateKeyId: string | undefined;
  /** Tells two (account, key) pairs apart without holding the key. */
  fingerprint: string;
}

/** A key file's account, or why it is not one (messages name no part of the file: it holds a private key). */
function parse(json: string): ServiceAccount | string {
  let file: unknown;
  try {
    file = JSON.parse(json);
  } catch {
    return "is not JSON (paste the key file's contents as a string)";
  }
  if (typeof file !== 'object' || file === null || (file as Record<string, unknown>).type !== 'service_account') {
    return 'must be a service account key file ("type": "service_account")';
  }
  const { client_email: clientEmail, private_key: pem, private_key_id: privateKeyId } = file as Record<string, unknown>;
  if (typeof clientEmail !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(clientEmail)) return 'has no client_email';
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: String(pem), format: 'pem' });
  } catch {
    return 'has no private_key in PEM';
  }
  if (privateKey.asymmetricKeyType !== 'rsa') return "has a private_key that is not an RSA key (Google's are)";
  const fingerprint = createHash('sha256').update(clientEmail).update('\n').update(String(pem)).digest('hex');
  return { clientEmail, privateKey, privateKeyId: typeof privateKeyId === 'string' ? privateKeyId : undefined, fingerprint };
}

const parsed = new Map<string, ServiceAccount>();

/** The account of a key file, parsed once per text; the configuration was checked when written (checkServiceAccount). */
export function serviceAccountOf(json: string): ServiceAccount {
  let account = parsed.get(json);
  if (!account) {
    const result = parse(json);
    if (typeof result === 'string') throw unavailable(`the configured service_account_json ${result}`);
    if (parsed.size >= MAX_ACCOUNTS) parsed.clear();
    parsed.set(json, (account = result));
  }
  return account;
}

/** What is wrong with a key file, checked when the configuration is written. */
export function checkServiceAccount(json: string): FieldError[] {
  const result = parse(json);
  return typeof result === 'string' ? [{ path: '/service_account_json', message: result }] : [];
}

interface Held {
  token: string;
  refreshAt: number;
}

export class AccessTokens {
  private readonly held = new Map<string, Held | Promise<Held>>();

  constructor(
    private readonly tokenUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** An access token of the account: the one held while it is fresh, else a new one (concurrent callers share the exchange). */
  async token(account: ServiceAccount): Promise<string> {
    const key = account.fingerprint;
    const held = this.held.get(key);
    if (held instanceof Promise) return (await held).token;
    if (held && Date.now() < held.refreshAt) return held.token;
    if (this.held.size >= MAX_ACCOUNTS) this.held.clear();
    const exchange = this.exchange(account);
    this.held.set(key, exchange);
    try {
      const fresh = await exchange;
      if (this.held.get(key) === exchange) this.held.set(key, fresh);
      return fresh.token;
    } catch (error) {
      if (this.held.get(key) === exchange) this.held.delete(key);
      throw error;
    }
  }

  /** Drops a token Google refused (revoked, or its account's key rotated): the next call exchanges a new one. */
  forget(account: ServiceAccount, token: string): void {
    const held = this.held.get(account.fingerprint);
    if (held && !(held instanceof Promise) && held.token === token) this.held.delete(account.fingerprint);
  }

  private async exchange(account: ServiceAccount): Promise<Held> {
    const iat = Math.floor(Date.now() / 1000);
    const assertion = signRs256(
      account.privateKeyId === undefined ? {} : { kid: account.privateKeyId },
      { iss: account.clientEmail, scope: SCOPE, aud: this.tokenUrl, iat, exp: iat + ASSERTION_SECONDS },
      account.privateKey,
    );
    const what = "Google's token endpoint";
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    const answer = okObject(
      await callGoogle(this.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }, this.timeoutMs, what),
      what,
    );
    const { access_token: token, expires_in: expiresIn } = answer;
    if (typeof token !== 'string' || token === '' || typeof expiresIn !== 'number' || !(expiresIn > 0)) {
      throw unavailable(`${what} answered without access_token and expires_in`);
    }
    const lifetimeMs = expiresIn * 1000;
    return { token, refreshAt: Date.now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
  }
}
