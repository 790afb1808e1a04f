import { ADVISORY_LOCKS } from '../db/postgres/advisory-locks.ts';
import type { Sql, Transaction } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
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
  roomInBatch,
} from './dependent-records.ts';
import type { PurchaseRecord, PurchaseType } from './schema.ts';
import type { Inserted, PurchaseBatch, PurchaseStore, RecordForFacts, RecordForResults, StoredPurchase } from './store.ts';
import { type StoredRow, toStored } from './stored-row.ts';

const COLUMNS = [
  'project_id',
  'source',
  'purchase_id',
  'user_id',
  'type',
  'ts',
  'product_id',
  'store',
  'store_product_id',
  'revenue',
  'currency',
  'transaction_id',
  'original_transaction_id',
  'paywall_id',
  'received_at',
  'set_aside',
  'set_aside_reason',
] as const;

/** What a batch writes beside its records, in the records' transaction: the identity and integrations stores' writes. */
interface BatchCompanions {
  identity: {
    link(tx: Transaction, projectId: string, id: string, userId: string, now: number): Promise<boolean>;
    remember(tx: Transaction, projectId: string, userIds: Iterable<string>): Promise<void>;
  };
  customers: { linkCustomer(tx: Transaction, projectId: string, provider: string, customer: string, userId: string): Promise<void> };
  /** Queues the webhook events of the records stored (never of a duplicate): src/webhooks/. */
  outbox: { purchased(tx: Transaction, projectId: string, records: readonly PurchaseRecord[], receivedAt: number): Promise<void> };
}

/** Purchase records in PostgreSQL: each batch is one transaction, acknowledged once committed (store.ts). */
export class PostgresPurchaseStore implements PurchaseStore {
  constructor(
    private readonly sql: Sql,
    private readonly companions: BatchCompanions,
  ) {}

  insert(projectId: string, batch: PurchaseBatch): Promise<Inserted> {
    const toRow = ({ record: r, setAside, reason }: Bounded): StoredRow => ({
      project_id: projectId,
      source: r.source,
      purchase_id: r.id,
      user_id: r.userId,
      type: r.type,
      ts: r.ts,
      product_id: r.productId,
      store: r.store,
      store_product_id: r.storeProductId,
      revenue: r.revenue,
      currency: r.currency,
      transaction_id: r.transactionId,
      original_transaction_id: r.originalTransactionId,
      paywall_id: r.paywallId,
      received_at: batch.receivedAt,
      set_aside: setAside,
      set_aside_reason: reason,
    });
    const { identity, customers } = this.companions;
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // Purchase commits one at a time across instances: seq order is commit order, which the results' reader relies on (ADVISORY_LOCKS.purchases).
        await tx`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.purchases.toString()})`;
        // Under that lock no other transaction stores a purchase, so what came before a record cannot change before this commits.
        const rows: StoredRow[] = [];
        const typed: { index: number; bounded: Bounded }[] = [];
        for (const [index, given] of batch.records.entries()) {
          const r = isCumulativeRefund(given, batch)
            ? refundSince(given, await this.refundedBefore(tx, projectId, given, rows), batch.cumulativeRefunds!.decimals)
            : isPaidPeriod(given, batch)
              ? paidPeriod(given, await this.typesBefore(tx, projectId, given, rows))
              : given;
          if (!r) continue;
          const bounded: Bounded =
            r.type === 'refund'
              ? boundRefund(
                  r,
                  await this.roomOf(
                    tx,
                    projectId,
                    r,
                    typed.map((t) => t.bounded),
                  ),
                )
              : { record: r, setAside: 0, reason: null };
          typed.push({ index, bounded });
          rows.push(toRow(bounded));
        }
        // One statement: seq follows the batch's order, and a record stored before (or twice in the batch) is skipped.
        const inserted =
          rows.length === 0
            ? []
            : await tx<{ source: string; purchase_id: string }[]>`INSERT INTO purchases ${tx(rows, ...COLUMNS)}
                ON CONFLICT (project_id, source, purchase_id) DO NOTHING RETURNING source, purchase_id`;
        const stored = new Set(inserted.map((row) => `${row.source}\0${row.purchase_id}`));
        const result: Inserted = { inserted: inserted.length, setAside: [] };
        const records: PurchaseRecord[] = [];
        for (const { index, bounded } of typed) {
          // The first of two copies in the batch is the one stored.
          if (!stored.delete(`${bounded.record.source}\0${bounded.record.id}`)) continue;
          records.push(bounded.record);
          if (bounded.reason) result.setAside.push({ index, reason: bounded.reason, amount: bounded.setAside });
        }
        await this.companions.outbox.purchased(tx, projectId, records, batch.receivedAt);
        await identity.remember(
          tx,
          projectId,
          batch.records.map((r) => r.userId),
        );
        const { customer, aliases } = batch;
        if (customer) await customers.linkCustomer(tx, projectId, customer.provider, customer.id, customer.userId);
        if (aliases) {
          for (const id of aliases.ids) if (id !== aliases.userId) await identity.link(tx, projectId, id, aliases.userId, batch.receivedAt);
          await identity.remember(tx, projectId, [aliases.userId]);
        }
        return result;
      }),
    );
  }

  /** What the refund's purchases paid and had refunded: stored, and earlier in this batch (dependent-records.ts, RefundRoom). */
  private async roomOf(tx: Transaction, projectId: string, record: PurchaseRecord, earlier: readonly Bounded[]): Promise<RefundRoom> {
    const scope = refundScope(record);
    const column = tx(scope.by === 'original' ? 'original_transaction_id' : 'user_id');
    const [row] = await tx<{ paid: number; refunded: number; later: number }[]>`
      SELECT coalesce(sum(revenue) FILTER (WHERE type IN ${tx(PAYING_TYPES)} AND ts <= ${record.ts}), 0) AS paid,
             coalesce(sum(revenue) FILTER (WHERE type = 'refund'), 0) AS refunded,
             count(*) FILTER (WHERE type IN ${tx(PAYING_TYPES)} AND ts > ${record.ts})::int AS later
      FROM purchases
      WHERE project_id = ${projectId} AND source = ${record.source} AND currency = ${record.currency} AND ${column} = ${scope.key}`;
    const batch = roomInBatch(record, earlier);
    return { paid: row!.paid + batch.paid, refunded: row!.refunded + batch.refunded, paidLater: row!.later > 0 || batch.paidLater };
  }

  /** The types stored for the record's subscription, and earlier in this batch. */
  private async typesBefore(tx: Transaction, projectId: string, record: PurchaseRecord, earlier: readonly StoredRow[]): Promise<Set<PurchaseType>> {
    const rows = await tx<{ type: PurchaseType }[]>`
      SELECT DISTINCT type FROM purchases WHERE project_id = ${projectId} AND source = ${record.source} AND original_transaction_id = ${record.originalTransactionId}`;
    const same = (r: StoredRow) => r.source === record.source && r.original_transaction_id === record.originalTransactionId;
    return new Set([...rows.map((row) => row.type), ...earlier.filter(same).map((r) => r.type)]);
  }

  /** What the record's payment had refunded: stored, and earlier in this batch. */
  private async refundedBefore(tx: Transaction, projectId: string, record: PurchaseRecord, earlier: readonly StoredRow[]): Promise<number> {
    // What the payment's refunds reported, counted or kept aside: a running total is compared with that.
    const [row] = await tx<{ refunded: number }[]>`
      SELECT coalesce(sum(revenue + set_aside), 0) AS refunded FROM purchases
      WHERE project_id = ${projectId} AND source = ${record.source} AND transaction_id = ${record.transactionId} AND type = 'refund'`;
    const same = (r: StoredRow) => r.source === record.source && r.transaction_id === record.transactionId && r.type === 'refund';
    return earlier.filter(same).reduce((sum, r) => sum + r.revenue + r.set_aside, row!.refunded);
  }

  list(projectId: string): Promise<StoredPurchase[]> {
    return storeCall(async () => (await this.sql<StoredRow[]>`SELECT * FROM purchases WHERE project_id = ${projectId} ORDER BY seq`).map(toStored));
  }

  /** Seq order is commit order: inserts hold the purchases' advisory lock (above), so reading on from the last seq read skips none. */
  recordsAfter(projectId: string, seq: number, limit: number): Promise<RecordForResults[]> {
    return storeCall(async () => [
      ...(await this.sql<RecordForResults[]>`
        SELECT seq, user_id AS "userId", type, ts, revenue, currency, paywall_id AS "paywallId" FROM purchases
        WHERE project_id = ${projectId} AND seq > ${seq} ORDER BY seq LIMIT ${limit}`),
    ]);
  }

  factsAfter(seq: number, limit: number): Promise<RecordForFacts[]> {
    return storeCall(async () => [
      ...(await this.sql<RecordForFacts[]>`
        SELECT seq, project_id AS "projectId", user_id AS "userId", type, ts, product_id AS "productId", store,
          store_product_id AS "storeProductId", original_transaction_id AS "originalTransactionId"
        FROM purchases WHERE seq > ${seq} ORDER BY seq LIMIT ${limit}`),
    ]);
  }
}
