/**
 * Optimistic concurrency between a service and its store. A service reads,
 * checks its rules (preconditions, validation) and hands the store the
 * version it read; the store writes in one transaction only if the row is
 * still at that version, else it answers `STALE` and the service reads and
 * checks again. No transaction stays open while the service thinks, which a
 * store on a server (PostgreSQL) could not afford.
 */
import { DomainError } from './errors.ts';

export const STALE = Symbol('stale');
export type Stale = typeof STALE;

/** Attempts before giving up: each stale answer means another writer committed to the same row meanwhile. */
const ATTEMPTS = 20;

/** Runs `attempt` until its store write was not stale. */
export async function untilCurrent<T>(attempt: () => Promise<T | Stale>): Promise<T> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== STALE) return result;
  }
  throw new DomainError('database_unavailable', 'the resource keeps changing under this write; try again', { retryAfterSeconds: 1 });
}
