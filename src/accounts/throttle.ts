/**
 * The sign-in throttle (docs/guide/teams.md): after 5 failed sign-ins in 15
 * minutes, for one account (its email, known or not) or from one client
 * address, sign-ins are refused with 429 until the oldest of them is 15
 * minutes old. The failures are stored, so every instance counts the same.
 */
import type { Failure } from './session-store.ts';

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const THROTTLE_LIMIT = 5;

/** What a failure that brings its account's or address's count to the limit throttles, for its audit entry; undefined otherwise. */
export function throttledWhat(failure: Failure, [account, ip]: number[], limit: number): string | undefined {
  const reached = [account === limit ? `the account ${failure.account}` : '', ip === limit ? `the address ${failure.ip}` : ''].filter((what) => what !== '');
  return reached.length === 0 ? undefined : `${reached.join(' and ')} after ${limit} failed sign-ins in 15 minutes`;
}

/** Seconds until a subject with these failure times (oldest first, all within the window) is below the limit again; 0 when it is. */
export function retryAfterSeconds(times: readonly number[], now: number): number {
  if (times.length < THROTTLE_LIMIT) return 0;
  // Once this one leaves the window, fewer than the limit remain.
  const freeing = times[times.length - THROTTLE_LIMIT]!;
  return Math.max(1, Math.ceil((freeing + THROTTLE_WINDOW_MS - now) / 1000));
}
