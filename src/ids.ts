import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` uniformly random base62 characters (5.95 bits each). Bytes of 248
 * and above are discarded so that no character is more likely than another.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A short random identifier such as `prj_4f9KqZ01x7Lm`: ids name things, they are not secrets. */
export function newId(kind: 'prj' | 'key' | 'usr' | 'aud'): string {
  return `${kind}_${randomBase62(14)}`;
}
