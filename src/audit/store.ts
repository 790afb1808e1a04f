/**
 * The audit log: appended by every store's changes in their own
 * transactions (db/change-log.ts, which each backend's class here also
 * implements), read newest first, pruned only by the retention setting. The
 * interface every backend implements (CONTRIBUTING.md, "The storage seam").
 */
import type { Actor, ChangeEntry } from '../shared/change.ts';

export interface AuditRow extends ChangeEntry {
  seq: number;
  id: string;
  at: number;
  actor: Actor;
  ip: string | null;
}

export interface AuditFilter {
  /** One project's entries; undefined: every entry, those of no project included (the CLI). */
  project?: string;
  /** At or after (ms). */
  since?: number;
  /** At or before (ms). */
  until?: number;
  actor?: string;
  action?: string;
  target?: string;
  /** Entries older than this one (its seq): the next page. */
  before?: number;
  limit: number;
}

export interface AuditStore {
  /** Entries matching the filter, newest first, at most `limit`. */
  list(filter: AuditFilter): Promise<AuditRow[]>;
  /** Deletes entries older than `before` (ms): the retention setting's only way to remove one. Answers how many. */
  prune(before: number): Promise<number>;
}
