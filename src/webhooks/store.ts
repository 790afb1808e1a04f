/**
 * Outgoing webhooks' storage (docs/guide/webhooks.md): the endpoints of each
 * project (WebhookStore) and the outbox of their deliveries (OutboxStore).
 * A delivery is written in the transaction of the change that causes it:
 * by the change log (db/change-log.ts: each backend's outbox wraps the
 * audit log, so every store's changes queue their events), by a purchase
 * batch (its companion) and by a decision that moved (`decided`). The
 * interfaces every backend implements (CONTRIBUTING.md, "The storage seam").
 */
import type { Change, ChangeEntry } from '../shared/change.ts';
import type { WebhookEvent } from './event-types.ts';
import type { DecisionKey, DecisionReadout, OutgoingEvent } from './events.ts';
import type { DeliveryType, WebhookPut } from './schema.ts';

export interface WebhookRow {
  project_id: string;
  id: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRow {
  /** Orders a webhook's deliveries; the cursor of their pages. */
  seq: number;
  /** `msg_…`: the webhook-id header. */
  id: string;
  project_id: string;
  webhook_id: string;
  type: DeliveryType;
  body: string;
  created_at: number;
  status: DeliveryStatus;
  /** Attempts since it was queued, or since the last manual retry. */
  attempts: number;
  /** When the retry schedule began (queued, or retried by hand): 24 hours (scaled) after it, a delivery fails. */
  window_start: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

/** A delivery leased to one sender, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  project_id: string;
  webhook_id: string;
  body: string;
  attempts: number;
  window_start: number;
  url: string;
  secret: string;
}

/** What one attempt came to. */
export interface Settlement {
  at: number;
  status: DeliveryStatus;
  /** When to try again (status pending), else null. */
  nextAttemptAt: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

export function webhookWritten(projectId: string, id: string, url: string, created: boolean): ChangeEntry {
  // The origin only: a path or query may hold a token of the receiver's (a chat webhook's), and entries never hold a secret.
  const where = new URL(url).origin;
  return {
    project: projectId,
    action: 'webhook.written',
    target: { type: 'webhook', id },
    summary: `${created ? 'created' : 'changed'} webhook ${id} (${where})`,
  };
}

export function webhookDeleted(row: WebhookRow): ChangeEntry {
  return { project: row.project_id, action: 'webhook.deleted', target: { type: 'webhook', id: row.id }, summary: `deleted webhook ${row.id}` };
}

export interface WebhookStore {
  /**
   * Creates or replaces an endpoint with its audit entry; a new one gets
   * `secret`, a replaced one keeps its own. too_many_webhooks past MAX_WEBHOOKS.
   */
  put(projectId: string, id: string, fields: WebhookPut, secret: string, now: number, change: Change): Promise<{ row: WebhookRow; created: boolean }>;
  list(projectId: string): Promise<WebhookRow[]>;
  get(projectId: string, id: string): Promise<WebhookRow | undefined>;
  /** Deletes an endpoint and its deliveries, with its audit entry; undefined when there is none. */
  remove(projectId: string, id: string, change: Change): Promise<WebhookRow | undefined>;
  /** Queues `event` for this endpoint alone (enabled or not); undefined when there is no such endpoint. */
  queueTo(projectId: string, id: string, event: OutgoingEvent): Promise<DeliveryRow | undefined>;
  /** The endpoint's deliveries older than `before` (a seq), newest first. */
  deliveries(projectId: string, webhookId: string, before: number | undefined, limit: number): Promise<DeliveryRow[]>;
  /** Sends a delivery again from the start of the schedule, whatever its status; undefined when there is no such delivery. */
  retry(projectId: string, webhookId: string, deliveryId: string, now: number): Promise<DeliveryRow | undefined>;
  /**
   * Replaces each secret stored in plaintext (secrets.ts) by `seal` of it, in
   * one transaction; answers how many. No audit entry: the secret stays the
   * same, only how it is kept changes.
   */
  sealSecrets(seal: (projectId: string, webhookId: string, secret: string) => string): Promise<number>;
}

export interface OutboxStore {
  /** Leases up to `limit` deliveries due at `now` to `owner` until now + leaseMs; another sender leaves them alone meanwhile. */
  claim(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a delivery `owner` holds; false when its lease was lost (expired and taken, or retried by hand). */
  settle(id: string, owner: string, outcome: Settlement): Promise<boolean>;
  /** Gives up leases without counting an attempt: `owner`'s (a stopping sender's), or every one (undefined: a server alone on its file, starting). */
  release(owner: string | undefined): Promise<void>;
  /** When the earliest pending delivery is due, and when the oldest was queued; undefined when none is pending. */
  pending(): Promise<{ count: number; nextDue: number; oldest: number } | undefined>;
  /**
   * The decision of a phase's segment as just computed: when it differs from
   * the one stored (a phase never seen counts as not_enough_data, where
   * every phase starts), stores it and queues experiment.decision_changed,
   * in one transaction, so that instances computing it at once queue it once.
   */
  decided(key: DecisionKey, decision: DecisionReadout, now: number): Promise<boolean>;
  /** Deletes the deliveries settled (succeeded or failed) before `before` (ms, by their last attempt); answers how many. */
  prune(before: number): Promise<number>;
  /** Calls `listener` after a transaction that queued a delivery commits (this process's; on PostgreSQL every instance's). */
  watch(listener: () => void): Promise<() => Promise<void>>;
}
