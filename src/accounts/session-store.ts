/**
 * Sessions and failed sign-ins, read on every request a session makes, by
 * every instance: nothing about them is kept in one instance's memory. The
 * interface every backend implements (CONTRIBUTING.md, "The storage seam").
 */
import type { Change } from '../shared/change.ts';
import type { Role } from '../shared/roles.ts';

export interface SessionRow {
  user_id: string;
  email: string;
  name: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/** A failed sign-in as the throttle counts it: per account (its email) and per client address. */
export interface Failure {
  account: string;
  ip: string;
  now: number;
}

export interface SessionStore {
  /** A session and the signed-in person's role in each of their projects; undefined for an unknown token hash. */
  find(tokenHash: string): Promise<{ session: SessionRow; roles: [project: string, role: Role][] } | undefined>;
  create(tokenHash: string, userId: string, now: number, expiresAt: number): Promise<void>;
  /** Records a use, which moves the idle expiry. */
  touch(tokenHash: string, now: number): Promise<void>;
  /** Ends a session (sign-out, or one found expired). */
  end(tokenHash: string): Promise<void>;
  /** The times of each subject's failures since `since`, oldest first (`account:EMAIL`, `ip:ADDRESS`). */
  failures(subjects: string[], since: number): Promise<number[][]>;
  /**
   * Records a failure against its account and address, forgetting theirs
   * older than `since`; when either reaches `limit` with it, appends the
   * audit entry saying sign-ins are throttled (`change`), in the same
   * transaction.
   */
  recordFailure(failure: Failure, since: number, limit: number, change: Change): Promise<void>;
  /** Deletes sessions past their absolute or idle expiry and failures older than `since`. */
  prune(now: number, idleMs: number, since: number): Promise<void>;
}
