/**
 * How a SQLite store method runs: as one transaction, retried while another
 * connection holds the lock, with database failures turned into
 * `database_unavailable` (db/lock-retry.ts). A store method is the unit a
 * retry repeats, so it must be one transaction and read nothing from its
 * caller after it started: what it needs comes in its arguments.
 */
import type { Database } from './database.ts';
import { retryWhileLocked } from './lock-retry.ts';

/**
 * `fn` as a store method: one IMMEDIATE transaction (what it reads stays true
 * until it has written), retried while locked. Inside a transaction already
 * open on the connection (Storage.atomically) it becomes a savepoint.
 */
export function sqliteWrite<A extends unknown[], T>(db: Database, fn: (...args: A) => T): (...args: A) => Promise<T> {
  const transaction = db.transaction(fn);
  return async (...args) => retryWhileLocked(() => transaction.immediate(...args));
}

/** `fn` as a store method that only reads: one DEFERRED transaction, so that its statements see one snapshot. */
export function sqliteRead<A extends unknown[], T>(db: Database, fn: (...args: A) => T): (...args: A) => Promise<T> {
  const transaction = db.transaction(fn);
  return async (...args) => retryWhileLocked(() => transaction.deferred(...args));
}
