/** The PostgreSQL backend of the storage seam: every store on one pool. */

import { PostgresSessionStore } from '../accounts/postgres-session-store.ts';
import { PostgresAccountStore } from '../accounts/postgres-store.ts';
import { PostgresAuditStore } from '../audit/postgres-store.ts';
import { closePool, type Sql } from '../db/postgres/connection.ts';
import { PostgresEventNameStore } from '../events/names/postgres-store.ts';
import { PostgresPhaseStore } from '../experiments/postgres-store.ts';
import { PostgresIdentityStore, PostgresIdentityWrites } from '../identity/postgres-store.ts';
import { PostgresIntegrationStore } from '../integrations/postgres-store.ts';
import { PostgresKeyStore } from '../keys/postgres-store.ts';
import { PostgresPaywallStore } from '../paywalls/postgres-store.ts';
import { PostgresPlacementStore } from '../placements/postgres-store.ts';
import { PostgresProductStore } from '../products/postgres-store.ts';
import { PostgresProjectStore } from '../projects/postgres-store.ts';
import { PostgresPurchaseStore } from '../purchases/postgres-store.ts';
import { PostgresOutbox } from '../webhooks/postgres-outbox.ts';
import { PostgresWebhookStore } from '../webhooks/postgres-store.ts';
import type { Storage } from './storage.ts';

/**
 * The stores on `sql`; close() closes the pool. No `atomically`: a
 * transaction across store calls would hold a connection, and its locks,
 * while the caller awaits other work, so `paywalld apply` goes step by
 * step, as against a server.
 */
export function openPostgresStorage(sql: Sql): Storage {
  // Every store records its changes through the audit log, in its own transaction.
  // The change log they record through is the webhooks' outbox: it appends the entry, then queues the change's events, in that transaction.
  const auditLog = new PostgresAuditStore(sql);
  const audit = new PostgresOutbox(sql, auditLog);
  const keys = new PostgresKeyStore(sql, audit);
  const integrations = new PostgresIntegrationStore(sql, audit);
  return {
    projects: new PostgresProjectStore(sql, keys, audit),
    keys,
    products: new PostgresProductStore(sql, audit),
    paywalls: new PostgresPaywallStore(sql, audit),
    phases: new PostgresPhaseStore(sql),
    identity: new PostgresIdentityStore(sql),
    purchases: new PostgresPurchaseStore(sql, { identity: new PostgresIdentityWrites(), customers: integrations, outbox: audit }),
    integrations,
    placements: new PostgresPlacementStore(sql, audit),
    audit: auditLog,
    accounts: new PostgresAccountStore(sql, audit),
    sessions: new PostgresSessionStore(sql, audit),
    webhooks: new PostgresWebhookStore(sql, audit, audit),
    outbox: audit,
    eventNames: new PostgresEventNameStore(sql, audit),
    atomically: undefined,
    close: () => closePool(sql),
  };
}
