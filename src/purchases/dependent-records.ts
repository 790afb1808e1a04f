/**
 * Records whose content depends on the records stored before them: a refund reported as a running
 * total (PurchaseBatch.cumulativeRefunds) and a subscription's paid period (PurchaseBatch.paidPeriods).
 * Each store reads what came before inside the batch's transaction and lets these decide, so that two
 * notifications delivered at once, to one instance or two, cannot both decide from the same past.
 */

import type { PurchaseRecord, PurchaseType } from './schema.ts';
import type { PurchaseBatch } from './store.ts';

/** Whether the batch's record is a running total to turn into what it adds. */
export function isCumulativeRefund(record: PurchaseRecord, batch: PurchaseBatch): boolean {
  return batch.cumulativeRefunds !== undefined && record.type === 'refund' && record.transactionId !== null;
}

/**
 * The refund as stored, given what its payment had refunded before it: its revenue becomes the amount
 * new since then, rounded to the currency's decimals; undefined when nothing is new (a retry, or an
 * older total arriving after a newer one).
 */
export function refundSince(record: PurchaseRecord, refundedBefore: number, decimals: number): PurchaseRecord | undefined {
  const added = Number((record.revenue - refundedBefore).toFixed(decimals));
  return added > 0 ? { ...record, revenue: added } : undefined;
}

const PAID_PERIODS: ReadonlySet<PurchaseType> = new Set(['initial_purchase', 'trial_converted', 'renewal']);

/** Whether the batch's record is a paid period of a subscription, to be typed from the subscription's earlier records. */
export function isPaidPeriod(record: PurchaseRecord, batch: PurchaseBatch): boolean {
  return batch.paidPeriods === true && PAID_PERIODS.has(record.type) && record.originalTransactionId !== null;
}

/**
 * What a paid period of a subscription is, from the types the source reported before for it: the
 * first payment after a trial start is its conversion, a later one a renewal.
 */
export function paidPeriod(record: PurchaseRecord, typesBefore: ReadonlySet<PurchaseType>): PurchaseRecord {
  const paid = [...PAID_PERIODS].some((type) => typesBefore.has(type));
  const type = paid ? 'renewal' : typesBefore.has('trial_started') ? 'trial_converted' : 'initial_purchase';
  return { ...record, type };
}
