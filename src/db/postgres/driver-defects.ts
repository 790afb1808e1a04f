import { asUnavailable } from './unavailable.ts';

/**
 * A defect of the `postgres` driver (3.4.9): a small write is deferred to a
 * setImmediate, and when the connection closes before it runs (the server
 * stopped, the backend terminated), it calls write on the null socket and
 * throws from the timer, where no caller can catch it
 * (porsager/postgres#1154, #1208; fixes proposed in #1168, #1209). The query
 * it belonged to has already failed with CONNECTION_CLOSED, and the pool
 * replaces the connection. A process (or worker thread) that uses the driver
 * lets this one error pass in its uncaughtException handler instead of
 * ending; delete this once the driver guards the write
 * (test/db/postgres-driver-defects.postgres.test.ts provokes it, and says
 * when it no longer can).
 */
function isClosedSocketWrite(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    error.message.includes("reading 'write'") &&
    /\bnextWrite\b/.test(error.stack ?? '') &&
    /[\\/]postgres[\\/]src[\\/]connection\.js/.test(error.stack ?? '')
  );
}

/**
 * Lets the driver's throw pass in this process (or worker thread), and a
 * second defect of the same kind: on each new connection the driver asks
 * for the array types (fetchArrayTypes) with no catch, so when that
 * connection is cut before the answer, the rejection reaches no caller. A
 * rejection nobody handled that is a database outage (asUnavailable) can
 * only come from there: paywalld's own queries answer theirs. Any other
 * uncaught error or unhandled rejection still ends the process, as before.
 */
export function letDriverDefectsPass(): void {
  process.on('uncaughtException', (error) => {
    if (!isClosedSocketWrite(error)) throw error;
  });
  process.on('unhandledRejection', (reason) => {
    if (asUnavailable(reason) === undefined) throw reason;
  });
}
