import { createHash } from 'node:crypto';

/**
 * The namespace of appAccountToken UUIDs (docs/reference/client.md): the client and the
 * server both derive a user's token as UUID v5 (RFC 9562, SHA-1) of the user
 * id's UTF-8 bytes in this namespace. Changing it orphans every token ever given to StoreKit.
 */
const APP_ACCOUNT_TOKEN_NAMESPACE = 'ff1445ad-bcbd-4919-a44a-6c50ada1157e';

const namespaceBytes = Buffer.from(APP_ACCOUNT_TOKEN_NAMESPACE.replaceAll('-', ''), 'hex');

/** The appAccountToken an iOS app passes to StoreKit for this user: lower-case UUID v5. */
export function appAccountToken(userId: string): string {
  const hash = createHash('sha1').update(namespaceBytes).update(userId, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
