/** What an endpoint may subscribe to, free of valibot so that the dashboard can import it; `test` goes only where POST /api/webhooks/{id}/test sends it. */
export const WEBHOOK_EVENTS = [
  'paywall.published',
  'paywall.rolled_back',
  'purchase.recorded',
  'refund.recorded',
  'experiment.decision_changed',
  'key.created',
  'key.revoked',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
