/**
 * An event as the derived state sees it, from a row about to be stored (the
 * writer's EventRow) or a stored one read back (replay, rebuild): the one
 * place that knows which column is which.
 */
import { EVENT_COLUMNS, type EventRow } from '../events/event-row.ts';

/** What the state and the dedup index need of a stored event. */
export interface DerivedEvent {
  projectId: string;
  paywallId: string;
  type: string;
  ts: number;
  clientTs: number;
  eventId: string | null;
  userId: string | null;
  variantId: string | null;
  audience: string | null;
  revenue: number | null;
  currency: string | null;
  placement: string | null;
}

/** A stored event read back: its EventRow, then its seq. */
export type StoredEventRow = [...EventRow, seq: number];

/** Where a StoredEventRow holds the seq. */
export const SEQ_COLUMN = EVENT_COLUMNS.length as 16;

/**
 * The SELECT list of a StoredEventRow. properties is read as NULL: the
 * derived state never looks at it, and it may be kilobytes per event.
 */
export const STORED_EVENT_COLUMNS = [...EVENT_COLUMNS.map((column) => (column === 'properties' ? 'NULL' : column)), 'seq'].join(', ');

export function derivedEvent(row: EventRow | StoredEventRow): DerivedEvent {
  const [projectId, paywallId, type, ts, clientTs, , , eventId, userId, variantId, , , audience, revenue, currency, placement] = row;
  return { projectId, paywallId, type, ts, clientTs, eventId, userId, variantId, audience, revenue, currency, placement };
}
