/**
 * The shapes of purchase records: what `POST /api/purchases` takes (each
 * record validated on its own, so one bad record does not sink the others),
 * its answer, and the record every store connector translates into.
 */
import * as v from 'valibot';
import { MAX_REVENUE } from '../events/schema.ts';
import { isEpochTime, toMillis } from '../events/time.ts';
import { ID_PATTERN } from '../shared/id-pattern.ts';
import { storableText } from '../shared/text.ts';

/** The most records one request may carry; more is a 413 (too_many_purchases). */
export const MAX_PURCHASES_PER_REQUEST = 1000;

const PURCHASE_TYPES = [
  'initial_purchase',
  'trial_started',
  'trial_converted',
  'renewal',
  'refund',
  'cancellation',
  'expiration',
  'non_renewing_purchase',
  'product_change',
] as const;
export type PurchaseType = (typeof PURCHASE_TYPES)[number];

/** Where a record came from: the generic endpoint, or a store connector (its provider's name). */
export const PURCHASE_SOURCES = ['api', 'stripe', 'revenuecat', 'app-store', 'google-play'] as const;
export type PurchaseSource = (typeof PURCHASE_SOURCES)[number];

/**
 * Whether an amount may be a record's revenue: from 0 to MAX_REVENUE major
 * units (NaN and infinities are neither). The one bound of every source: the
 * schema below for POST /api/purchases, IntegrationService for the
 * connectors' records, the results fold for records stored before it.
 */
export function isRevenue(amount: number): boolean {
  return amount >= 0 && amount <= MAX_REVENUE;
}

/** ISO 4217: three capital letters. */
const CURRENCY = /^[A-Z]{3}$/;

function text(max: number) {
  return v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`), storableText());
}

/** One record of POST /api/purchases. Optional fields may also be sent as null. */
export const PurchaseSchema = v.pipe(
  v.strictObject({
    id: v.pipe(text(128), v.description('the deduplication key: a record whose id the project already has is not stored again')),
    user_id: text(256),
    type: v.picklist(PURCHASE_TYPES, `must be one of ${PURCHASE_TYPES.join(', ')}`),
    ts: v.pipe(
      v.number('must be a number'),
      v.description('epoch time of the purchase: seconds below 10^11, milliseconds from 10^11 to below 10^14'),
      v.check(isEpochTime, 'must be a positive integer: seconds below 10^11, milliseconds from 10^11 to below 10^14'),
      v.transform(toMillis),
    ),
    product_id: v.nullish(v.pipe(text(256), v.description('the catalog product; or store and store_product_id'))),
    store: v.nullish(v.pipe(text(64), v.description('app_store, play_store, stripe, web, …: with store_product_id when there is no product_id'))),
    store_product_id: v.nullish(text(256)),
    revenue: v.pipe(
      v.number('must be a number'),
      v.description(`major units (9.99), from 0 to ${MAX_REVENUE}; on a refund the amount returned; 0 for a trial start, cancellation or expiration`),
      v.finite('must be a finite number'),
      v.minValue(0, 'must not be negative'),
      v.maxValue(MAX_REVENUE, `must be at most ${MAX_REVENUE}`),
    ),
    currency: v.pipe(v.string('must be a string'), v.regex(CURRENCY, 'must be an ISO 4217 code: three capital letters')),
    original_transaction_id: v.nullish(v.pipe(text(128), v.description("the subscription's first transaction: links renewals and refunds to it"))),
    paywall_id: v.nullish(
      v.pipe(
        v.string('must be a string'),
        v.regex(ID_PATTERN, 'must match [A-Za-z0-9][A-Za-z0-9_.-]{0,63}'),
        v.description('the paywall the purchase is credited to; without it, every paywall experiment the user was exposed in before'),
      ),
    ),
  }),
  v.check(
    (record) => record.product_id != null || (record.store != null && record.store_product_id != null),
    'product_id, or store with store_product_id, is required',
  ),
);

/** The documented request body of POST /api/purchases. */
export const PurchaseBatchSchema = v.strictObject({
  purchases: v.pipe(
    v.array(PurchaseSchema, 'purchases must be an array'),
    v.minLength(1, 'purchases must not be empty'),
    v.maxLength(MAX_PURCHASES_PER_REQUEST, `a request holds at most ${MAX_PURCHASES_PER_REQUEST} purchases`),
  ),
});
/** The whole-request check: everything but the records themselves. */
export const PurchaseEnvelopeSchema = v.strictObject({
  purchases: v.pipe(
    v.array(v.unknown(), 'purchases must be an array'),
    v.minLength(1, 'purchases must not be empty'),
    v.maxLength(MAX_PURCHASES_PER_REQUEST, `a request holds at most ${MAX_PURCHASES_PER_REQUEST} purchases`),
  ),
});

const PURCHASE_REJECTION_CODES = ['invalid_purchase', 'ts_out_of_range'] as const;
export type PurchaseRejectionCode = (typeof PURCHASE_REJECTION_CODES)[number];

const SET_ASIDE_REASONS = ['no_purchase', 'before_purchase', 'over_paid'] as const;

export const PurchaseResultSchema = v.object({
  accepted: v.pipe(v.number(), v.description('records stored by this request')),
  duplicates: v.pipe(v.number(), v.description('records whose id the project already had')),
  rejected: v.array(v.object({ index: v.number(), code: v.picklist(PURCHASE_REJECTION_CODES), message: v.string() })),
  set_aside: v.pipe(
    v.array(v.object({ index: v.number(), reason: v.picklist(SET_ASIDE_REASONS), amount: v.number(), message: v.string() })),
    v.description('refunds stored but not counted, in whole or in part (amount), because their purchases did not pay that much before them'),
  ),
});
export type PurchaseResult = v.InferOutput<typeof PurchaseResultSchema>;

/** A record as stored: from the generic endpoint or translated by a connector. */
export interface PurchaseRecord {
  source: PurchaseSource;
  /** The deduplication key within the project and source: the caller's id, or the provider's event id. */
  id: string;
  userId: string;
  type: PurchaseType;
  /** Epoch milliseconds. */
  ts: number;
  productId: string | null;
  store: string | null;
  storeProductId: string | null;
  /** Major units, at least 0; on a refund the amount returned. */
  revenue: number;
  currency: string;
  /** The store's id of this payment (a Stripe charge or invoice, an App Store transaction). */
  transactionId: string | null;
  originalTransactionId: string | null;
  paywallId: string | null;
}
