/**
 * The shapes of outgoing webhooks (docs/guide/webhooks.md): an endpoint as it is
 * written and listed, the one answer that shows its signing secret, and its
 * deliveries.
 */
import * as v from 'valibot';
import { WEBHOOK_EVENTS, type WebhookEvent } from './event-types.ts';

export type DeliveryType = WebhookEvent | 'test';

/** Endpoints a project may have: a studio's systems, not a fan-out service. */
export const MAX_WEBHOOKS = 50;
/** The longest URL an endpoint may have. */
const MAX_URL_LENGTH = 2048;

export const WebhookPutSchema = v.strictObject({
  url: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(MAX_URL_LENGTH),
    v.description('an https:// URL (http:// only on a loopback address, which needs --webhooks-allow-private), without user or password'),
  ),
  events: v.pipe(
    v.array(v.picklist(WEBHOOK_EVENTS)),
    v.minLength(1),
    v.transform((events) => [...new Set(events)]),
    v.description('the event types sent to it'),
  ),
  enabled: v.optional(v.pipe(v.boolean(), v.description('false: no new deliveries (those already queued are still sent)')), true),
});
export type WebhookPut = v.InferOutput<typeof WebhookPutSchema>;

const Timestamp = v.pipe(v.string(), v.isoTimestamp());

export const WebhookSchema = v.object({
  id: v.string(),
  url: v.string(),
  events: v.array(v.picklist(WEBHOOK_EVENTS)),
  enabled: v.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Webhook = v.InferOutput<typeof WebhookSchema>;

export const CreatedWebhookSchema = v.object({
  ...WebhookSchema.entries,
  secret: v.pipe(
    v.string(),
    v.description('whsec_ and the base64 of 32 random bytes: the HMAC key is the decoded bytes (docs/guide/webhooks.md); shown only in this answer'),
  ),
});
export type CreatedWebhook = v.InferOutput<typeof CreatedWebhookSchema>;

export const WebhookListSchema = v.object({ webhooks: v.array(WebhookSchema) });
export type WebhookList = v.InferOutput<typeof WebhookListSchema>;

const DeliveryEventSchema = v.object({
  type: v.picklist([...WEBHOOK_EVENTS, 'test']),
  timestamp: v.pipe(Timestamp, v.description('when the event happened (the delivery attempts carry their own webhook-timestamp)')),
  data: v.record(v.string(), v.unknown()),
});

export const DeliverySchema = v.object({
  id: v.pipe(v.string(), v.description('the webhook-id header: the same on every attempt, an idempotency key for the receiver')),
  webhook_id: v.string(),
  type: v.picklist([...WEBHOOK_EVENTS, 'test']),
  status: v.pipe(v.picklist(['pending', 'succeeded', 'failed']), v.description('failed: no 2xx within 24 hours of retries (POST …/retry sends it again)')),
  attempts: v.number(),
  created_at: Timestamp,
  next_attempt_at: v.pipe(v.nullable(Timestamp), v.description('when it is sent next; null once it succeeded or failed')),
  last_attempt_at: v.nullable(Timestamp),
  response_status: v.pipe(v.nullable(v.number()), v.description("the last attempt's HTTP status; null before one or when none came")),
  response_body: v.pipe(v.nullable(v.string()), v.description("the start of the last answer's body (1 KiB at most)")),
  error: v.pipe(
    v.nullable(v.string()),
    v.description('why the last attempt failed, when its status does not say: no answer, a refused address, a network error, a timeout'),
  ),
  event: DeliveryEventSchema,
});
export type Delivery = v.InferOutput<typeof DeliverySchema>;

export const DeliveryPageSchema = v.object({
  deliveries: v.pipe(v.array(DeliverySchema), v.description('newest first')),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('pass as `cursor` for the next (older) page; null on the last page')),
});
export type DeliveryPage = v.InferOutput<typeof DeliveryPageSchema>;

const MAX_PAGE = 100;

export const DeliveriesQuerySchema = v.object({
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/, 'must be a next_cursor of an earlier page'), v.transform(Number))),
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,2}$/, `must be 1 to ${MAX_PAGE}`), v.transform(Number), v.maxValue(MAX_PAGE, `must be 1 to ${MAX_PAGE}`)),
  ),
});
