/** Rows of the webhook tables as both databases return them, and what the stores share to read and write them. */
import { randomUUID } from 'node:crypto';
import type { WebhookEvent } from './event-types.ts';
import type { DeliveryType } from './schema.ts';
import type { WebhookRow } from './store.ts';

export interface StoredWebhook {
  project_id: string;
  id: string;
  url: string;
  /** A JSON array of event types. */
  events: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export const WEBHOOK_COLUMNS = 'project_id, id, url, events, enabled, created_at, updated_at';

export function toWebhookRow(row: StoredWebhook): WebhookRow {
  return { ...row, events: JSON.parse(row.events) as WebhookEvent[], enabled: row.enabled === 1 };
}

export const DELIVERY_COLUMNS =
  'seq, id, project_id, webhook_id, type, body, created_at, status, attempts, window_start, next_attempt_at, last_attempt_at, response_status, response_body, error';

/** The columns ClaimedDelivery names, from deliveries `d` joined with their endpoints `w`. */
export const CLAIMED_COLUMNS = 'd.id, d.project_id, d.webhook_id, d.body, d.attempts, d.window_start, w.url, w.secret';

/** Whether an endpoint (its `events` column) subscribes to `type`. */
export function subscribes(events: string, type: DeliveryType): boolean {
  return (JSON.parse(events) as string[]).includes(type);
}

/** A delivery's id, the webhook-id header: no `.`, which the signed content uses as its separator. A UUID's randomness, from its cheap generator (a batch may queue thousands). */
export function newDeliveryId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}
