/**
 * The certificate chain of Apple's signed data (x5c: leaf, intermediate,
 * root, base64 DER), checked from the cheapest part up, so that a chain
 * that cannot be Apple's costs no signature check and little else. The
 * review found RSA-3072 certificates with public exponents of thousands of
 * bits verified (about 60 ms of the event loop each) before anything asked
 * whether the chain reached a configured root; even decoding such a
 * certificate with node:crypto costs about a millisecond.
 *
 * 1. Shape: two to four certificates, none over 8 KiB.
 * 2. From the DER alone (x509-der.ts), before node:crypto decodes anything:
 *    the keys are those Apple uses (the leaf's ECDSA P-256, as ES256
 *    needs; the issuers' P-256 or P-384, as Apple's WWDR G6 intermediate
 *    and Apple Root CA - G3 are) and so are the signature algorithms (ECDSA
 *    with SHA-256 or SHA-384); every issuer is a CA (basicConstraints
 *    CA:TRUE) whose path length allows the CAs below it, the leaf is not
 *    one; the leaf and the intermediate carry Apple's marker extensions,
 *    found among the extensions by OID, never as bytes elsewhere.
 * 3. Still without a signature: each certificate names the next as its
 *    issuer (X509Certificate.checkIssued compares names and key ids), the
 *    last is a configured root or names one as its issuer (which must pass
 *    step 2 as an issuer too), and all are valid now.
 * 4. Then the signatures, each certificate's by the next (and the last's
 *    by its configured root when it is not one itself).
 *
 * A chain that passed is remembered (its leaf's key, until the first of its
 * certificates expires) for the roots it was checked against: the three JWS
 * of one notification, and Apple's next notifications, share it.
 */
import { createHash, type KeyObject, X509Certificate } from 'node:crypto';
import { DomainError } from '../../shared/errors.ts';
import { basicConstraints, type CertificateFields, certificateFields, MalformedCertificate } from './x509-der.ts';

const LEAF_MARKER = '1.2.840.113635.100.6.11.1';
const INTERMEDIATE_MARKER = '1.2.840.113635.100.6.2.1';
/** ecdsa-with-SHA256, ecdsa-with-SHA384. */
const ECDSA_SIGNATURES = new Set(['1.2.840.10045.4.3.2', '1.2.840.10045.4.3.3']);
const EC_KEY = '1.2.840.10045.2.1';
const P256 = '1.2.840.10045.3.1.7';
const P384 = '1.3.132.0.34';
/** Base64 characters of one certificate: Apple's are about 1.5 K. */
const MAX_CERTIFICATE_CHARS = 8192;
const REMEMBERED_CHAINS = 64;

export function refused(why: string): DomainError {
  return new DomainError('invalid_signature', `the signed data does not verify: ${why}`);
}

/** Signature checks made (certificates and JWS): a /metrics counter, and how a test tells that a chain cost none. */
let signatureChecks = 0;

export function signatureChecksMade(): number {
  return signatureChecks;
}

/** Every signature check goes through here, counted. */
export function checkedSignature(check: () => boolean): boolean {
  signatureChecks++;
  return check();
}

function fieldsOf(der: Buffer): CertificateFields {
  try {
    return certificateFields(der);
  } catch (error) {
    if (error instanceof MalformedCertificate) throw refused('x5c holds something that is not a certificate');
    throw error;
  }
}

function hasKey(fields: CertificateFields, curves: readonly string[]): boolean {
  return fields.keyAlgorithm === EC_KEY && curves.includes(fields.keyParameters ?? '');
}

/** Why a certificate `below` CAs above the leaf may not sign the one under it; undefined when it may. */
function issuerFault(fields: CertificateFields, below: number): string | undefined {
  if (!hasKey(fields, [P256, P384])) return 'an issuer of the chain has a key Apple does not use (ECDSA P-256 or P-384)';
  const constraints = basicConstraints(fields);
  if (!constraints?.ca) return 'an issuer of the chain is not a CA (basicConstraints CA:TRUE)';
  if (constraints.pathLength !== undefined && below > constraints.pathLength) return "an issuer's path length does not allow the CAs below it";
  return undefined;
}

function validAt(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
}

const remembered = new Map<string, { key: KeyObject; from: number; to: number }>();

/** The leaf's key of an x5c chain that reaches one of `roots`; invalid_signature otherwise. */
export function trustedLeafKey(x5c: unknown, roots: readonly X509Certificate[], now: number): KeyObject {
  if (!Array.isArray(x5c) || x5c.length < 2 || x5c.length > 4) throw refused('x5c must hold the certificate chain');
  if (!x5c.every((der) => typeof der === 'string' && der.length <= MAX_CERTIFICATE_CHARS)) throw refused('x5c holds something that is not a certificate');
  const id = createHash('sha256')
    .update(roots.map((root) => root.fingerprint256).join(','))
    .update(x5c.join('.'))
    .digest('base64');
  const known = remembered.get(id);
  if (known && known.from <= now && now <= known.to) return known.key;
  const ders = (x5c as string[]).map((text) => Buffer.from(text, 'base64'));
  const top = createHash('sha256').update(ders.at(-1)!).digest('hex');
  // A configured root at the top is trusted as configured: its own signature is not checked.
  const topIsRoot = roots.some((root) => root.fingerprint256.replaceAll(':', '').toLowerCase() === top);
  checkFields(ders.map(fieldsOf), topIsRoot);
  const chain = ders.map((der) => {
    try {
      return new X509Certificate(der);
    } catch {
      throw refused('x5c holds something that is not a certificate');
    }
  });
  const key = checkChain(chain, roots, topIsRoot, now);
  remembered.delete(id);
  const from = Math.max(...chain.map((cert) => Date.parse(cert.validFrom)));
  remembered.set(id, { key, from, to: Math.min(...chain.map((cert) => Date.parse(cert.validTo))) });
  if (remembered.size > REMEMBERED_CHAINS) remembered.delete(remembered.keys().next().value!);
  return key;
}

/** Step 2 of the header: what the DER says, before node:crypto decodes a certificate. */
function checkFields(fields: CertificateFields[], topIsRoot: boolean): void {
  const [leaf, intermediate] = fields as [CertificateFields, CertificateFields];
  if (!hasKey(leaf, [P256])) throw refused('the leaf key is not ECDSA P-256 (ES256)');
  if (basicConstraints(leaf)?.ca) throw refused('the leaf certificate is a CA');
  fields.slice(1).forEach((issuer, i) => {
    const fault = issuerFault(issuer, i);
    if (fault) throw refused(fault);
  });
  const signed = topIsRoot ? fields.slice(0, -1) : fields;
  if (!signed.every((cert) => ECDSA_SIGNATURES.has(cert.signatureAlgorithm))) throw refused('a certificate is not signed with ECDSA (SHA-256 or SHA-384)');
  if (!leaf.extensions.has(LEAF_MARKER) || !intermediate.extensions.has(INTERMEDIATE_MARKER)) {
    throw refused("the chain lacks Apple's App Store signing extensions");
  }
}

/** Steps 3 and 4 of the header: names, the anchor and validity, then the signatures. */
function checkChain(chain: X509Certificate[], roots: readonly X509Certificate[], topIsRoot: boolean, now: number): KeyObject {
  for (let i = 0; i + 1 < chain.length; i++) if (!chain[i]!.checkIssued(chain[i + 1]!)) throw refused('x5c is not a chain');
  const top = chain.at(-1)!;
  const issuingRoot = topIsRoot ? undefined : roots.find((root) => top.checkIssued(root));
  if (!topIsRoot && !issuingRoot) throw refused('the chain does not end at a configured root certificate');
  if (issuingRoot) {
    const fault = issuerFault(fieldsOf(issuingRoot.raw), chain.length - 1);
    if (fault) throw refused(`the configured root: ${fault}`);
  }
  const issuers = [...chain.slice(1), ...(issuingRoot ? [issuingRoot] : [])];
  if (![...chain, ...issuers].every((cert) => validAt(cert, now))) throw refused('a certificate of the chain is expired or not yet valid');
  const signed = topIsRoot ? chain.slice(0, -1) : chain;
  signed.forEach((cert, i) => {
    if (!checkedSignature(() => cert.verify(issuers[i]!.publicKey))) throw refused('x5c is not a chain');
  });
  return chain[0]!.publicKey;
}
