/**
 * What the App Store chain check (apple-chain.ts) reads from a certificate
 * that node:crypto's X509Certificate does not expose: the algorithm its
 * issuer signed it with, and its extensions, each by its OID with its value
 * (RFC 5280, 4.1). Read from the DER the X509Certificate parsed, so a
 * marker OID counts only where it is an extension's own id, never as bytes
 * inside another extension's value. Anything that is not DER as RFC 5280
 * lays it out throws MalformedCertificate.
 */

export class MalformedCertificate extends Error {}

const SEQUENCE = 0x30;
const OID = 0x06;
const BOOLEAN = 0x01;
const INTEGER = 0x02;
const OCTET_STRING = 0x04;
/** [0] EXPLICIT version, [1] and [2] IMPLICIT unique ids, [3] EXPLICIT extensions of a TBSCertificate. */
const VERSION = 0xa0;
const ISSUER_UID = 0x81;
const SUBJECT_UID = 0x82;
const EXTENSIONS = 0xa3;

interface Element {
  tag: number;
  /** Where the content starts and ends (exclusive) in the buffer. */
  start: number;
  end: number;
}

/** The element at `at`, within `limit`: a tag of one byte and a DER length of at most four bytes. */
function element(der: Buffer, at: number, limit: number): Element {
  if (at + 2 > limit) throw new MalformedCertificate('truncated');
  const tag = der[at]!;
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > limit) throw new MalformedCertificate('bad length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  if (start + length > limit) throw new MalformedCertificate('truncated');
  return { tag, start, end: start + length };
}

/** The elements inside a constructed element, in order. */
function children(der: Buffer, parent: Element): Element[] {
  const found: Element[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const child = element(der, at, parent.end);
    found.push(child);
    at = child.end;
  }
  return found;
}

function expect(child: Element | undefined, tag: number): Element {
  if (child?.tag !== tag) throw new MalformedCertificate(`expected tag ${tag}`);
  return child;
}

/** An OBJECT IDENTIFIER's content as dotted decimal. */
function oidText(der: Buffer, oid: Element): string {
  if (oid.end === oid.start) throw new MalformedCertificate('empty OID');
  const arcs: number[] = [];
  let value = 0;
  for (let at = oid.start; at < oid.end; at++) {
    const byte = der[at]!;
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new MalformedCertificate('OID arc too large');
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  if (der[oid.end - 1]! & 0x80) throw new MalformedCertificate('truncated OID');
  return arcs.join('.');
}

export interface CertificateFields {
  /** The OID of the algorithm its issuer signed it with. */
  signatureAlgorithm: string;
  /** The OID of its public key's algorithm, and of its parameters when they are one (an EC key's named curve). */
  keyAlgorithm: string;
  keyParameters: string | undefined;
  /** Its extensions by OID: whether critical, and the DER inside the extension's OCTET STRING. */
  extensions: ReadonlyMap<string, { critical: boolean; value: Buffer }>;
}

export function certificateFields(der: Buffer): CertificateFields {
  const certificate = element(der, 0, der.length);
  if (certificate.tag !== SEQUENCE || certificate.end !== der.length) throw new MalformedCertificate('not a certificate');
  const [tbs, algorithm] = children(der, certificate);
  const signatureAlgorithm = oidText(der, expect(children(der, expect(algorithm, SEQUENCE))[0], OID));
  const fields = children(der, expect(tbs, SEQUENCE));
  // version, serial, signature, issuer, validity, subject, subjectPublicKeyInfo, then the optional unique ids and extensions.
  let next = fields[0]?.tag === VERSION ? 7 : 6;
  const [keyAlgorithmId, parameters] = children(der, expect(children(der, expect(fields[next - 1], SEQUENCE))[0], SEQUENCE));
  const keyAlgorithm = oidText(der, expect(keyAlgorithmId, OID));
  const keyParameters = parameters?.tag === OID ? oidText(der, parameters) : undefined;
  while (fields[next]?.tag === ISSUER_UID || fields[next]?.tag === SUBJECT_UID) next++;
  const extensions = new Map<string, { critical: boolean; value: Buffer }>();
  const wrapper = fields[next];
  if (wrapper === undefined) return { signatureAlgorithm, keyAlgorithm, keyParameters, extensions };
  if (wrapper.tag !== EXTENSIONS || next !== fields.length - 1) throw new MalformedCertificate('unexpected field');
  for (const extension of children(der, expect(children(der, wrapper)[0], SEQUENCE))) {
    const parts = children(der, expect(extension, SEQUENCE));
    const id = oidText(der, expect(parts[0], OID));
    const critical = parts[1]?.tag === BOOLEAN && der[parts[1].start] !== 0;
    const value = expect(parts[parts[1]?.tag === BOOLEAN ? 2 : 1], OCTET_STRING);
    // RFC 5280: a certificate holds at most one instance of an extension.
    if (extensions.has(id)) throw new MalformedCertificate('repeated extension');
    extensions.set(id, { critical, value: der.subarray(value.start, value.end) });
  }
  return { signatureAlgorithm, keyAlgorithm, keyParameters, extensions };
}

const BASIC_CONSTRAINTS = '2.5.29.19';

/** basicConstraints (RFC 5280, 4.2.1.9): whether the subject is a CA, and how many CAs may follow it down the chain; undefined when absent. */
export function basicConstraints(fields: CertificateFields): { ca: boolean; pathLength: number | undefined } | undefined {
  const extension = fields.extensions.get(BASIC_CONSTRAINTS);
  if (!extension) return undefined;
  const der = extension.value;
  const parts = children(der, expect(element(der, 0, der.length), SEQUENCE));
  const ca = parts[0]?.tag === BOOLEAN && der[parts[0].start] !== 0;
  const length = parts[parts[0]?.tag === BOOLEAN ? 1 : 0];
  if (length === undefined) return { ca, pathLength: undefined };
  const negative = (der[length.start] ?? 0x80) & 0x80;
  if (length.tag !== INTEGER || length.end - length.start > 4 || negative) throw new MalformedCertificate('bad pathLenConstraint');
  let pathLength = 0;
  for (let at = length.start; at < length.end; at++) pathLength = pathLength * 256 + der[at]!;
  return { ca, pathLength };
}
