import { asUnavailable, isLockContention } from './unavailable.ts';

/** How long a request may wait for a lock another process holds before it is answered 503. */
export const LOCK_WAIT_MS = 750;
/** Pauses between attempts: short at first (the event writer's commits take milliseconds), then every 100 ms. */
const PAUSES_MS = [2, 5, 10, 20, 40, 80, 100];

/**
 * Runs `attempt` (one transaction of a SQLite store method, db/sqlite-transaction.ts),
 * and when SQLite answers that another connection holds the lock, runs it
 * again after a pause, until it succeeds or LOCK_WAIT_MS passed.
 * The server's connection has busy_timeout 0 (see db/database.ts): SQLite's
 * own wait would block the event loop, and with it every resolve, for as long
 * as the lock is held. Waiting here is a timer, so other requests are served
 * meanwhile; past LOCK_WAIT_MS the answer is `database_unavailable`. Other database failures (full, read-only, I/O) become
 * `database_unavailable` at once. An attempt that fails with the lock must
 * have had no effect, which holds for a transaction: it rolls back whole.
 */
export function retryWhileLocked<T>(attempt: () => T): T | Promise<T> {
  try {
    return attempt();
  } catch (error) {
    if (!isLockContention(error)) throw asUnavailable(error) ?? error;
    // Counted from the first refusal: the path that meets no lock pays no clock read.
    return retryLater(attempt, Date.now() + LOCK_WAIT_MS, error);
  }
}

async function retryLater<T>(attempt: () => T, deadline: number, last: unknown): Promise<T> {
  for (let i = 0; Date.now() < deadline; i++) {
    const pause = Math.min(PAUSES_MS[Math.min(i, PAUSES_MS.length - 1)]!, Math.max(0, deadline - Date.now()));
    await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      return attempt();
    } catch (error) {
      if (!isLockContention(error)) throw asUnavailable(error) ?? error;
      last = error;
    }
  }
  throw asUnavailable(last)!;
}
