/**
 * RevenueCat webhooks (docs/guide/revenue.md, "RevenueCat"). RevenueCat sends the
 * Authorization header value set in its dashboard with every webhook; that
 * value is the only proof of origin, compared in constant time. Its event
 * `id` is the same on every retry: the deduplication key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { PurchaseRecord, PurchaseType } from '../../purchases/schema.ts';
import { DomainError } from '../../shared/errors.ts';
import type { Connector, Notification, Translation } from '../connector.ts';
import type { RevenueCatConfig } from '../schema.ts';
import { field, invalidNotification, object, parseJson, text } from './json-fields.ts';

/** RevenueCat's ids for users it made up; a real user id is preferred over them. */
const ANONYMOUS = '$RCAnonymousID:';

/** Cancellation reasons that mean the money went back (RevenueCat sends a refund as a CANCELLATION). */
const REFUND_REASON = 'CUSTOMER_SUPPORT';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function verifyAuthorization(received: string, expected: string): void {
  // Hashed first, so that the comparison takes the same time whatever the lengths.
  if (received === '' || !timingSafeEqual(digest(received), digest(expected))) {
    throw new DomainError('invalid_signature', 'the Authorization header is not the one configured for RevenueCat');
  }
}

function ids(event: Record<string, unknown>): string[] {
  const aliases = field(event, 'aliases');
  const all = [field(event, 'app_user_id'), field(event, 'original_app_user_id'), ...(Array.isArray(aliases) ? aliases : [])];
  return [...new Set(all.filter((id): id is string => typeof id === 'string' && id !== '' && id.length <= 256))];
}

function typeOf(rcType: string, event: Record<string, unknown>): PurchaseType | undefined {
  switch (rcType) {
    case 'INITIAL_PURCHASE':
      return field(event, 'period_type') === 'TRIAL' ? 'trial_started' : 'initial_purchase';
    case 'RENEWAL':
      return field(event, 'is_trial_conversion') === true ? 'trial_converted' : 'renewal';
    case 'CANCELLATION':
      return field(event, 'cancel_reason') === REFUND_REASON ? 'refund' : 'cancellation';
    case 'NON_RENEWING_PURCHASE':
      return 'non_renewing_purchase';
    case 'PRODUCT_CHANGE':
      return 'product_change';
    case 'EXPIRATION':
      return 'expiration';
    default:
      return undefined;
  }
}

/** Types that move money: the price is theirs; the others are recorded at 0. */
const PAID: ReadonlySet<PurchaseType> = new Set(['initial_purchase', 'trial_converted', 'renewal', 'non_renewing_purchase', 'refund']);

export const revenueCatConnector: Connector<RevenueCatConfig> = {
  provider: 'revenuecat',
  secretOf: (config) => config.authorization,
  publicView: () => ({}),
  receive(config: RevenueCatConfig, notification: Notification): Translation {
    verifyAuthorization(notification.header('authorization'), config.authorization);
    const event = object(field(object(parseJson(notification.body), 'the body'), 'event'), 'event');
    const eventId = text(event, 'id');
    const rcType = text(event, 'type');
    const type = typeOf(rcType, event);
    if (type === undefined) return { kind: 'unused', type: rcType };
    const all = ids(event);
    const userId = all.find((id) => !id.startsWith(ANONYMOUS)) ?? all[0];
    if (userId === undefined) return { kind: 'no_user', type: rcType };
    const currency = field(event, 'currency');
    const price = field(event, 'price_in_purchased_currency');
    const paid = PAID.has(type);
    if (paid && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency) || typeof price !== 'number' || !Number.isFinite(price))) {
      throw invalidNotification('price_in_purchased_currency and currency are required on a purchase');
    }
    const stamp = field(event, paid && type !== 'refund' ? 'purchased_at_ms' : 'event_timestamp_ms') ?? field(event, 'event_timestamp_ms');
    if (typeof stamp !== 'number' || !Number.isSafeInteger(stamp)) throw invalidNotification('event_timestamp_ms is missing');
    const optional = (key: string) => {
      const value = field(event, key);
      return typeof value === 'string' && value !== '' ? value : null;
    };
    const store = optional('store');
    const record: PurchaseRecord = {
      source: 'revenuecat',
      id: eventId,
      userId,
      type,
      ts: stamp,
      productId: null,
      store: store === null ? null : store.toLowerCase(),
      storeProductId: optional('product_id'),
      // A refund's price is negative in RevenueCat's events: the amount returned is its size.
      revenue: paid ? Math.abs(price as number) : 0,
      currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : 'XXX',
      transactionId: optional('transaction_id'),
      originalTransactionId: optional('original_transaction_id'),
      paywallId: null,
    };
    const others = all.filter((id) => id !== userId && !id.startsWith(ANONYMOUS));
    return { kind: 'records', records: [record], ...(others.length > 0 ? { aliases: { ids: others, userId } } : {}) };
  },
};
