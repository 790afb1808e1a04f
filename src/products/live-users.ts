/**
 * Which live paywalls put a product in a slot, as a product deletion decides it: from the stored live
 * revisions, read in the deletion's transaction, never from an instance's in-memory view, which may not
 * yet hold a paywall another instance just published (docs/operations/scale-out.md, "Stores: writes from several
 * instances").
 */
import { slotProducts } from '../paywalls/document/slot-products.ts';

/** A served (not archived) paywall's live revision. */
export interface LiveDocument {
  id: string;
  /** The revision's document as JSON text. */
  document: string;
}

/** The ids of the paywalls whose live revision puts the product in a slot. */
export function liveUsers(documents: readonly LiveDocument[], productId: string): string[] {
  return documents.filter((live) => slotProducts(JSON.parse(live.document)).includes(productId)).map((live) => live.id);
}
