/**
 * Where a store's changes are recorded, inside the store method's own
 * transaction: the audit entry today (src/audit/), and whatever else must
 * commit with a change or not at all (CONTRIBUTING.md, "The storage seam").
 * Each backend's storage builder hands its stores the one implementation.
 */
import type { Change, ChangeEntry } from '../shared/change.ts';
import type { Transaction } from './postgres/connection.ts';

/** SQLite: synchronous, on the store's connection, inside the transaction `sqliteWrite` opened. */
export interface SqliteChangeLog {
  record(change: Change, entry: ChangeEntry): void;
}

/** PostgreSQL: in the transaction the store method began (`sql.begin`). */
export interface PostgresChangeLog {
  record(tx: Transaction, change: Change, entry: ChangeEntry): Promise<void>;
}
