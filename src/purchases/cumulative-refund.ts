/** A refund reported as a running total (PurchaseBatch.cumulativeRefunds), turned into what it adds. */
import type { PurchaseRecord } from './schema.ts';

/**
 * The record as stored, given what its payment had refunded before it: its revenue becomes the amount
 * new since then, rounded to the currency's decimals; undefined when nothing is new (a retry, or an
 * older notification arriving after a newer one).
 */
export function refundSince(record: PurchaseRecord, refundedBefore: number, decimals: number): PurchaseRecord | undefined {
  const added = Number((record.revenue - refundedBefore).toFixed(decimals));
  return added > 0 ? { ...record, revenue: added } : undefined;
}

/** Whether the batch's record is a running total to turn into what it adds. */
export function isCumulativeRefund(record: PurchaseRecord, cumulative: { decimals: number } | undefined): cumulative is { decimals: number } {
  return cumulative !== undefined && record.type === 'refund' && record.transactionId !== null;
}
