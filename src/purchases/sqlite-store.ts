import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import {
  type Bounded,
  boundRefund,
  isCumulativeRefund,
  isPaidPeriod,
  PAYING_TYPES,
  paidPeriod,
  type RefundRoom,
  refundScope,
  refundSince,
} from './dependent-records.ts';
import type { PurchaseRecord, PurchaseType } from './schema.ts';
import type { Inserted, PurchaseBatch, PurchaseStore, RecordForFacts, RecordForResults, StoredPurchase } from './store.ts';
import { type StoredRow, toStored } from './stored-row.ts';

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
  setAside: number,
  setAsideReason: string | null,
];

interface RoomRow {
  paid: number;
  refunded: number;
  later: number;
}

const PAYING = PAYING_TYPES.map((type) => `'${type}'`).join(', ');

interface RoomQuery {
  ts: number;
  project: string;
  source: string;
  currency: string;
  key: string;
}

/** What a refund's purchases paid and had refunded (dependent-records.ts, RefundRoom). */
function roomQuery(scope: 'original_transaction_id' | 'user_id'): string {
  return `SELECT coalesce(sum(CASE WHEN type IN (${PAYING}) AND ts <= @ts THEN revenue END), 0) AS paid,
            coalesce(sum(CASE WHEN type = 'refund' THEN revenue END), 0) AS refunded,
            count(CASE WHEN type IN (${PAYING}) AND ts > @ts THEN 1 END) AS later
          FROM purchases WHERE project_id = @project AND source = @source AND currency = @currency AND ${scope} = @key`;
}

/** What a batch writes beside its records, inside the records' transaction: the identity and integrations stores on the same connection. */
interface BatchCompanions {
  identity: {
    link(projectId: string, id: string, userId: string, now: number): boolean;
    remember(projectId: string, userIds: Iterable<string>): void;
  };
  customers: { linkCustomer(projectId: string, provider: string, customer: string, userId: string): void };
  /** Queues the webhook event of a record stored (never of a duplicate): src/webhooks/. */
  outbox: { purchased(projectId: string, record: PurchaseRecord, receivedAt: number): void };
}

/** Purchase records on one connection: each batch is one IMMEDIATE transaction (the connection runs with synchronous=FULL). */
export class SqlitePurchaseStore implements PurchaseStore {
  readonly insert;
  readonly list;
  readonly recordsAfter;
  readonly factsAfter;

  constructor(db: Database, companions: BatchCompanions) {
    const insertRow = db.prepare<Row>(
      `INSERT INTO purchases (project_id, source, purchase_id, user_id, type, ts, product_id, store, store_product_id, revenue, currency,
         transaction_id, original_transaction_id, paywall_id, received_at, set_aside, set_aside_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, source, purchase_id) DO NOTHING`,
    );
    const roomBy = {
      original: db.prepare<RoomQuery, RoomRow>(roomQuery('original_transaction_id')),
      user: db.prepare<RoomQuery, RoomRow>(roomQuery('user_id')),
    };
    const roomOf = (projectId: string, r: PurchaseRecord): RefundRoom => {
      const scope = refundScope(r);
      const row = roomBy[scope.by].get({ ts: r.ts, project: projectId, source: r.source, currency: r.currency, key: scope.key })!;
      return { paid: row.paid, refunded: row.refunded, paidLater: row.later > 0 };
    };
    const typesOf = db
      .prepare<[string, string, string], PurchaseType>(
        'SELECT DISTINCT type FROM purchases WHERE project_id = ? AND source = ? AND original_transaction_id = ?',
      )
      .pluck();
    // What the payment's refunds reported, counted or kept aside: a running total is compared with that.
    const refunded = db
      .prepare<[string, string, string], number>(
        "SELECT coalesce(sum(revenue + set_aside), 0) FROM purchases WHERE project_id = ? AND source = ? AND transaction_id = ? AND type = 'refund'",
      )
      .pluck();
    const byProject = db.prepare<[string], StoredRow>('SELECT * FROM purchases WHERE project_id = ? ORDER BY seq');
    this.insert = sqliteWrite(db, (projectId: string, batch: PurchaseBatch): Inserted => {
      const result: Inserted = { inserted: 0, setAside: [] };
      for (const [index, given] of batch.records.entries()) {
        // Read in the write transaction: no other batch stores a record of this payment or subscription in between
        // (the batch's earlier records are already inserted, so they are read too).
        const typed: PurchaseRecord | undefined = isCumulativeRefund(given, batch)
          ? refundSince(given, refunded.get(projectId, given.source, given.transactionId!) ?? 0, batch.cumulativeRefunds!.decimals)
          : isPaidPeriod(given, batch)
            ? paidPeriod(given, new Set(typesOf.all(projectId, given.source, given.originalTransactionId!)))
            : given;
        if (typed === undefined) continue;
        const bounded: Bounded = typed.type === 'refund' ? boundRefund(typed, roomOf(projectId, typed)) : { record: typed, setAside: 0, reason: null };
        const r = bounded.record;
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
          batch.receivedAt,
          bounded.setAside,
          bounded.reason,
        ];
        if (insertRow.run(...row).changes === 0) continue;
        result.inserted++;
        if (bounded.reason) result.setAside.push({ index, reason: bounded.reason, amount: bounded.setAside });
        companions.outbox.purchased(projectId, r, batch.receivedAt);
      }
      companions.identity.remember(
        projectId,
        batch.records.map((r) => r.userId),
      );
      const { customer, aliases } = batch;
      if (customer) companions.customers.linkCustomer(projectId, customer.provider, customer.id, customer.userId);
      if (aliases) {
        for (const id of aliases.ids) if (id !== aliases.userId) companions.identity.link(projectId, id, aliases.userId, batch.receivedAt);
        companions.identity.remember(projectId, [aliases.userId]);
      }
      return result;
    });
    this.list = sqliteRead(db, (projectId: string): StoredPurchase[] => byProject.all(projectId).map(toStored));
    const after = db.prepare<[string, number, number], RecordForResults>(
      `SELECT seq, user_id AS userId, type, ts, revenue, currency, paywall_id AS paywallId FROM purchases
       WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    this.recordsAfter = sqliteRead(db, (projectId: string, seq: number, limit: number): RecordForResults[] => after.all(projectId, seq, limit));
    const forFacts = db.prepare<[number, number], RecordForFacts>(
      `SELECT seq, project_id AS projectId, user_id AS userId, type, ts, product_id AS productId, store, store_product_id AS storeProductId,
         original_transaction_id AS originalTransactionId FROM purchases WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    this.factsAfter = sqliteRead(db, (seq: number, limit: number): RecordForFacts[] => forFacts.all(seq, limit));
  }
}
