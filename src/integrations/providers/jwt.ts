/**
 * Compact JWTs signed with RS256 (RSASSA-PKCS1-v1_5 over SHA-256, RFC 7518
 * 3.3): reading one Google signed (a Pub/Sub push token) and signing one for
 * Google (a service account's assertion, RFC 7523). The header is read before
 * the signature verifies, to find the key; the payload only after.
 */
import { createSign, type KeyObject, verify } from 'node:crypto';
import type { DomainError } from '../../shared/errors.ts';
import { MAX_UNVERIFIED_VALUES, object, parseJson } from './json-fields.ts';

interface SignedJwt {
  header: Record<string, unknown>;
  /** `header.payload`, the bytes the signature covers. */
  signingInput: string;
  payloadPart: string;
  signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The parts of a compact JWT and its header; `refused(why)` is thrown for anything that is not one. */
export function splitJwt(token: string, refused: (why: string) => DomainError): SignedJwt {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw refused('it is not a compact JWT');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  let header: Record<string, unknown>;
  try {
    header = object(parseJson(Buffer.from(headerPart, 'base64url'), MAX_UNVERIFIED_VALUES), 'the header');
  } catch {
    throw refused('its header is not a JSON object');
  }
  return { header, signingInput: `${headerPart}.${payloadPart}`, payloadPart, signature: Buffer.from(signaturePart, 'base64url') };
}

/** Whether the RSA public key made the JWT's RS256 signature. */
export function verifiesRs256(jwt: SignedJwt, key: KeyObject): boolean {
  return key.asymmetricKeyType === 'rsa' && verify('sha256', Buffer.from(jwt.signingInput), key, jwt.signature);
}

/** The payload of a JWT whose signature verified, as an object; `refused(why)` otherwise. */
export function payloadOf(jwt: SignedJwt, refused: (why: string) => DomainError): Record<string, unknown> {
  try {
    return object(parseJson(Buffer.from(jwt.payloadPart, 'base64url')), 'the payload');
  } catch {
    throw refused('its payload is not a JSON object');
  }
}

function encoded(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A compact JWT of these claims, signed RS256 with the private key. */
export function signRs256(header: Record<string, unknown>, claims: Record<string, unknown>, privateKey: KeyObject): string {
  const signingInput = `${encoded({ ...header, alg: 'RS256', typ: 'JWT' })}.${encoded(claims)}`;
  const signature = createSign('sha256').update(signingInput).sign(privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}
