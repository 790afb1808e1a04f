import { MAX_REVENUE } from '../events/schema.ts';
import { EARLIEST_MS, MAX_AHEAD_MS } from '../events/time.ts';
import type { IdentityService } from '../identity/service.ts';
import type { Logger } from '../log.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { isRevenue } from '../purchases/schema.ts';
import type { PurchaseService } from '../purchases/service.ts';
import { DomainError } from '../shared/errors.ts';
import { isStorableText } from '../shared/text.ts';
import type { IntegrationConfiguration } from './configuration.ts';
import type { ConnectorContext, Notification, Translation } from './connector.ts';
import { signatureChecksMade } from './providers/apple-x5c.ts';
import type { GoogleApis } from './providers/google-play-api.ts';
import type { Provider } from './schema.ts';
import type { IntegrationStore } from './store.ts';

export const HOOK_OUTCOMES = ['stored', 'duplicate', 'unused_type', 'no_user', 'refused', 'invalid', 'unavailable'] as const;
type HookOutcome = (typeof HOOK_OUTCOMES)[number];

/**
 * Whether every string a translation would store is storable text (src/shared/text.ts): a store's ids
 * and the app's user ids in its metadata come from outside, as a client's do.
 */
function storable({ records, customer, aliases }: Extract<Translation, { kind: 'records' }>): boolean {
  const texts = [...records.flatMap((record) => Object.values(record)), customer?.id, customer?.userId, ...(aliases ? [...aliases.ids, aliases.userId] : [])];
  return texts.every((text) => typeof text !== 'string' || isStorableText(text));
}

/** A record whose amount is past the bound every source has (isRevenue): 1e308 from RevenueCat, 2^53−1 cents from Stripe. */
function outOfBounds(): DomainError {
  return new DomainError('invalid_notification', `the notification holds an amount that is not a number from 0 to ${MAX_REVENUE} in major units`);
}

/** The bound of every record's time, as POST /api/purchases has it: from 2000-01-01 to 24 hours past the time of receipt. */
function inTime(ts: number, now: number): boolean {
  return ts >= EARLIEST_MS && ts <= now + MAX_AHEAD_MS;
}

function outOfTime(): DomainError {
  return new DomainError('invalid_notification', 'the notification holds a time before 2000-01-01 or more than 24 hours ahead of the server');
}

function unstorable(): DomainError {
  return new DomainError('invalid_notification', 'the notification holds text the server cannot store: NUL (U+0000) or a lone surrogate');
}

/**
 * A lookup a connector makes with text from the notification (a customer id, a token, a subscription id):
 * refused like text it would store, before any database reads it (PostgreSQL fails a statement holding NUL).
 */
function lookingUp<T>(lookup: (key: string) => Promise<T>): (key: string) => Promise<T> {
  return (key) => (isStorableText(key) ? lookup(key) : Promise.reject(unstorable()));
}

/** The notifications the store connectors receive: verified, translated, stored. */
export class IntegrationService {
  private readonly counted: (provider: Provider, outcome: HookOutcome) => void;

  constructor(
    readonly configuration: IntegrationConfiguration,
    private readonly store: IntegrationStore,
    private readonly purchases: PurchaseService,
    private readonly identity: IdentityService,
    metrics: MetricsRegistry,
    private readonly log: Logger,
    private readonly google: GoogleApis,
  ) {
    const counter = metrics.counter(
      'paywalld_store_notifications_total',
      'Store notifications received at /hooks, by provider and outcome (unused_type: a type paywalld does not use, answered 200).',
    );
    this.counted = (provider, outcome) => counter.labels({ provider, outcome }).inc();
    metrics.gauge(
      'paywalld_store_signature_checks_total',
      "Signature checks made on App Store notifications (their chains' certificates and the JWS): a chain that cannot reach a configured root costs none.",
      () => [[{ provider: 'app-store' }, signatureChecksMade()]],
      'counter',
    );
  }

  /**
   * One notification: verified (invalid_signature otherwise, nothing stored), translated, and its
   * records stored in one durable transaction before this returns.
   */
  async receive(provider: string, projectId: string, notification: Notification): Promise<{ outcome: HookOutcome; stored: number }> {
    const { connector, config } = await this.configuration.configured(projectId, provider);
    const context: ConnectorContext = {
      now: Date.now(),
      userOfCustomer: lookingUp((customer) => this.store.userOfCustomer(projectId, connector.provider, customer)),
      userOfAppAccountToken: lookingUp((token) => this.identity.userOfAppAccountToken(projectId, token)),
      google: this.google,
    };
    let outcome: HookOutcome;
    let inserted = 0;
    try {
      const translation = await connector.receive(config, notification, context);
      if (translation.kind === 'unused') {
        outcome = 'unused_type';
        if (translation.warn)
          this.log.warn('store notification acknowledged, nothing stored', { provider, project: projectId, type: translation.type, why: translation.warn });
      } else if (translation.kind === 'no_user') {
        outcome = 'no_user';
        this.log.warn('store notification names no known user; nothing stored', { provider, project: projectId, type: translation.type });
      } else {
        if (!storable(translation)) throw unstorable();
        if (!translation.records.every((record) => isRevenue(record.revenue))) throw outOfBounds();
        if (!translation.records.every((record) => inTime(record.ts, context.now))) throw outOfTime();
        const { records, customer, aliases, cumulativeRefunds, paidPeriods } = translation;
        inserted =
          records.length === 0
            ? 0
            : await this.purchases
                .record(projectId, {
                  records,
                  receivedAt: context.now,
                  ...(customer && { customer: { provider: connector.provider, ...customer } }),
                  ...(aliases && { aliases }),
                  ...(cumulativeRefunds && { cumulativeRefunds }),
                  ...(paidPeriods && { paidPeriods }),
                })
                .then((result) => result.inserted);
        outcome = inserted < records.length || records.length === 0 ? 'duplicate' : 'stored';
      }
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_signature') this.counted(connector.provider, 'refused');
      if (error instanceof DomainError && error.code === 'invalid_notification') this.counted(connector.provider, 'invalid');
      if (error instanceof DomainError && error.code === 'store_unavailable') {
        this.counted(connector.provider, 'unavailable');
        this.log.warn('store notification not stored: the store did not answer; it will be delivered again', {
          provider,
          project: projectId,
          why: error.message,
        });
      }
      throw error;
    }
    this.counted(connector.provider, outcome);
    return { outcome, stored: inserted };
  }
}
