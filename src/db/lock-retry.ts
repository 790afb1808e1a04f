import { asUnavailable, isLockContention } from './unavailable.ts';

/** How long a request may wait for a lock another process holds before it is answered 503. */
export const LOCK_WAIT_MS = 750;
/** Pauses between attempts: short at first (the event writer's commits take milliseconds), then every 100 ms. */
const PAUSES_MS = [2, 5, 10, 20, 40, 80, 100];

interface RetryOptions {
  /** Called once, synchronously, before the first wait: whatever the next attempts need from the current call stack must be kept now. */
  beforeWaiting?: () => void;
}

/**
 * Runs `attempt`, and when SQLite answers that another connection holds the
 * lock, runs it again after a pause, until it succeeds or `waitMs` passed.
 * The server's connection has busy_timeout 0 (see db/database.ts): SQLite's
 * own wait would block the event loop, and with it every resolve, for as long
 * as the lock is held. Waiting here is a timer, so other requests are served
 * meanwhile; past LOCK_WAIT_MS the answer is `database_unavailable`. Other database failures (full, read-only, I/O) become
 * `database_unavailable` at once. An attempt that fails with the lock must
 * have had no effect, which holds for a transaction: it rolls back whole.
 */
export function retryWhileLocked<T>(attempt: () => T | Promise<T>, options: RetryOptions = {}): T | Promise<T> {
  let result: T | Promise<T>;
  try {
    result = attempt();
  } catch (error) {
    if (!isLockContention(error)) throw asUnavailable(error) ?? error;
    // Counted from the first refusal: the path that meets no lock (every resolve) pays no clock read.
    const deadline = Date.now() + LOCK_WAIT_MS;
    options.beforeWaiting?.();
    return retryLater(attempt, deadline, error);
  }
  // An asynchronous attempt is not tried again: what it read from the request may be gone by now.
  return result instanceof Promise
    ? result.catch((error: unknown) => {
        throw asUnavailable(error) ?? error;
      })
    : result;
}

async function retryLater<T>(attempt: () => T | Promise<T>, deadline: number, last: unknown): Promise<T> {
  for (let i = 0; Date.now() < deadline; i++) {
    const pause = Math.min(PAUSES_MS[Math.min(i, PAUSES_MS.length - 1)]!, Math.max(0, deadline - Date.now()));
    await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      return await attempt();
    } catch (error) {
      if (!isLockContention(error)) throw asUnavailable(error) ?? error;
      last = error;
    }
  }
  throw asUnavailable(last)!;
}
