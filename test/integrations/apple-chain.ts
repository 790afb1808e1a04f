/**
 * A certificate chain shaped like Apple's (root → intermediate with the
 * 1.2.840.113635.100.6.2.1 extension → leaf with 1.2.840.113635.100.6.11.1,
 * all EC P-256), made with the openssl CLI, and JWS signed with its leaf as
 * the App Store signs notifications.
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

/** A fresh chain in `dir`; `markers: false` leaves Apple's extensions out; `leafDays` -1 makes a leaf that expired yesterday. */
export function makeAppleChain(dir: string, name: string, markers = true, leafDays = 30): AppleChain {
  const at = (file: string) => path.join(dir, `${name}-${file}`);
  const ext = at('ext.cnf');
  fs.writeFileSync(
    ext,
    [
      '[ca]',
      'basicConstraints = critical, CA:true',
      'keyUsage = critical, keyCertSign, cRLSign',
      ...(markers ? ['1.2.840.113635.100.6.2.1 = ASN1:NULL'] : []),
      '[leaf]',
      'basicConstraints = critical, CA:false',
      'keyUsage = critical, digitalSignature',
      ...(markers ? ['1.2.840.113635.100.6.11.1 = ASN1:NULL'] : []),
    ].join('\n'),
  );
  for (const key of ['root', 'int', 'leaf']) openssl(dir, 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', at(`${key}.key`));
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
  openssl(dir, 'req', '-new', '-key', at('int.key'), '-subj', `/CN=${name} Intermediate`, '-out', at('int.csr'));
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    at('int.csr'),
    '-CA',
    at('root.pem'),
    '-CAkey',
    at('root.key'),
    '-CAcreateserial',
    '-days',
    '30',
    '-extfile',
    ext,
    '-extensions',
    'ca',
    '-out',
    at('int.pem'),
  );
  openssl(dir, 'req', '-new', '-key', at('leaf.key'), '-subj', `/CN=${name} Leaf`, '-out', at('leaf.csr'));
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    at('leaf.csr'),
    '-CA',
    at('int.pem'),
    '-CAkey',
    at('int.key'),
    '-CAcreateserial',
    '-days',
    String(leafDays),
    '-extfile',
    ext,
    '-extensions',
    'leaf',
    '-out',
    at('leaf.pem'),
  );
  return {
    rootPem: fs.readFileSync(at('root.pem'), 'utf8'),
    x5c: [der(at('leaf.pem')), der(at('int.pem')), der(at('root.pem'))],
    leafKey: crypto.createPrivateKey(fs.readFileSync(at('leaf.key'))),
  };
}

/** A compact JWS (ES256, x5c in the header) of `payload`, signed with `key` (default the chain's leaf). */
export function signJws(chain: AppleChain, payload: unknown, key: crypto.KeyObject = chain.leafKey): string {
  const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c: chain.x5c })).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = crypto.sign('sha256', Buffer.from(`${header}.${body}`), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `${header}.${body}.${signature}`;
}
