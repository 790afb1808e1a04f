/**
 * appAccountToken(userId): the UUID an iOS app passes to StoreKit
 * (`Product.PurchaseOption.appAccountToken`), so that App Store Server
 * Notifications name the user. UUID version 5 (RFC 9562: SHA-1 of the
 * namespace's 16 bytes and the user id's UTF-8 bytes) in the namespace of
 * docs/reference/client.md; the server derives the same token for every user it has
 * seen. SHA-1 is written here because crypto.subtle is asynchronous and
 * missing in React Native.
 */
export const APP_ACCOUNT_TOKEN_NAMESPACE = 'ff1445ad-bcbd-4919-a44a-6c50ada1157e';

function sha1(bytes: Uint8Array): Uint8Array {
  const length = bytes.length;
  const words = new Uint32Array((((length + 8) >> 6) + 1) * 16);
  for (let i = 0; i < length; i++) words[i >> 2]! |= bytes[i]! << (24 - (i % 4) * 8);
  words[length >> 2]! |= 0x80 << (24 - (length % 4) * 8);
  words[words.length - 1] = length * 8;
  let [a, b, c, d, e] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Uint32Array(80);
  for (let block = 0; block < words.length; block += 16) {
    for (let t = 0; t < 80; t++) {
      const x = t < 16 ? words[block + t]! : w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = t < 16 ? x : (x << 1) | (x >>> 31);
    }
    let [h0, h1, h2, h3, h4] = [a, b, c, d, e];
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? (h1 & h2) | (~h1 & h3) : t < 40 ? h1 ^ h2 ^ h3 : t < 60 ? (h1 & h2) | (h1 & h3) | (h2 & h3) : h1 ^ h2 ^ h3;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const next = (((h0 << 5) | (h0 >>> 27)) + f + h4 + k + w[t]!) >>> 0;
      h4 = h3;
      h3 = h2;
      h2 = (h1 << 30) | (h1 >>> 2);
      h1 = h0;
      h0 = next;
    }
    a = (a + h0) >>> 0;
    b = (b + h1) >>> 0;
    c = (c + h2) >>> 0;
    d = (d + h3) >>> 0;
    e = (e + h4) >>> 0;
  }
  const out = new Uint8Array(20);
  [a, b, c, d, e].forEach((h, i) => {
    for (let j = 0; j < 4; j++) out[i * 4 + j] = (h >>> (24 - j * 8)) & 0xff;
  });
  return out;
}

const namespace = Uint8Array.from(APP_ACCOUNT_TOKEN_NAMESPACE.replaceAll('-', '').match(/../g)!, (pair) => Number.parseInt(pair, 16));

/** The user's appAccountToken: a lower-case UUID v5, the same on every device and on the server. */
export function appAccountToken(userId: string): string {
  const name = new TextEncoder().encode(userId);
  const input = new Uint8Array(namespace.length + name.length);
  input.set(namespace);
  input.set(name, namespace.length);
  const hash = sha1(input);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = Array.from(hash.subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The user's obfuscatedAccountId for Google Play Billing (`BillingFlowParams.Builder.setObfuscatedAccountId`),
 * which Google Play returns as the purchase's obfuscatedExternalAccountId, so that its notifications name the
 * user. It is the user's appAccountToken: an opaque hash of the user id (Google Play refuses ids that look like
 * personal data), 36 characters of the 64 it allows, and one lookup on the server for both stores.
 */
export function obfuscatedAccountId(userId: string): string {
  return appAccountToken(userId);
}
