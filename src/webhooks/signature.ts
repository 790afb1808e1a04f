/**
 * Signing secrets and signatures as the Standard Webhooks specification
 * says (docs/guide/webhooks.md, "Verifying a delivery"): a secret is `whsec_`
 * and the base64 of random bytes (24 to 64 of them: paywalld makes 32),
 * and a delivery's `webhook-signature` is `v1,` and the base64 HMAC-SHA256,
 * keyed with the decoded bytes, of `{webhook-id}.{webhook-timestamp}.{body}`.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` header of one attempt: `timestamp` in seconds, `body` exactly as sent. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
