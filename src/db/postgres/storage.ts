/** The PostgreSQL backend of the storage seam: every store on one pool. */

import { PostgresEventNameStore } from '../../events/names/postgres-store.ts';
import { PostgresPhaseStore } from '../../experiments/postgres-store.ts';
import { PostgresIdentityStore, PostgresIdentityWrites } from '../../identity/postgres-store.ts';
import { PostgresIntegrationStore } from '../../integrations/postgres-store.ts';
import { PostgresKeyStore } from '../../keys/postgres-store.ts';
import { PostgresPaywallStore } from '../../paywalls/postgres-store.ts';
import { PostgresProductStore } from '../../products/postgres-store.ts';
import { PostgresProjectStore } from '../../projects/postgres-store.ts';
import { PostgresPurchaseStore } from '../../purchases/postgres-store.ts';
import type { Storage } from '../storage.ts';
import { closePool, type Sql } from './connection.ts';

/**
 * The stores on `sql`; close() closes the pool. No `atomically`: a
 * transaction across store calls would hold a connection, and its locks,
 * while the caller awaits other work, so `paywalld apply` goes step by
 * step, as against a server.
 */
export function openPostgresStorage(sql: Sql): Storage {
  const keys = new PostgresKeyStore(sql);
  const integrations = new PostgresIntegrationStore(sql);
  return {
    projects: new PostgresProjectStore(sql, keys),
    keys,
    products: new PostgresProductStore(sql),
    paywalls: new PostgresPaywallStore(sql),
    phases: new PostgresPhaseStore(sql),
    identity: new PostgresIdentityStore(sql),
    purchases: new PostgresPurchaseStore(sql, { identity: new PostgresIdentityWrites(), customers: integrations }),
    integrations,
    eventNames: new PostgresEventNameStore(sql),
    atomically: undefined,
    close: () => closePool(sql),
  };
}
