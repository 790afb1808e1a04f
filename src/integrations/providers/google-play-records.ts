/**
 * What a Google Play notification comes to (docs/guide/revenue.md, "Google Play"). A notification names a
 * purchase token, not what was bought: the purchase is read from the Play Developer API
 * (google-play-api.ts), and what was paid or refunded from its order. A record's id is made of
 * the order id (a payment, a refund's running total, a cancellation) or of the purchase token (a
 * trial, an end), so that a redelivery, or Google's own duplicate, is stored once.
 */
import type { PurchaseRecord } from '../../purchases/schema.ts';
import { minorUnitExponent, toMajorUnits } from '../../shared/currency.ts';
import type { Translation } from '../connector.ts';
import type { ServiceAccount } from './google-auth.ts';
import { unavailable } from './google-http.ts';
import type { PlayApi } from './google-play-api.ts';
import { field, text } from './json-fields.ts';

/** What translating needs: the API as the project's account, and the user of an obfuscatedExternalAccountId. */
export interface PlayLookup {
  play: PlayApi;
  account: ServiceAccount;
  packageName: string;
  userOf(obfuscatedAccountId: unknown): Promise<string | undefined>;
}

type Unused = Extract<Translation, { kind: 'unused' }>;

function unknownType(what: string, type: unknown): Unused {
  return { kind: 'unused', type: `${what} ${String(type)}`, warn: 'a notification type paywalld does not know' };
}

const SUBSCRIPTION_TYPES = new Map<unknown, string>([
  [1, 'SUBSCRIPTION_RECOVERED'],
  [2, 'SUBSCRIPTION_RENEWED'],
  [3, 'SUBSCRIPTION_CANCELED'],
  [4, 'SUBSCRIPTION_PURCHASED'],
  [5, 'SUBSCRIPTION_ON_HOLD'],
  [6, 'SUBSCRIPTION_IN_GRACE_PERIOD'],
  [7, 'SUBSCRIPTION_RESTARTED'],
  [8, 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED'],
  [9, 'SUBSCRIPTION_DEFERRED'],
  [10, 'SUBSCRIPTION_PAUSED'],
  [11, 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED'],
  [12, 'SUBSCRIPTION_REVOKED'],
  [13, 'SUBSCRIPTION_EXPIRED'],
  [19, 'SUBSCRIPTION_PRICE_CHANGE_UPDATED'],
  [20, 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED'],
]);
/** Types that carry a payment: the purchase, a renewal, a recovery from account hold. */
const PAYMENTS = new Set<unknown>([1, 2, 4]);
const CANCELED = 3;
/** Types after which the subscription gives no access: a revocation (its refund comes as a voided purchase), an expiry. */
const ENDS = new Set<unknown>([12, 13]);

/** An object of Google's answer; store_unavailable when the answer is not what its reference says. */
function answerObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unavailable(`the Play Developer API answered without ${what}`);
  return value as Record<string, unknown>;
}

function optionalText(value: Record<string, unknown> | undefined, key: string): string | undefined {
  const found = value && field(value, key);
  return typeof found === 'string' && found !== '' && found.length <= 1024 ? found : undefined;
}

function firstOf(value: Record<string, unknown>, key: string, what: string): Record<string, unknown> {
  const list = field(value, key);
  return answerObject(Array.isArray(list) ? list[0] : undefined, what);
}

/** Epoch milliseconds from Google's int64 (a string of digits in JSON) or an RFC 3339 timestamp. */
export function millisOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value))) return Date.parse(value);
  return undefined;
}

interface Amount {
  revenue: number;
  currency: string;
  decimals: number;
}

/** A google.type.Money (`units` whole, `nanos` billionths) in major units, rounded to the currency's ISO 4217 exponent. */
function amountOf(money: unknown, what: string): Amount {
  const { currencyCode, units = '0', nanos = 0 } = answerObject(money, what);
  const whole = typeof units === 'number' ? String(units) : units;
  const valid = typeof whole === 'string' && /^\d{1,12}$/.test(whole) && typeof nanos === 'number' && Number.isInteger(nanos) && nanos >= 0 && nanos < 1e9;
  if (typeof currencyCode !== 'string' || !/^[A-Z]{3}$/.test(currencyCode) || !valid)
    throw unavailable(`the Play Developer API answered ${what} it cannot read`);
  const decimals = minorUnitExponent(currencyCode);
  const minor = Number(whole) * 10 ** decimals + Math.round(nanos / 10 ** (9 - decimals));
  return { revenue: toMajorUnits(minor, decimals), currency: currencyCode, decimals };
}

/** An optional object field of Google's answer (undefined when absent or not an object). */
function child(value: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const found = value && field(value, key);
  return typeof found === 'object' && found !== null && !Array.isArray(found) ? (found as Record<string, unknown>) : undefined;
}

/** What an order has refunded so far: its full refund, else its partial refunds processed, else (a full refund not itemised yet) its total. */
function refundedOf(order: Record<string, unknown>, partial: boolean): Amount {
  const history = child(order, 'orderHistory');
  const full = child(history, 'refundEvent');
  if (full) return amountOf(field(answerObject(field(full, 'refundDetails'), 'refund details'), 'total'), 'a refund');
  const events = history && field(history, 'partialRefundEvents');
  const done = (Array.isArray(events) ? events : [])
    .map((event) => answerObject(event, 'a partial refund'))
    // One not processed yet (no processTime) has not returned the money.
    .filter((event) => millisOf(field(event, 'processTime')) !== undefined && child(event, 'refundDetails') !== undefined);
  if (done.length > 0) {
    const amounts = done.map((event) => amountOf(field(child(event, 'refundDetails')!, 'total'), 'a partial refund'));
    const [first] = amounts as [Amount, ...Amount[]];
    if (amounts.some((amount) => amount.currency !== first.currency)) throw unavailable('the partial refunds of one order are in several currencies');
    return { ...first, revenue: Number(amounts.reduce((sum, amount) => sum + amount.revenue, 0).toFixed(first.decimals)) };
  }
  if (partial) throw unavailable('the order shows no partial refund yet');
  return amountOf(field(order, 'total'), "the order's total");
}

function record(id: string, userId: string, fields: Pick<PurchaseRecord, 'type' | 'ts' | 'revenue' | 'currency'> & Partial<PurchaseRecord>): PurchaseRecord {
  return {
    source: 'google-play',
    id,
    userId,
    productId: null,
    store: 'play_store',
    storeProductId: null,
    transactionId: null,
    originalTransactionId: null,
    paywallId: null,
    ...fields,
  };
}

/** SubscriptionPurchaseV2's user: the obfuscatedExternalAccountId the app passed to the billing flow. */
function subscriptionUser(purchase: Record<string, unknown>): unknown {
  const identifiers = child(purchase, 'externalAccountIdentifiers');
  return identifiers && field(identifiers, 'obfuscatedExternalAccountId');
}

export async function subscriptionRecords(notification: Record<string, unknown>, eventTime: number, lookup: PlayLookup): Promise<Translation> {
  const type = field(notification, 'notificationType');
  const name = SUBSCRIPTION_TYPES.get(type);
  if (name === undefined) return unknownType('subscriptionNotification', type);
  if (!PAYMENTS.has(type) && type !== CANCELED && !ENDS.has(type)) return { kind: 'unused', type: name };
  const token = text(notification, 'purchaseToken');
  const purchase = await lookup.play.subscription(lookup.account, lookup.packageName, token);
  const item = firstOf(purchase, 'lineItems', 'a line item');
  const userId = await lookup.userOf(subscriptionUser(purchase));
  if (userId === undefined) return { kind: 'no_user', type: name };
  const orderId = optionalText(item, 'latestSuccessfulOrderId') ?? optionalText(purchase, 'latestOrderId');
  const price = child(child(item, 'autoRenewingPlan'), 'recurringPrice');
  const subscription = {
    ts: eventTime,
    storeProductId: optionalText(item, 'productId') ?? null,
    transactionId: orderId ?? null,
    originalTransactionId: token,
    revenue: 0,
    currency: optionalText(price, 'currencyCode') ?? 'XXX',
  };
  if (type === CANCELED) return { kind: 'records', records: [record(`cancellation:${orderId ?? token}`, userId, { ...subscription, type: 'cancellation' })] };
  if (ENDS.has(type)) return { kind: 'records', records: [record(`expiration:${token}`, userId, { ...subscription, type: 'expiration' })] };
  if (field(purchase, 'subscriptionState') === 'SUBSCRIPTION_STATE_PENDING') return { kind: 'unused', type: `${name} (payment pending)` };
  const phase = child(item, 'offerPhase');
  const trial = record(`trial:${token}`, userId, { ...subscription, type: 'trial_started' });
  if (phase && field(phase, 'freeTrial') !== undefined) return { kind: 'records', records: [trial] };
  if (orderId === undefined) throw unavailable('the subscription names no order');
  const paid = amountOf(field(await lookup.play.order(lookup.account, lookup.packageName, orderId), 'total'), "the order's total");
  // Without offerPhase (answers before it existed), a free order is the trial's.
  if (phase === undefined && paid.revenue === 0) return { kind: 'records', records: [trial] };
  // A purchase that replaces another subscription (an upgrade, a downgrade) continues what was bought before: it converts no one.
  const replaces = type === 4 && optionalText(purchase, 'linkedPurchaseToken') !== undefined;
  const payment = record(`payment:${orderId}`, userId, {
    ...subscription,
    type: type === 4 && !replaces ? 'initial_purchase' : 'renewal',
    revenue: paid.revenue,
    currency: paid.currency,
  });
  return { kind: 'records', records: [payment], ...(replaces ? {} : { paidPeriods: true as const }) };
}

export async function oneTimeRecords(notification: Record<string, unknown>, eventTime: number, lookup: PlayLookup): Promise<Translation> {
  const type = field(notification, 'notificationType');
  if (type === 2) return { kind: 'unused', type: 'ONE_TIME_PRODUCT_CANCELED' };
  if (type !== 1) return unknownType('oneTimeProductNotification', type);
  const token = text(notification, 'purchaseToken');
  const sku = text(notification, 'sku');
  const purchase = await lookup.play.product(lookup.account, lookup.packageName, sku, token);
  const state = field(purchase, 'purchaseState');
  if (state !== 0) return { kind: 'unused', type: `ONE_TIME_PRODUCT_PURCHASED (${state === 2 ? 'payment pending' : 'canceled'})` };
  const userId = await lookup.userOf(field(purchase, 'obfuscatedExternalAccountId'));
  if (userId === undefined) return { kind: 'no_user', type: 'ONE_TIME_PRODUCT_PURCHASED' };
  const orderId = optionalText(purchase, 'orderId');
  if (orderId === undefined) throw unavailable('the purchase names no order');
  const paid = amountOf(field(await lookup.play.order(lookup.account, lookup.packageName, orderId), 'total'), "the order's total");
  const payment = record(`payment:${orderId}`, userId, {
    type: 'non_renewing_purchase',
    ts: millisOf(field(purchase, 'purchaseTimeMillis')) ?? eventTime,
    storeProductId: sku,
    transactionId: orderId,
    revenue: paid.revenue,
    currency: paid.currency,
  });
  return { kind: 'records', records: [payment] };
}

const SUBSCRIPTION_PRODUCT = 1;
const ONE_TIME_PRODUCT = 2;
const QUANTITY_BASED_PARTIAL_REFUND = 2;

export async function voidedRecords(notification: Record<string, unknown>, eventTime: number, lookup: PlayLookup): Promise<Translation> {
  const productType = field(notification, 'productType');
  if (productType !== SUBSCRIPTION_PRODUCT && productType !== ONE_TIME_PRODUCT) return unknownType('voidedPurchaseNotification of productType', productType);
  const token = text(notification, 'purchaseToken');
  const orderId = text(notification, 'orderId');
  const { play, account, packageName } = lookup;
  const order = await play.order(account, packageName, orderId);
  const productId = optionalText(firstOf(order, 'lineItems', "the order's line item"), 'productId');
  let user: unknown;
  if (productType === SUBSCRIPTION_PRODUCT) user = subscriptionUser(await play.subscription(account, packageName, token));
  else if (productId === undefined) throw unavailable('the order names no product');
  else user = field(await play.product(account, packageName, productId, token), 'obfuscatedExternalAccountId');
  const userId = await lookup.userOf(user);
  if (userId === undefined) return { kind: 'no_user', type: 'voidedPurchaseNotification' };
  const refunded = refundedOf(order, field(notification, 'refundType') === QUANTITY_BASED_PARTIAL_REFUND);
  const refundEvent = child(child(order, 'orderHistory'), 'refundEvent');
  // The running total of the order's refunds: the store records what is new since the refunds it holds (PurchaseBatch.cumulativeRefunds).
  const refund = record(`refund:${orderId}:${refunded.revenue}`, userId, {
    type: 'refund',
    ts: millisOf(refundEvent && field(refundEvent, 'eventTime')) ?? eventTime,
    storeProductId: productId ?? null,
    transactionId: orderId,
    originalTransactionId: productType === SUBSCRIPTION_PRODUCT ? token : null,
    revenue: refunded.revenue,
    currency: refunded.currency,
  });
  return { kind: 'records', records: [refund], cumulativeRefunds: { decimals: refunded.decimals } };
}
