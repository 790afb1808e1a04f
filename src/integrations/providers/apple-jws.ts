/**
 * Apple's signed data (App Store Server Notifications v2, JWSTransaction,
 * JWSRenewalInfo): a compact JWS with alg ES256 whose header carries the
 * certificate chain (x5c: leaf, intermediate, root, base64 DER). It is
 * trusted when every certificate is signed by the next, the chain ends at
 * (or is signed by) a configured root, every certificate is valid now, the
 * leaf and the intermediate carry Apple's marker extensions, and the leaf's
 * key verifies the signature (ECDSA P-256 over SHA-256, r‖s as JWS writes it).
 */
import { verify, X509Certificate } from 'node:crypto';
import { DomainError } from '../../shared/errors.ts';
import { MAX_UNVERIFIED_VALUES, object, parseJson } from './json-fields.ts';

/** DER of the extension OIDs Apple's signing certificates carry (as Apple's own libraries check them). */
const LEAF_MARKER = Buffer.from('060a2a864886f76364060b01', 'hex'); // 1.2.840.113635.100.6.11.1
const INTERMEDIATE_MARKER = Buffer.from('060a2a864886f763640602 01'.replaceAll(' ', ''), 'hex'); // 1.2.840.113635.100.6.2.1

function refused(why: string): DomainError {
  return new DomainError('invalid_signature', `the signed data does not verify: ${why}`);
}

function decodePart(part: string, what: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) throw refused(`its ${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

function certificate(der: unknown): X509Certificate {
  if (typeof der !== 'string') throw refused('x5c holds something that is not a certificate');
  try {
    return new X509Certificate(Buffer.from(der, 'base64'));
  } catch {
    throw refused('x5c holds something that is not a certificate');
  }
}

function validNow(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
}

/** Whether `cert` was issued and signed by `issuer`. */
function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
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
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length < 2 || x5c.length > 4) throw refused('x5c must hold the certificate chain');
  const chain = x5c.map(certificate);
  for (let i = 0; i + 1 < chain.length; i++) if (!signedBy(chain[i]!, chain[i + 1]!)) throw refused('x5c is not a chain');
  const top = chain.at(-1)!;
  const anchored = roots.some((root) => root.fingerprint256 === top.fingerprint256 || signedBy(top, root));
  if (!anchored) throw refused('the chain does not end at a configured root certificate');
  if (!chain.every((cert) => validNow(cert, now))) throw refused('a certificate of the chain is expired or not yet valid');
  if (!chain[0]!.raw.includes(LEAF_MARKER) || !chain[1]!.raw.includes(INTERMEDIATE_MARKER)) {
    throw refused("the chain lacks Apple's App Store signing extensions");
  }
  const signature = decodePart(signaturePart, 'signature');
  const ok =
    signature.length === 64 &&
    verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), { key: chain[0]!.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  if (!ok) throw refused('the signature does not match');
  return object(parseJson(decodePart(payloadPart, 'payload')), 'the payload');
}
