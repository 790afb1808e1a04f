/**
 * App Store Server Notifications v2 (docs/guide/revenue.md, "App Store"). The body
 * is `{"signedPayload"}`; the payload, its `signedTransactionInfo` and its
 * `signedRenewalInfo` are each verified against the configured roots
 * (apple-jws.ts), and the app's bundle id checked, before anything is read.
 * The user comes from the transaction's `appAccountToken` (the client's
 * appAccountToken(userId)); the price is in milli-units of `currency`.
 */
import { X509Certificate } from 'node:crypto';
import type { PurchaseRecord, PurchaseType } from '../../purchases/schema.ts';
import { DomainError, type FieldError } from '../../shared/errors.ts';
import type { Connector, ConnectorContext, Notification, Translation } from '../connector.ts';
import type { AppStoreConfig } from '../schema.ts';
import { verifyAppleJws } from './apple-jws.ts';
import { field, invalidNotification, MAX_UNVERIFIED_VALUES, object, parseJson, text } from './json-fields.ts';

/** Roots parsed once per configuration text. */
const parsedRoots = new Map<string, X509Certificate[]>();

function rootsOf(config: AppStoreConfig): X509Certificate[] {
  const key = config.root_certificates.join('\n');
  let roots = parsedRoots.get(key);
  if (!roots) {
    roots = config.root_certificates.map((pem) => new X509Certificate(pem));
    if (parsedRoots.size > 100) parsedRoots.clear();
    parsedRoots.set(key, roots);
  }
  return roots;
}

/** Every root must parse as a certificate: checked when the configuration is written. */
export function checkAppStoreConfig(config: AppStoreConfig): FieldError[] {
  const errors: FieldError[] = [];
  config.root_certificates.forEach((pem, index) => {
    try {
      new X509Certificate(pem);
    } catch {
      errors.push({ path: `/root_certificates/${index}`, message: 'is not a PEM certificate' });
    }
  });
  return errors;
}

/** Notification types that carry a payment (their transaction's price). */
const PAYMENTS = new Set(['SUBSCRIBED', 'DID_RENEW', 'OFFER_REDEEMED', 'ONE_TIME_CHARGE']);

function typeOf(notificationType: string, subtype: unknown, transaction: Record<string, unknown>): PurchaseType | undefined {
  if (PAYMENTS.has(notificationType)) {
    if (notificationType === 'ONE_TIME_CHARGE') return 'non_renewing_purchase';
    if (field(transaction, 'offerDiscountType') === 'FREE_TRIAL') return 'trial_started';
    // Conversion or renewal by what came before it: the store decides, in the insert's transaction (PurchaseBatch.paidPeriods).
    return 'renewal';
  }
  if (notificationType === 'REFUND') return 'refund';
  if (notificationType === 'EXPIRED') return 'expiration';
  if (notificationType === 'DID_CHANGE_RENEWAL_PREF') return 'product_change';
  if (notificationType === 'DID_CHANGE_RENEWAL_STATUS' && subtype === 'AUTO_RENEW_DISABLED') return 'cancellation';
  return undefined;
}

function integer(value: Record<string, unknown>, key: string): number | undefined {
  const found = field(value, key);
  return typeof found === 'number' && Number.isSafeInteger(found) ? found : undefined;
}

export const appStoreConnector: Connector<AppStoreConfig> = {
  provider: 'app-store',
  secretOf: (config) => [config.bundle_id, ...config.root_certificates].join('\n'),
  publicView: (config) => ({ bundle_id: config.bundle_id, root_certificates: rootsOf(config).map((root) => root.fingerprint256) }),
  async receive(config: AppStoreConfig, notification: Notification, context: ConnectorContext): Promise<Translation> {
    // Parsed before anything verifies (the signature is inside): MAX_UNVERIFIED_VALUES keeps a keyless caller's parse short.
    const body = object(parseJson(notification.body, MAX_UNVERIFIED_VALUES), 'the body');
    const roots = rootsOf(config);
    const payload = verifyAppleJws(field(body, 'signedPayload'), roots, context.now);
    const notificationId = text(payload, 'notificationUUID');
    const notificationType = text(payload, 'notificationType');
    const data = field(payload, 'data');
    if (data === undefined) return { kind: 'unused', type: notificationType };
    const appData = object(data, 'data');
    if (field(appData, 'bundleId') !== config.bundle_id) {
      throw new DomainError('invalid_signature', 'the notification is for another app: its bundleId is not the configured bundle_id');
    }
    const signedTransaction = field(appData, 'signedTransactionInfo');
    if (signedTransaction === undefined) return { kind: 'unused', type: notificationType };
    const transaction = verifyAppleJws(signedTransaction, roots, context.now);
    if (field(transaction, 'bundleId') !== config.bundle_id) {
      throw new DomainError('invalid_signature', 'the transaction is for another app: its bundleId is not the configured bundle_id');
    }
    const signedRenewal = field(appData, 'signedRenewalInfo');
    if (signedRenewal !== undefined) verifyAppleJws(signedRenewal, roots, context.now);
    const original = text(transaction, 'originalTransactionId');
    const type = typeOf(notificationType, field(payload, 'subtype'), transaction);
    if (type === undefined) return { kind: 'unused', type: notificationType };
    const token = field(transaction, 'appAccountToken');
    const userId = typeof token === 'string' && token !== '' ? await context.userOfAppAccountToken(token) : undefined;
    if (userId === undefined) return { kind: 'no_user', type: notificationType };
    const currency = field(transaction, 'currency');
    const price = integer(transaction, 'price');
    const moves = type === 'refund' || type === 'trial_started' || PAYMENTS.has(notificationType);
    if (moves && type !== 'trial_started' && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency) || price === undefined || price < 0)) {
      throw invalidNotification('the transaction has no price and currency');
    }
    const ts =
      (type === 'refund' ? integer(transaction, 'revocationDate') : moves ? integer(transaction, 'purchaseDate') : undefined) ??
      integer(payload, 'signedDate') ??
      context.now;
    const record: PurchaseRecord = {
      source: 'app-store',
      id: notificationId,
      userId,
      type,
      ts,
      productId: null,
      store: 'app_store',
      storeProductId: typeof transaction.productId === 'string' ? transaction.productId : null,
      // Milli-units: 9990 is 9.99 of the currency.
      revenue: moves && type !== 'trial_started' ? Number(((price ?? 0) / 1000).toFixed(3)) : 0,
      currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : 'XXX',
      transactionId: typeof transaction.transactionId === 'string' ? transaction.transactionId : null,
      originalTransactionId: original,
      paywallId: null,
    };
    return { kind: 'records', records: [record], paidPeriods: true };
  },
};
