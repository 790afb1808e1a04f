/** The SQLite backend of the storage seam: every store on one connection. */

import { SqliteSessionStore } from '../accounts/sqlite-session-store.ts';
import { SqliteAccountStore } from '../accounts/sqlite-store.ts';
import { SqliteAuditStore } from '../audit/sqlite-store.ts';
import type { Database } from '../db/database.ts';
import { SqliteEventNameStore } from '../events/names/sqlite-store.ts';
import { SqlitePhaseStore } from '../experiments/sqlite-store.ts';
import { IdentityWrites, SqliteIdentityStore } from '../identity/sqlite-store.ts';
import { SqliteIntegrationStore } from '../integrations/sqlite-store.ts';
import { SqliteKeyStore } from '../keys/sqlite-store.ts';
import { SqlitePaywallStore } from '../paywalls/sqlite-store.ts';
import { SqlitePlacementStore } from '../placements/sqlite-store.ts';
import { SqliteProductStore } from '../products/sqlite-store.ts';
import { SqliteProjectStore } from '../projects/sqlite-store.ts';
import { SqlitePurchaseStore } from '../purchases/sqlite-store.ts';
import { SqliteOutbox } from '../webhooks/sqlite-outbox.ts';
import { SqliteWebhookStore } from '../webhooks/sqlite-store.ts';
import type { Storage } from './storage.ts';

/** The stores on `db`; close() closes it. */
export function openSqliteStorage(db: Database): Storage {
  // Every store records its changes through the audit log on the same connection, inside its own transaction.
  // The change log they record through is the webhooks' outbox: it appends the entry, then queues the change's events, in that transaction.
  const auditLog = new SqliteAuditStore(db);
  const audit = new SqliteOutbox(db, auditLog);
  const keys = new SqliteKeyStore(db, audit);
  const integrations = new SqliteIntegrationStore(db, audit);
  return {
    projects: new SqliteProjectStore(db, keys, audit),
    keys,
    products: new SqliteProductStore(db, audit),
    paywalls: new SqlitePaywallStore(db, audit),
    phases: new SqlitePhaseStore(db),
    identity: new SqliteIdentityStore(db),
    purchases: new SqlitePurchaseStore(db, { identity: new IdentityWrites(db), customers: integrations, outbox: audit }),
    integrations,
    placements: new SqlitePlacementStore(db, audit),
    audit: auditLog,
    accounts: new SqliteAccountStore(db, audit),
    sessions: new SqliteSessionStore(db, audit),
    webhooks: new SqliteWebhookStore(db, audit, audit),
    outbox: audit,
    eventNames: new SqliteEventNameStore(db, audit),
    // Store methods inside become savepoints of this one transaction. Nothing else may use the
    // connection meanwhile: the steps await only this connection's stores.
    atomically: async <T>(steps: () => Promise<T>): Promise<T> => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await steps();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    close: async () => {
      db.close();
    },
  };
}
