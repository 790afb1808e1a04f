/**
 * Google's public keys (a JWKS), by `kid`, as the push tokens of Pub/Sub name them. They are
 * kept for the lifetime the answer's cache headers give (Cache-Control max-age less Age, else
 * Expires less Date; at most a day) and fetched again once it has passed. A `kid` they do not
 * hold fetches them again before it is refused, for Google rotates its keys, but at most once
 * per UNKNOWN_KID_REFETCH_MS: tokens naming made-up kids cannot make paywalld call Google for
 * each of them. Concurrent lookups share one fetch.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { callGoogle, okObject } from './google-http.ts';

const UNKNOWN_KID_REFETCH_MS = 30_000;
const MAX_LIFETIME_MS = 24 * 3_600_000;
/** RSA keys shorter than this are not Google's (its keys are 2048 bits). */
const MIN_RSA_BITS = 2048;

/** How long an answer may be kept, from its cache headers: 0 when they say nothing or forbid it. */
function lifetimeMs(headers: Headers): number {
  const control = headers.get('cache-control') ?? '';
  if (/(^|,)\s*(no-store|no-cache)\b/i.test(control)) return 0;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(control);
  let ms: number;
  if (maxAge) ms = (Number(maxAge[2]) - Number(headers.get('age') ?? 0)) * 1000;
  else {
    const expires = Date.parse(headers.get('expires') ?? '');
    const date = Date.parse(headers.get('date') ?? '');
    ms = Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? Date.now() : date);
  }
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_LIFETIME_MS) : 0;
}

/** The RSA signing keys of a JWKS by kid; entries of another kind, or that do not parse, are left out. */
function keysOf(jwks: Record<string, unknown>): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const entries = Array.isArray(jwks.keys) ? (jwks.keys as unknown[]) : [];
  for (const entry of entries) {
    if (typeof entry !== 'object' || entry === null) continue;
    const jwk = entry as Record<string, unknown>;
    if (jwk.kty !== 'RSA' || typeof jwk.kid !== 'string' || (jwk.alg !== undefined && jwk.alg !== 'RS256') || (jwk.use !== undefined && jwk.use !== 'sig')) {
      continue;
    }
    try {
      const key = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e } as never, format: 'jwk' });
      if ((key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS) keys.set(jwk.kid, key);
    } catch {
      // Not an RSA public key: ignored, as a kid Google does not use.
    }
  }
  return keys;
}

export class GoogleKeys {
  private keys = new Map<string, KeyObject>();
  private freshUntil = 0;
  private lastUnknownKidFetch = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  /** Google's key of this kid, or undefined when Google has none; store_unavailable when the keys cannot be fetched. */
  async key(kid: string): Promise<KeyObject | undefined> {
    const now = Date.now();
    if (now >= this.freshUntil) await this.refresh();
    else if (!this.keys.has(kid) && now - this.lastUnknownKidFetch >= UNKNOWN_KID_REFETCH_MS) {
      this.lastUnknownKidFetch = now;
      await this.refresh();
    }
    return this.keys.get(kid);
  }

  private refresh(): Promise<void> {
    this.inFlight ??= this.fetchKeys().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetchKeys(): Promise<void> {
    const what = "Google's public keys";
    const answer = await callGoogle(this.url, { headers: { accept: 'application/json' } }, this.timeoutMs, what);
    this.keys = keysOf(okObject(answer, what));
    this.freshUntil = Date.now() + lifetimeMs(answer.headers);
  }
}
