/** A purchases row as both backends read it back (migrations 10 and 17), and the record it is. */
import type { SetAsideReason } from './dependent-records.ts';
import type { PurchaseSource, PurchaseType } from './schema.ts';
import type { StoredPurchase } from './store.ts';

export interface StoredRow {
  project_id: string;
  source: PurchaseSource;
  purchase_id: string;
  user_id: string;
  type: PurchaseType;
  ts: number;
  product_id: string | null;
  store: string | null;
  store_product_id: string | null;
  revenue: number;
  currency: string;
  transaction_id: string | null;
  original_transaction_id: string | null;
  paywall_id: string | null;
  received_at: number;
  /** Migration 14. */
  set_aside: number;
  set_aside_reason: SetAsideReason | null;
}

export function toStored(row: StoredRow): StoredPurchase {
  return {
    projectId: row.project_id,
    source: row.source,
    id: row.purchase_id,
    userId: row.user_id,
    type: row.type,
    ts: row.ts,
    productId: row.product_id,
    store: row.store,
    storeProductId: row.store_product_id,
    revenue: row.revenue,
    currency: row.currency,
    transactionId: row.transaction_id,
    originalTransactionId: row.original_transaction_id,
    paywallId: row.paywall_id,
    receivedAt: row.received_at,
    setAside: row.set_aside,
    setAsideReason: row.set_aside_reason,
  };
}
