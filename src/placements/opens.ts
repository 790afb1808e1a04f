/**
 * The placement opens frequency caps count (docs/guide/placements.md, "Frequency
 * caps"): per project, placement and user, the times of their
 * screen_impression events naming the placement, as the event writer
 * thread counted them (every instance's events, on PostgreSQL) and told
 * this thread (src/analytics/placement-opens.ts). Kept in memory for the
 * placement endpoint, which reads it without SQL.
 */
import type { PlacementOpen } from '../analytics/placement-opens.ts';
import { MAX_FREQUENCY_LIMIT } from './schema.ts';

/** One user's opens of one placement: how many in all, and the latest ones (as many as a cap may count), oldest first. */
interface Opens {
  total: number;
  recent: number[];
}

export class PlacementOpens {
  private byProject = new Map<string, Map<string, Map<string, Opens>>>();

  /** What the writer thread said: every open it holds (`full`: replaces what was counted), or the new ones. */
  take(full: boolean, opens: readonly PlacementOpen[]): void {
    if (full) this.byProject = new Map();
    for (const [projectId, placementId, userId, ts] of opens) this.add(projectId, placementId, userId, ts);
  }

  private add(projectId: string, placementId: string, userId: string, ts: number): void {
    let placements = this.byProject.get(projectId);
    if (!placements) this.byProject.set(projectId, (placements = new Map()));
    let users = placements.get(placementId);
    if (!users) placements.set(placementId, (users = new Map()));
    let opens = users.get(userId);
    if (!opens) users.set(userId, (opens = { total: 0, recent: [] }));
    opens.total++;
    const { recent } = opens;
    // Nearly always the newest: inserted from the end.
    let at = recent.length;
    while (at > 0 && recent[at - 1]! > ts) at--;
    recent.splice(at, 0, ts);
    if (recent.length > MAX_FREQUENCY_LIMIT) recent.shift();
  }

  /**
   * The user's opens of the placement at or after `since` (ms; 0 for every
   * one). Exact up to MAX_FREQUENCY_LIMIT, the most a cap counts to.
   */
  count(projectId: string, placementId: string, userId: string, since: number): number {
    const opens = this.byProject.get(projectId)?.get(placementId)?.get(userId);
    if (!opens) return 0;
    if (since <= 0) return opens.total;
    const { recent } = opens;
    let count = 0;
    for (let i = recent.length - 1; i >= 0 && recent[i]! >= since; i--) count++;
    return count;
  }
}
