/**
 * The proof that a push comes from the project's Pub/Sub subscription: Pub/Sub signs an OpenID
 * Connect token as the subscription's service account and sends it as `Authorization: Bearer`.
 * It is accepted when it is an RS256 JWT signed by one of Google's keys (google-keys.ts), issued
 * by Google (`https://accounts.google.com` or `accounts.google.com`), for the configured audience,
 * as the configured service account with its email verified, and within its lifetime, allowing
 * CLOCK_SKEW_SECONDS for clocks that disagree. Anything else throws invalid_signature.
 */
import { DomainError } from '../../shared/errors.ts';
import type { GoogleKeys } from './google-keys.ts';
import { payloadOf, splitJwt, verifiesRs256 } from './jwt.ts';

const ISSUERS = new Set(['https://accounts.google.com', 'accounts.google.com']);

/** How far paywalld's clock and Google's may disagree; Pub/Sub's tokens live an hour. */
const CLOCK_SKEW_SECONDS = 60;

/** A token valid for longer than this is not one Google issues for Pub/Sub (google-auth-library's own bound). */
const MAX_LIFETIME_SECONDS = 86_400;

function refused(why: string): DomainError {
  return new DomainError('invalid_signature', `the push token does not verify: ${why}`);
}

function seconds(claims: Record<string, unknown>, name: string): number {
  const value = claims[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw refused(`${name} is missing`);
  return value;
}

/** Throws invalid_signature unless the Authorization header carries a push token of this subscription, valid now. */
export async function verifyPushToken(authorization: string, expected: { audience: string; email: string }, keys: GoogleKeys, nowMs: number): Promise<void> {
  const bearer = /^Bearer +(\S+)$/i.exec(authorization);
  if (!bearer) throw refused('the Authorization header must be "Bearer" and a token (set the push subscription\'s authentication)');
  const jwt = splitJwt(bearer[1]!, refused);
  if (jwt.header.alg !== 'RS256') throw refused('alg must be RS256');
  const kid = jwt.header.kid;
  if (typeof kid !== 'string' || kid === '' || kid.length > 256) throw refused('its header names no key (kid)');
  const key = await keys.key(kid);
  if (!key) throw refused("its key (kid) is not one of Google's");
  if (!verifiesRs256(jwt, key)) throw refused('the signature does not match');
  const claims = payloadOf(jwt, refused);
  if (typeof claims.iss !== 'string' || !ISSUERS.has(claims.iss)) throw refused('it is not issued by Google (iss)');
  if (claims.aud !== expected.audience) throw refused('its audience (aud) is not the configured pubsub_audience');
  if (typeof claims.email !== 'string' || claims.email.toLowerCase() !== expected.email.toLowerCase()) {
    throw refused('its email is not the configured pubsub_service_account_email');
  }
  if (claims.email_verified !== true) throw refused('its email is not verified (email_verified)');
  const now = Math.floor(nowMs / 1000);
  const exp = seconds(claims, 'exp');
  const iat = seconds(claims, 'iat');
  if (now > exp + CLOCK_SKEW_SECONDS) throw refused('it has expired (exp)');
  if (iat > now + CLOCK_SKEW_SECONDS) throw refused('it is issued in the future (iat)');
  if (exp - now > MAX_LIFETIME_SECONDS) throw refused('it expires too far ahead (exp)');
}
