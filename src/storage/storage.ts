/**
 * The storage seam: every configuration store of one database, whatever the
 * backend (CONTRIBUTING.md, "The storage seam"). Each store method is one
 * transaction and returns a Promise; no transaction spans two calls. The
 * SQLite backend is built by openSqliteStorage (sqlite.ts), the PostgreSQL one by
 * openPostgresStorage (postgres.ts).
 */

import type { SessionStore } from '../accounts/session-store.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { AuditStore } from '../audit/store.ts';
import type { EventNameStore } from '../events/names/store.ts';
import type { PhaseStore } from '../experiments/store.ts';
import type { IdentityStore } from '../identity/store.ts';
import type { IntegrationStore } from '../integrations/store.ts';
import type { KeyStore } from '../keys/store.ts';
import type { PaywallStore } from '../paywalls/store.ts';
import type { PlacementStore } from '../placements/store.ts';
import type { ProductStore } from '../products/store.ts';
import type { ProjectStore } from '../projects/store.ts';
import type { PurchaseStore } from '../purchases/store.ts';
import type { OutboxStore, WebhookStore } from '../webhooks/store.ts';

export interface Storage {
  readonly projects: ProjectStore;
  readonly keys: KeyStore;
  readonly products: ProductStore;
  readonly paywalls: PaywallStore;
  readonly phases: PhaseStore;
  readonly identity: IdentityStore;
  readonly purchases: PurchaseStore;
  readonly integrations: IntegrationStore;
  readonly placements: PlacementStore;
  /** Appended by the other stores' changes, in their transactions (db/change-log.ts). */
  readonly audit: AuditStore;
  /** People, their roles per project, invitations. */
  readonly accounts: AccountStore;
  /** Sessions and failed sign-ins. */
  readonly sessions: SessionStore;
  /** Outgoing webhooks' endpoints, and their deliveries as listed. */
  readonly webhooks: WebhookStore;
  /** The deliveries the sender claims; queued by the other stores' changes, in their transactions. */
  readonly outbox: OutboxStore;
  readonly eventNames: EventNameStore;
  /**
   * Runs `steps` (store calls) so that they all take effect or none does,
   * where the backend can: SQLite wraps them in one transaction on a
   * connection nothing else uses meanwhile (a CLI command, `serve --seed`
   * before the port opens). Undefined where it cannot: `paywalld apply`
   * then goes step by step, as against a server.
   */
  readonly atomically: (<T>(steps: () => Promise<T>) => Promise<T>) | undefined;
  /** Closes the connection (or pool); every store fails afterwards. */
  close(): Promise<void>;
}
