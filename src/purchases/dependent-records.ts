/**
 * Records whose content depends on the records stored before them: a refund reported as a running
 * total (PurchaseBatch.cumulativeRefunds), a subscription's paid period (PurchaseBatch.paidPeriods),
 * and every refund, which counts only against what its purchases paid (boundRefund). Each store reads
 * what came before inside the batch's transaction and lets these decide, so that two notifications
 * delivered at once, to one instance or two, cannot both decide from the same past.
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

/** The types that pay: what a refund may take back. */
export const PAYING_TYPES: readonly PurchaseType[] = ['initial_purchase', 'trial_converted', 'renewal', 'non_renewing_purchase'];

/**
 * A refund's purchases, as the stores select them: the project's records of the same source and
 * currency with the refund's original transaction when it names one, else of the same user.
 */
export function refundScope(record: PurchaseRecord): { by: 'original'; key: string } | { by: 'user'; key: string } {
  return record.originalTransactionId === null ? { by: 'user', key: record.userId } : { by: 'original', key: record.originalTransactionId };
}

/** What a refund's purchases (refundScope) paid at or before it and how much of them was refunded already; whether one is dated after it. */
export interface RefundRoom {
  paid: number;
  refunded: number;
  paidLater: boolean;
}

export type SetAsideReason = 'no_purchase' | 'before_purchase' | 'over_paid';

/** A record as stored: what counts in `revenue`, and the part of a refund kept aside with its reason. */
export interface Bounded {
  record: PurchaseRecord;
  setAside: number;
  reason: SetAsideReason | null;
}

/** Amounts in major units have at most three decimals (the App Store's milli-units): sums are rounded past that. */
function rounded(amount: number): number {
  return Number(amount.toFixed(6));
}

/**
 * A refund counts at most what its purchases paid at or before it, net of the refunds already counted
 * against them; the rest is kept aside, not counted: all of it when no purchase came before it (none
 * at all: no_purchase; only later ones: before_purchase), the excess otherwise (over_paid).
 */
export function boundRefund(record: PurchaseRecord, room: RefundRoom): Bounded {
  if (!(room.paid > 0)) return { record: { ...record, revenue: 0 }, setAside: record.revenue, reason: room.paidLater ? 'before_purchase' : 'no_purchase' };
  const left = Math.max(0, rounded(room.paid - room.refunded));
  if (record.revenue <= left) return { record, setAside: 0, reason: null };
  return { record: { ...record, revenue: left }, setAside: rounded(record.revenue - left), reason: 'over_paid' };
}

/** The room of a refund from the rows stored before it in its own batch (the stores add what the database holds). */
export function roomInBatch(record: PurchaseRecord, earlier: readonly { record: PurchaseRecord }[]): RefundRoom {
  const scope = refundScope(record);
  const room = { paid: 0, refunded: 0, paidLater: false };
  for (const { record: r } of earlier) {
    const same =
      r.source === record.source &&
      r.currency === record.currency &&
      (scope.by === 'original' ? r.originalTransactionId === scope.key : r.userId === scope.key);
    if (!same) continue;
    if (r.type === 'refund') room.refunded += r.revenue;
    else if (PAYING_TYPES.includes(r.type) && r.ts <= record.ts) room.paid += r.revenue;
    else if (PAYING_TYPES.includes(r.type)) room.paidLater = true;
  }
  return room;
}
