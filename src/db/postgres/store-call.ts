import { asUnavailable } from './unavailable.ts';

/**
 * Runs one store method's queries (one transaction, or one statement),
 * turning the database's own failures into database_unavailable, as SQLite's
 * store methods do (db/sqlite-transaction.ts); any other error goes through
 * as it is.
 */
export async function storeCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asUnavailable(error) ?? error;
  }
}
