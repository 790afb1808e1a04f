import type { PurchaseRecord } from '../purchases/schema.ts';
import type { GoogleApis } from './providers/google-play-api.ts';
import type { Provider } from './schema.ts';

/** One notification as the hook route received it: the raw bytes (signatures cover them; parsed only after they verify, where they can be) and its headers. */
export interface Notification {
  body: Buffer;
  header(name: string): string;
}

/** What a connector may ask about the project while translating a notification. */
export interface ConnectorContext {
  now: number;
  userOfCustomer(customer: string): Promise<string | undefined>;
  userOfAppAccountToken(token: string): Promise<string | undefined>;
  /** Google's keys and APIs with their caches, the server's: what the Google Play connector calls. */
  google: GoogleApis;
}

/** What a verified notification comes to. */
export type Translation =
  /** Records to store (a refund already counted is stored as nothing), with what belongs with them. */
  | {
      kind: 'records';
      records: PurchaseRecord[];
      customer?: { id: string; userId: string };
      aliases?: { ids: string[]; userId: string };
      /** The refund records carry the payment's running total, stored as what is new (PurchaseBatch.cumulativeRefunds). */
      cumulativeRefunds?: { decimals: number };
      /** Paid periods of subscriptions, typed by the store from the records before them (PurchaseBatch.paidPeriods). */
      paidPeriods?: true;
    }
  /** An event type paywalld does not use: answered 200 so that the store does not retry it, and counted; logged when `warn` says why it is worth a look (a type paywalld does not know). */
  | { kind: 'unused'; type: string; warn?: string }
  /** A type it uses, but the notification names no user paywalld knows: answered 200, counted and logged. */
  | { kind: 'no_user'; type: string };

/**
 * A store connector: checks that a notification comes from the store (a
 * failure throws invalid_signature, before anything is parsed or stored) and
 * translates it into purchase records.
 */
export interface Connector<Config> {
  readonly provider: Provider;
  /** The configuration's secret part, for the fingerprint GET shows. */
  secretOf(config: Config): string;
  /** What GET may show of the configuration beside the fingerprint. */
  publicView(config: Config): Record<string, unknown>;
  receive(config: Config, notification: Notification, context: ConnectorContext): Translation | Promise<Translation>;
}
