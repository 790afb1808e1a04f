/**
 * Passwords, hashed with scrypt from node:crypto and a random salt per
 * hash. The parameters are stored with each hash (a PHC string:
 * `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`, base64 without padding), so that
 * raising them later changes new hashes and still verifies old ones.
 * N = 2^15, r = 8, p = 1 takes 32 MiB and tens of milliseconds per hash:
 * OWASP's minimum for scrypt, affordable on a sign-in, costly to a guesser.
 */
import crypto from 'node:crypto';

const PARAMETERS = { ln: 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** The shortest password accepted (docs/guide/teams.md): length is the one rule, no other password rules. */
export const MIN_PASSWORD_LENGTH = 10;
/** scrypt reads the whole password; past this a request is refused before it costs anything. */
export const MAX_PASSWORD_LENGTH = 1024;

function scrypt(password: string, salt: Buffer, ln: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** ln;
  // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is just that, with no room for its own use.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) => {
    crypto.scrypt(password.normalize('NFC'), salt, length, { N, r, p, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const { ln, r, p } = PARAMETERS;
  const salt = crypto.randomBytes(SALT_BYTES);
  const hash = await scrypt(password, salt, ln, r, p, HASH_BYTES);
  return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(hash)}`;
}

/** Whether `password` is the one `stored` was made from, compared in constant time. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const [, ln, r, p, salt, hash] = match;
  const expected = Buffer.from(hash!, 'base64');
  const actual = await scrypt(password, Buffer.from(salt!, 'base64'), Number(ln), Number(r), Number(p), expected.length);
  return crypto.timingSafeEqual(actual, expected);
}

let decoy: Promise<string> | undefined;

/**
 * A hash no password matches, verified against when an email is unknown:
 * the answer then costs what a wrong password costs, so the time does not
 * tell which emails have an account.
 */
export function decoyHash(): Promise<string> {
  return (decoy ??= hashPassword(crypto.randomBytes(32).toString('base64')));
}
