/**
 * The `serve` settings of outgoing webhooks (docs/guide/webhooks.md): whether an
 * endpoint may be a private address, and the retry schedule's scale.
 */
import type { Setting } from '../config.ts';

export const WEBHOOK_SETTINGS = {
  'webhooks-allow-private': {
    env: 'PAYWALLD_WEBHOOKS_ALLOW_PRIVATE',
    kind: 'boolean',
    none: 'off',
    help: 'let webhook endpoints be loopback, link-local, private or metadata addresses (a receiver on the same machine or network; tests); checked when an endpoint is written and again at each delivery',
  },
  'webhooks-backoff-scale': {
    env: 'PAYWALLD_WEBHOOKS_BACKOFF_SCALE',
    kind: 'number',
    arg: 'F',
    default: '1',
    min: 0.00001,
    max: 1,
    help: "multiplies the webhook retry schedule (every delay, and the 24 hours after which a delivery fails): `0.001` runs a day's retries in 86 s, for tests",
  },
} as const satisfies Record<string, Setting>;

/** What the webhook sender runs with. */
export interface WebhookSettings {
  /** Endpoints may resolve to loopback, link-local, private and metadata addresses. */
  allowPrivate: boolean;
  /** Multiplies the retry schedule (schedule.ts). */
  backoffScale: number;
}
