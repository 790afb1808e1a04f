/**
 * A certificate chain shaped like Apple's (root → intermediate with the
 * 1.2.840.113635.100.6.2.1 extension → leaf with 1.2.840.113635.100.6.11.1,
 * all EC P-256), made with the openssl CLI, and JWS signed with its leaf as
 * the App Store signs notifications; and chains broken in each way the check
 * must catch.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface AppleChain {
  rootPem: string;
  /** x5c: leaf, intermediate, root as base64 DER. */
  x5c: string[];
  leafKey: crypto.KeyObject;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function der(pemFile: string): string {
  return new crypto.X509Certificate(fs.readFileSync(pemFile)).raw.toString('base64');
}

interface ChainOptions {
  /** Apple's extensions as extensions (the default), left out, or hidden as bytes inside an unrelated extension's value. */
  markers?: 'extensions' | 'none' | 'hidden';
  /** -1 makes a leaf that expired yesterday. */
  leafDays?: number;
  /** false: the intermediate says CA:FALSE (and may still sign, as keyUsage allows). */
  intermediateCa?: boolean;
  /** A second intermediate below one whose basicConstraints say pathlen:0. */
  pastPathLength?: boolean;
}

/** The DER of an OID as openssl's DER: syntax writes it (colon-separated hex). */
function oidBytes(hex: string): string {
  return hex.match(/../g)!.join(':');
}

const INTERMEDIATE_OID = '060a2a864886f76364060201';
const LEAF_OID = '060a2a864886f76364060b01';

/** A fresh chain in `dir` (see ChainOptions for the broken ones). */
export function makeAppleChain(dir: string, name: string, options: ChainOptions = {}): AppleChain {
  const { markers = 'extensions', leafDays = 30, intermediateCa = true, pastPathLength = false } = options;
  const at = (file: string) => path.join(dir, `${name}-${file}`);
  const ext = at('ext.cnf');
  const marker = (oid: string, bytes: string) =>
    markers === 'extensions' ? [`${oid} = ASN1:NULL`] : markers === 'hidden' ? [`1.3.6.1.4.1.55555.1 = DER:${oidBytes(bytes)}`] : [];
  fs.writeFileSync(
    ext,
    [
      '[ca]',
      `basicConstraints = critical, CA:${intermediateCa}`,
      'keyUsage = critical, keyCertSign, cRLSign',
      ...marker('1.2.840.113635.100.6.2.1', INTERMEDIATE_OID),
      '[upper]',
      'basicConstraints = critical, CA:true, pathlen:0',
      'keyUsage = critical, keyCertSign, cRLSign',
      '[leaf]',
      'basicConstraints = critical, CA:false',
      'keyUsage = critical, digitalSignature',
      ...marker('1.2.840.113635.100.6.11.1', LEAF_OID),
    ].join('\n'),
  );
  for (const key of ['root', 'upper', 'int', 'leaf']) openssl(dir, 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', at(`${key}.key`));
  openssl(
    dir,
    'req',
    '-x509',
    '-new',
    '-key',
    at('root.key'),
    '-subj',
    `/CN=${name} Root`,
    '-days',
    '30',
    '-out',
    at('root.pem'),
    '-addext',
    'basicConstraints=critical,CA:true',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  const issue = (key: string, subject: string, issuer: string, section: string, days: number) => {
    openssl(dir, 'req', '-new', '-key', at(`${key}.key`), '-subj', `/CN=${name} ${subject}`, '-out', at(`${key}.csr`));
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      at(`${key}.csr`),
      '-CA',
      at(`${issuer}.pem`),
      '-CAkey',
      at(`${issuer}.key`),
      '-CAcreateserial',
      '-days',
      String(days),
      '-extfile',
      ext,
      '-extensions',
      section,
      '-out',
      at(`${key}.pem`),
    );
  };
  if (pastPathLength) issue('upper', 'Upper', 'root', 'upper', 30);
  issue('int', 'Intermediate', pastPathLength ? 'upper' : 'root', 'ca', 30);
  issue('leaf', 'Leaf', 'int', 'leaf', leafDays);
  return {
    rootPem: fs.readFileSync(at('root.pem'), 'utf8'),
    x5c: [der(at('leaf.pem')), der(at('int.pem')), ...(pastPathLength ? [der(at('upper.pem'))] : []), der(at('root.pem'))],
    leafKey: crypto.createPrivateKey(fs.readFileSync(at('leaf.key'))),
  };
}

/**
 * The hostile chain of the review: four RSA-3072 certificates whose public
 * exponent has thousands of bits (each verify costs tens of milliseconds),
 * shaped like Apple's (the marker extensions), ending at a root nobody
 * configured. One key signs them all: each verify costs the same.
 */
export function makeHeavyRsaChain(dir: string, name: string): AppleChain {
  const at = (file: string) => path.join(dir, `${name}-${file}`);
  const key = at('rsa.key');
  const exponent = `0x${'f'.repeat(700)}1`;
  openssl(dir, 'genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072', '-pkeyopt', `rsa_keygen_pubexp:${exponent}`, '-out', key);
  const ext = at('ext.cnf');
  fs.writeFileSync(
    ext,
    [
      '[ca]',
      'basicConstraints = critical, CA:true',
      'keyUsage = critical, keyCertSign, cRLSign',
      '1.2.840.113635.100.6.2.1 = ASN1:NULL',
      '[leaf]',
      'basicConstraints = critical, CA:false',
      'keyUsage = critical, digitalSignature',
      '1.2.840.113635.100.6.11.1 = ASN1:NULL',
    ].join('\n'),
  );
  openssl(
    dir,
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-subj',
    `/CN=${name} 0`,
    '-days',
    '30',
    '-out',
    at('0.pem'),
    '-addext',
    'basicConstraints=critical,CA:true',
  );
  for (const [n, section] of [
    [1, 'ca'],
    [2, 'ca'],
    [3, 'leaf'],
  ] as const) {
    openssl(dir, 'req', '-new', '-key', key, '-subj', `/CN=${name} ${n}`, '-out', at(`${n}.csr`));
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      at(`${n}.csr`),
      '-CA',
      at(`${n - 1}.pem`),
      '-CAkey',
      key,
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      ext,
      '-extensions',
      section,
      '-out',
      at(`${n}.pem`),
    );
  }
  return {
    rootPem: fs.readFileSync(at('0.pem'), 'utf8'),
    x5c: [3, 2, 1, 0].map((n) => der(at(`${n}.pem`))),
    leafKey: crypto.createPrivateKey(fs.readFileSync(key)),
  };
}

/** A compact JWS (ES256, x5c in the header) of `payload`, signed with `key` (default the chain's leaf). */
export function signJws(chain: AppleChain, payload: unknown, key: crypto.KeyObject = chain.leafKey): string {
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c: chain.x5c })).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = crypto.sign('sha256', Buffer.from(`${header}.${body}`), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `${header}.${body}.${signature}`;
}
