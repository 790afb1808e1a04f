/**
 * Apple's signed data (App Store Server Notifications v2, JWSTransaction,
 * JWSRenewalInfo): a compact JWS with alg ES256 whose header carries the
 * certificate chain (x5c). It is trusted when the chain reaches a configured
 * root (apple-x5c.ts checks it, cheapest part first) and the leaf's key
 * verifies the signature (ECDSA P-256 over SHA-256, r‖s as JWS writes it).
 */
import { verify, type X509Certificate } from 'node:crypto';
import { checkedSignature, refused, trustedLeafKey } from './apple-x5c.ts';
import { MAX_UNVERIFIED_VALUES, object, parseJson } from './json-fields.ts';

function decodePart(part: string, what: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) throw refused(`its ${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

/** The payload of a JWS Apple signed, as an object; invalid_signature unless it verifies against one of the roots. */
export function verifyAppleJws(jws: unknown, roots: readonly X509Certificate[], now: number): Record<string, unknown> {
  if (typeof jws !== 'string') throw refused('it is not a compact JWS');
  const parts = jws.split('.');
  if (parts.length !== 3) throw refused('it is not a compact JWS');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: Record<string, unknown>;
  try {
    header = object(parseJson(decodePart(headerPart, 'header'), MAX_UNVERIFIED_VALUES), 'the header');
  } catch {
    throw refused('its header is not JSON');
  }
  if (header.alg !== 'ES256') throw refused('alg must be ES256');
  const key = trustedLeafKey(header.x5c, roots, now);
  const signature = decodePart(signaturePart, 'signature');
  const ok =
    signature.length === 64 &&
    checkedSignature(() => verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), { key, dsaEncoding: 'ieee-p1363' }, signature));
  if (!ok) throw refused('the signature does not match');
  return object(parseJson(decodePart(payloadPart, 'payload')), 'the payload');
}
