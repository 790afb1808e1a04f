/** The SQLite backend of the storage seam: every store on one connection. */

import { SqliteEventNameStore } from '../events/names/sqlite-store.ts';
import { SqlitePhaseStore } from '../experiments/sqlite-store.ts';
import { IdentityWrites, SqliteIdentityStore } from '../identity/sqlite-store.ts';
import { SqliteIntegrationStore } from '../integrations/sqlite-store.ts';
import { SqliteKeyStore } from '../keys/sqlite-store.ts';
import { SqlitePaywallStore } from '../paywalls/sqlite-store.ts';
import { SqliteProductStore } from '../products/sqlite-store.ts';
import { SqliteProjectStore } from '../projects/sqlite-store.ts';
import { SqlitePurchaseStore } from '../purchases/sqlite-store.ts';
import type { Database } from './database.ts';
import type { Storage } from './storage.ts';

/** The stores on `db`; close() closes it. */
export function openSqliteStorage(db: Database): Storage {
  const keys = new SqliteKeyStore(db);
  const integrations = new SqliteIntegrationStore(db);
  return {
    projects: new SqliteProjectStore(db, keys),
    keys,
    products: new SqliteProductStore(db),
    paywalls: new SqlitePaywallStore(db),
    phases: new SqlitePhaseStore(db),
    identity: new SqliteIdentityStore(db),
    purchases: new SqlitePurchaseStore(db, { identity: new IdentityWrites(db), customers: integrations }),
    integrations,
    eventNames: new SqliteEventNameStore(db),
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
