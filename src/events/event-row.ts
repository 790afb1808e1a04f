/**
 * An event as the server hands it to the writer thread and as the events
 * table stores it: a tuple rather than an object, since each one crosses the
 * thread boundary by structured clone, and a tuple carries no property
 * names. The layout every reader of stored events (the writer, the
 * derived state's rebuild) shares.
 */
export type EventRow = [
  projectId: string,
  paywallId: string,
  type: string,
  /** ms, corrected for clock skew */
  ts: number,
  /** ms as the client sent it: part of the dedup key */
  clientTs: number,
  sentAt: number | null,
  receivedAt: number,
  eventId: string | null,
  userId: string | null,
  variantId: string | null,
  productId: string | null,
  /** JSON text */
  properties: string | null,
  /** The segment of the experiment: the resolve answer's variant.audience, null for the default split. */
  audience: string | null,
  /** purchase_complete: amount in major units of `currency`. */
  revenue: number | null,
  currency: string | null,
  /** The placement that showed the paywall (docs/guide/placements.md). */
  placement: string | null,
];

/** The columns of `events` in the order of an EventRow. */
export const EVENT_COLUMNS = [
  'project_id',
  'paywall_id',
  'type',
  'ts',
  'client_ts',
  'sent_at',
  'received_at',
  'event_id',
  'user_id',
  'variant_id',
  'product_id',
  'properties',
  'audience',
  'revenue',
  'currency',
  'placement',
] as const;
