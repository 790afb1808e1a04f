import type { Database } from '../db/database.ts';
import type { PurchaseRecord, PurchaseSource, PurchaseType } from './schema.ts';
import type { StoredPurchase } from './store.ts';

type Row = [
  projectId: string,
  source: string,
  purchaseId: string,
  userId: string,
  type: string,
  ts: number,
  productId: string | null,
  store: string | null,
  storeProductId: string | null,
  revenue: number,
  currency: string,
  transactionId: string | null,
  originalTransactionId: string | null,
  paywallId: string | null,
  receivedAt: number,
];

interface StoredRow {
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
}

function toStored(row: StoredRow): StoredPurchase {
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
  };
}

/**
 * Purchase records on the server's connection. Each request's records are
 * one IMMEDIATE transaction (the connection runs with synchronous=FULL):
 * when `insert` returns they are on disk, and a record whose (project,
 * source, id) is already stored is skipped by the unique key, never stored twice.
 */
export class SqlitePurchaseStore {
  private readonly insertRow;
  private readonly typesOf;
  private readonly refunded;
  private readonly byProject;
  private readonly insertTx;

  constructor(db: Database) {
    this.insertRow = db.prepare<Row>(
      `INSERT INTO purchases (project_id, source, purchase_id, user_id, type, ts, product_id, store, store_product_id, revenue, currency,
         transaction_id, original_transaction_id, paywall_id, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, source, purchase_id) DO NOTHING`,
    );
    this.typesOf = db
      .prepare<[string, string, string], PurchaseType>(
        'SELECT DISTINCT type FROM purchases WHERE project_id = ? AND source = ? AND original_transaction_id = ?',
      )
      .pluck();
    this.refunded = db
      .prepare<[string, string, string], number>(
        "SELECT coalesce(sum(revenue), 0) FROM purchases WHERE project_id = ? AND source = ? AND transaction_id = ? AND type = 'refund'",
      )
      .pluck();
    this.byProject = db.prepare<[string], StoredRow>('SELECT * FROM purchases WHERE project_id = ? ORDER BY seq');
    this.insertTx = db.transaction((projectId: string, records: readonly PurchaseRecord[], receivedAt: number, alongside: (() => void) | undefined) => {
      let inserted = 0;
      for (const r of records) {
        const row: Row = [
          projectId,
          r.source,
          r.id,
          r.userId,
          r.type,
          r.ts,
          r.productId,
          r.store,
          r.storeProductId,
          r.revenue,
          r.currency,
          r.transactionId,
          r.originalTransactionId,
          r.paywallId,
          receivedAt,
        ];
        inserted += this.insertRow.run(...row).changes;
      }
      alongside?.();
      return inserted;
    });
  }

  /**
   * Stores the records in one durable transaction, with `alongside` (writes that
   * belong with them) in it too; returns how many were new.
   */
  insert(projectId: string, records: readonly PurchaseRecord[], receivedAt: number, alongside?: () => void): number {
    return this.insertTx.immediate(projectId, records, receivedAt, alongside);
  }

  /** The types already stored for one subscription of a source: tells a trial's conversion from a renewal. */
  typesForSubscription(projectId: string, source: PurchaseSource, originalTransactionId: string): Set<PurchaseType> {
    return new Set(this.typesOf.all(projectId, source, originalTransactionId));
  }

  /** What was refunded so far on one payment of a source (Stripe reports refunds cumulatively). */
  refundedSoFar(projectId: string, source: PurchaseSource, transactionId: string): number {
    return this.refunded.get(projectId, source, transactionId) ?? 0;
  }

  /** Every record of the project in order of storage. */
  list(projectId: string): StoredPurchase[] {
    return this.byProject.all(projectId).map(toStored);
  }
}
