/**
 * The events webhooks deliver, as the JSON body every attempt sends
 * unchanged: `{ type, timestamp, data }` (the Standard Webhooks payload;
 * docs/guide/webhooks.md lists each type's data). Built where the cause is
 * stored, in its transaction: a change's audit entry, a purchase record
 * stored (never a duplicate), a phase's decision that moved.
 */
import type { PurchaseRecord } from '../purchases/schema.ts';
import type { Change, ChangeEntry } from '../shared/change.ts';
import type { WebhookEvent } from './event-types.ts';
import type { DeliveryType } from './schema.ts';

/** One event, ready to be queued for every endpoint that subscribes to its type. */
export interface OutgoingEvent {
  type: DeliveryType;
  /** When it happened (ms). */
  at: number;
  /** The body every delivery of it sends: signed as it is, never serialized again. */
  body: string;
}

function outgoing(type: DeliveryType, at: number, data: Record<string, unknown>): OutgoingEvent {
  return { type, at, body: JSON.stringify({ type, timestamp: new Date(at).toISOString(), data }) };
}

/** The changes that are webhook events, by their audit action; the others (a product written, a member invited) are not. */
const CHANGE_EVENTS: Partial<Record<ChangeEntry['action'], WebhookEvent>> = {
  'paywall.published': 'paywall.published',
  'paywall.rolled_back': 'paywall.rolled_back',
  'key.created': 'key.created',
  'key.revoked': 'key.revoked',
};

/** The event a change is, or undefined when it is none: built from its audit entry, so that every door (API, dashboard, CLI, apply, seed) sends it. */
export function changeEvent(change: Change, entry: ChangeEntry, at: number): OutgoingEvent | undefined {
  const type = CHANGE_EVENTS[entry.action];
  if (type === undefined || entry.project === null) return undefined;
  const target = entry.target.type === 'paywall' ? { paywall_id: entry.target.id, revision: entry.revision ?? null } : { key_id: entry.target.id };
  return outgoing(type, at, { project_id: entry.project, ...target, actor: change.actor, summary: entry.summary });
}

/** A stored purchase record: refund.recorded for a refund, purchase.recorded for every other type. */
export function purchaseEvent(projectId: string, r: PurchaseRecord, receivedAt: number): OutgoingEvent {
  return outgoing(r.type === 'refund' ? 'refund.recorded' : 'purchase.recorded', receivedAt, {
    project_id: projectId,
    purchase: {
      id: r.id,
      source: r.source,
      user_id: r.userId,
      type: r.type,
      ts: new Date(r.ts).toISOString(),
      product_id: r.productId,
      store: r.store,
      store_product_id: r.storeProductId,
      revenue: r.revenue,
      currency: r.currency,
      transaction_id: r.transactionId,
      original_transaction_id: r.originalTransactionId,
      paywall_id: r.paywallId,
    },
  });
}

/** Where a decision belongs: a phase of a paywall, and its default split (audience null) or one audience. */
export interface DecisionKey {
  projectId: string;
  paywallId: string;
  phase: number;
  audience: string | null;
}

export interface DecisionReadout {
  status: string;
  variant: string | null;
  guardrail: string | null;
  reason: string;
}

export function decisionEvent(key: DecisionKey, previous: string, decision: DecisionReadout, at: number): OutgoingEvent {
  return outgoing('experiment.decision_changed', at, {
    project_id: key.projectId,
    paywall_id: key.paywallId,
    phase: key.phase,
    audience: key.audience,
    previous_status: previous,
    decision,
  });
}

export function testEvent(projectId: string, webhookId: string, at: number): OutgoingEvent {
  return outgoing('test', at, { project_id: projectId, webhook_id: webhookId, message: 'a test delivery from paywalld' });
}
