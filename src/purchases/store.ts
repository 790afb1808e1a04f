/**
 * Purchase records. Each batch is one durable transaction: when `insert`
 * resolves the records are on disk, and a record whose (project, source, id)
 * is already stored is skipped, never stored twice. The interface every
 * backend implements (sqlite-store.ts; CONTRIBUTING.md, "The storage seam").
 */
import type { SetAsideReason } from './dependent-records.ts';
import type { PurchaseRecord } from './schema.ts';

/** A stored record with its project, as results and tests read them back. */
export interface StoredPurchase extends PurchaseRecord {
  projectId: string;
  receivedAt: number;
  /** The part of a refund not counted (its revenue is what counts), and why (dependent-records.ts, boundRefund). */
  setAside: number;
  setAsideReason: SetAsideReason | null;
}

/** What a batch stored: how many records were new, and the refunds of them (by index in the batch) kept aside in part or whole. */
export interface Inserted {
  inserted: number;
  setAside: { index: number; reason: SetAsideReason; amount: number }[];
}

/** Records to store with what belongs with them, written in the records' transaction. */
export interface PurchaseBatch {
  records: readonly PurchaseRecord[];
  receivedAt: number;
  /** A store's customer id and its user (the first one named stays): a later notification that names only the customer finds the user. */
  customer?: { provider: string; id: string; userId: string };
  /** Other ids of a user (a store's aliases), linked as identify would, the first link of an id winning. */
  aliases?: { ids: readonly string[]; userId: string };
  /**
   * Refunds a source reports as the payment's running total (Stripe's amount_refunded): each refund record
   * of the batch carries that total as its revenue and is stored with what is new since the refunds already
   * stored for its transactionId, rounded to `decimals` places, or not at all when nothing is new. Decided
   * inside the batch's transaction, so that two notifications of one payment delivered at once (a retry, two
   * partial refunds), to one instance or two, cannot both count the same refund (docs/guide/revenue.md, "Stripe").
   */
  cumulativeRefunds?: { decimals: number };
  /**
   * Paid periods of subscriptions a source reports without saying which they are (Stripe's later invoices,
   * the App Store's renewals): each record of type initial_purchase, trial_converted or renewal with an
   * originalTransactionId is stored as renewal after a paid period of that subscription, trial_converted
   * after its trial start alone, initial_purchase when nothing of it is stored: decided from the records
   * read in the batch's transaction (dependent-records.ts).
   */
  paidPeriods?: true;
}

export interface PurchaseStore {
  /**
   * Stores the records, the appAccountTokens of the users they name and the
   * batch's customer and aliases, in one durable transaction; answers how
   * many records were new, and which new refunds were kept aside.
   */
  insert(projectId: string, batch: PurchaseBatch): Promise<Inserted>;
  /** Every record of the project in order of storage. */
  list(projectId: string): Promise<StoredPurchase[]>;
  /** The project's records stored after `seq`, in order of storage, at most `limit`, as results read them (record-feed.ts). */
  recordsAfter(projectId: string, seq: number, limit: number): Promise<RecordForResults[]>;
  /** Every project's records stored after `seq`, in order of storage, at most `limit`: what the purchases.* facts fold (src/placements/facts/). */
  factsAfter(seq: number, limit: number): Promise<RecordForFacts[]>;
}

/** What the purchases.* facts read of a record, with its seq and project. */
export interface RecordForFacts {
  seq: number;
  projectId: string;
  userId: string;
  type: string;
  ts: number;
  productId: string | null;
  store: string | null;
  storeProductId: string | null;
  originalTransactionId: string | null;
}

/** What experiment results read of a record (src/analytics/fold/purchase-records.ts), with its seq. */
export interface RecordForResults {
  seq: number;
  userId: string;
  type: string;
  ts: number;
  revenue: number;
  currency: string;
  paywallId: string | null;
}
