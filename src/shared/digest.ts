import { createHash } from 'node:crypto';

/** A strong entity tag made of a body itself: 160 bits of its SHA-256, base64url, quoted. */
export function digestTag(body: string | Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}
