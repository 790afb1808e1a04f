/**
 * Stripe webhooks (docs/guide/revenue.md, "Stripe"). A notification is verified
 * from the `Stripe-Signature` header (`t=…,v1=…[,v1=…]`): HMAC-SHA256 of
 * `t + "." + raw body` with the endpoint's signing secret; any v1 may match
 * (Stripe sends two while a secret is rolled), and a `t` more than 300 s
 * from now is refused, so that a captured request cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PurchaseRecord, PurchaseType } from '../../purchases/schema.ts';
import { minorUnitExponent, toMajorUnits } from '../../shared/currency.ts';
import { DomainError } from '../../shared/errors.ts';
import type { Connector, ConnectorContext, Notification, Translation } from '../connector.ts';
import type { StripeConfig } from '../schema.ts';
import { field, invalidNotification, object, parseJson, text } from './json-fields.ts';

const STRIPE_TOLERANCE_SECONDS = 300;

function refused(why: string): DomainError {
  return new DomainError('invalid_signature', `the Stripe-Signature header does not verify: ${why}`);
}

/** Throws invalid_signature unless the header signs this body with the secret within the tolerance. */
function verifyStripeSignature(header: string, body: Buffer, secret: string, nowMs: number): void {
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  let malformed = false;
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
    else if (key === 'v1') malformed = true;
  }
  if (signatures.length === 0 && malformed) throw refused('its v1= is malformed: an HMAC-SHA256 in hex is 64 hex digits');
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) throw refused('it needs t= and at least one v1=');
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > STRIPE_TOLERANCE_SECONDS) {
    throw refused(`its timestamp is more than ${STRIPE_TOLERANCE_SECONDS} s away from the server's clock`);
  }
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  if (!signatures.some((signature) => timingSafeEqual(signature, expected))) throw refused('no v1 signature matches');
}

/** Stripe's minor units: ISO 4217's exponent, but ISK stays two-decimal in Stripe's API (100 is 1 króna). */
function stripeAmount(minor: unknown, currency: string): number {
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor) || minor < 0) throw invalidNotification('an amount is not a whole number of minor units');
  return toMajorUnits(minor, currency === 'ISK' ? 2 : minorUnitExponent(currency));
}

function currencyOf(object: Record<string, unknown>): string {
  const currency = text(object, 'currency');
  if (!/^[a-z]{3}$/i.test(currency)) throw invalidNotification('currency is not an ISO 4217 code');
  return currency.toUpperCase();
}

function metadataUser(object: Record<string, unknown> | undefined): string | undefined {
  const metadata = object && field(object, 'metadata');
  const user = metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>).paywalld_user_id : undefined;
  return typeof user === 'string' && user !== '' ? user : undefined;
}

function optionalText(object: Record<string, unknown>, key: string): string | null {
  const value = field(object, key);
  return typeof value === 'string' && value !== '' ? value : null;
}

function record(
  eventId: string,
  userId: string,
  type: PurchaseType,
  ts: number,
  revenue: number,
  currency: string,
  extra: Partial<PurchaseRecord>,
): PurchaseRecord {
  return {
    source: 'stripe',
    id: eventId,
    userId,
    type,
    ts,
    productId: null,
    store: 'stripe',
    storeProductId: null,
    revenue,
    currency,
    transactionId: null,
    originalTransactionId: null,
    paywallId: null,
    ...extra,
  };
}

/** The parts of the session's metadata paywalld reads: the product and the paywall to credit. */
function sessionExtras(session: Record<string, unknown>): Partial<PurchaseRecord> {
  const metadata = field(session, 'metadata');
  const read = (key: string) => {
    const value = metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' && value !== '' ? value : null;
  };
  return { productId: read('paywalld_product_id'), paywallId: read('paywalld_paywall_id') };
}

function checkoutCompleted(eventId: string, ts: number, session: Record<string, unknown>): Translation {
  // A delayed payment method (a bank debit) completes the session unpaid: no money moved yet.
  if (field(session, 'payment_status') === 'unpaid') return { kind: 'unused', type: 'checkout.session.completed (unpaid)' };
  const userId = optionalText(session, 'client_reference_id') ?? metadataUser(session);
  if (userId === undefined || userId === null) return { kind: 'no_user', type: 'checkout.session.completed' };
  const currency = currencyOf(session);
  const amount = stripeAmount(field(session, 'amount_total'), currency);
  const subscription = optionalText(session, 'subscription');
  const type: PurchaseType = subscription === null ? 'non_renewing_purchase' : amount === 0 ? 'trial_started' : 'initial_purchase';
  const customer = optionalText(session, 'customer');
  return {
    kind: 'records',
    records: [
      record(eventId, userId, type, ts, amount, currency, {
        ...sessionExtras(session),
        transactionId: optionalText(session, 'invoice') ?? optionalText(session, 'payment_intent') ?? text(session, 'id'),
        originalTransactionId: subscription,
      }),
    ],
    ...(customer === null ? {} : { customer: { id: customer, userId } }),
  };
}

/** The subscription of an invoice and its metadata: `parent.subscription_details` since API 2025-03-31, top-level fields before. */
function invoiceSubscription(invoice: Record<string, unknown>): { id: string | null; metadata: Record<string, unknown> | undefined } {
  const parent = field(invoice, 'parent');
  const details =
    (parent && typeof parent === 'object' ? (parent as Record<string, unknown>).subscription_details : undefined) ?? field(invoice, 'subscription_details');
  const detailsObject = details && typeof details === 'object' ? (details as Record<string, unknown>) : undefined;
  const id = (detailsObject && optionalText(detailsObject, 'subscription')) ?? optionalText(invoice, 'subscription');
  return { id, metadata: detailsObject };
}

async function invoicePaid(eventId: string, ts: number, invoice: Record<string, unknown>, context: ConnectorContext): Promise<Translation> {
  // The first invoice of a subscription is the checkout's payment, recorded from checkout.session.completed.
  if (field(invoice, 'billing_reason') === 'subscription_create') return { kind: 'unused', type: 'invoice.paid (subscription_create)' };
  const subscription = invoiceSubscription(invoice);
  const customer = optionalText(invoice, 'customer');
  const userId = metadataUser(subscription.metadata) ?? metadataUser(invoice) ?? (customer === null ? undefined : await context.userOfCustomer(customer));
  if (userId === undefined) return { kind: 'no_user', type: 'invoice.paid' };
  const currency = currencyOf(invoice);
  const amount = stripeAmount(field(invoice, 'amount_paid'), currency);
  if (amount === 0) return { kind: 'unused', type: 'invoice.paid (nothing paid)' };
  // A subscription's payment is a conversion or a renewal by what came before it: the store decides, in the insert's transaction.
  const type = subscription.id === null ? 'non_renewing_purchase' : 'renewal';
  return {
    kind: 'records',
    records: [record(eventId, userId, type, ts, amount, currency, { transactionId: text(invoice, 'id'), originalTransactionId: subscription.id })],
    paidPeriods: true,
  };
}

async function chargeRefunded(eventId: string, ts: number, charge: Record<string, unknown>, context: ConnectorContext): Promise<Translation> {
  const customer = optionalText(charge, 'customer');
  const userId = metadataUser(charge) ?? (customer === null ? undefined : await context.userOfCustomer(customer));
  if (userId === undefined) return { kind: 'no_user', type: 'charge.refunded' };
  const currency = currencyOf(charge);
  // amount_refunded is the charge's total so far: the store records what is new since the refunds it holds, in the insert's transaction.
  const total = stripeAmount(field(charge, 'amount_refunded'), currency);
  const decimals = currency === 'ISK' ? 2 : minorUnitExponent(currency);
  return {
    kind: 'records',
    records: [record(eventId, userId, 'refund', ts, total, currency, { transactionId: text(charge, 'id') })],
    cumulativeRefunds: { decimals },
  };
}

export const stripeConnector: Connector<StripeConfig> = {
  provider: 'stripe',
  secretOf: (config) => config.signing_secret,
  publicView: () => ({}),
  async receive(config: StripeConfig, notification: Notification, context: ConnectorContext): Promise<Translation> {
    verifyStripeSignature(notification.header('stripe-signature'), notification.body, config.signing_secret, context.now);
    const event = object(parseJson(notification.body), 'the event');
    const eventId = text(event, 'id');
    const type = text(event, 'type');
    const created = field(event, 'created');
    const ts = typeof created === 'number' && Number.isSafeInteger(created) ? created * 1000 : context.now;
    const data = object(field(event, 'data'), 'data');
    const subject = object(field(data, 'object'), 'data.object');
    if (type === 'checkout.session.completed') return checkoutCompleted(eventId, ts, subject);
    if (type === 'invoice.paid') return invoicePaid(eventId, ts, subject, context);
    if (type === 'charge.refunded') return chargeRefunded(eventId, ts, subject, context);
    return { kind: 'unused', type };
  },
};
