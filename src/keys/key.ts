import crypto from 'node:crypto';
import { randomBase62 } from '../ids.ts';

export const SCOPES = ['sdk', 'secret'] as const;
export type Scope = (typeof SCOPES)[number];

/** Recognisable per scope, so a leaked key is easy to spot and to classify (secret scanners, logs). */
export const KEY_PREFIX: Record<Scope, string> = { sdk: 'pwk_sdk_', secret: 'pwk_secret_' };

/** 32 base62 characters: about 190 bits of entropy. */
export const RANDOM_LENGTH = 32;
/** How many random characters the stored display prefix keeps: enough to tell keys apart, far too few to guess one. */
const SHOWN_RANDOM = 4;

interface NewKey {
  plain: string;
  prefix: string;
  hash: string;
}

export function generateKey(scope: Scope): NewKey {
  const plain = KEY_PREFIX[scope] + randomBase62(RANDOM_LENGTH);
  return { plain, prefix: plain.slice(0, KEY_PREFIX[scope].length + SHOWN_RANDOM), hash: hashKey(plain) };
}

export function hashKey(plain: string): string {
  return crypto.createHash('sha256').update(plain).digest('hex');
}
