/**
 * The purchase records of `POST /api/purchases` and the store connectors
 * (src/purchases/), and the identity links of `identify` (src/identity/), as
 * experiment results read them: the writer thread reads them on its own
 * connection when a result is asked, only the records stored since its
 * last read, and joins both to the users of the events (docs/revenue.md,
 * "Attribution").
 */
import type { Database } from '../../db/database.ts';
import type { UserDictionary } from '../../events/derived/users.ts';

export interface PurchaseRow {
  seq: number;
  user_id: string;
  type: string;
  ts: number;
  revenue: number;
  currency: string;
  paywall_id: string | null;
}

/** Where the records and links come from: the database, read by the writer thread. */
export class PurchaseFeed {
  private readonly since;
  private readonly linkCount;
  private readonly linksOf;

  constructor(db: Database) {
    this.since = db.prepare<[string, number], PurchaseRow>(
      'SELECT seq, user_id, type, ts, revenue, currency, paywall_id FROM purchases WHERE project_id = ? AND seq > ? ORDER BY seq',
    );
    this.linkCount = db.prepare<[string], number>('SELECT count(*) FROM user_links WHERE project_id = ?').pluck();
    this.linksOf = db.prepare<[string], { anonymous_id: string; user_id: string }>('SELECT anonymous_id, user_id FROM user_links WHERE project_id = ?');
  }

  /** The records of a project stored after `seq`, in order of storage. */
  recordsSince(projectId: string, seq: number): PurchaseRow[] {
    return this.since.all(projectId, seq);
  }

  /** Links are only ever added (the first link of an anonymous id stays): their count tells a change. */
  links(projectId: string): { count: number; read: () => Map<string, string> } {
    return {
      count: this.linkCount.get(projectId) ?? 0,
      read: () => new Map(this.linksOf.all(projectId).map((row) => [row.anonymous_id, row.user_id])),
    };
  }
}

/**
 * The users of the events joined by the links: each linked user is counted
 * under one ordinal (the smallest of its ids that the events know), so an
 * exposure as the anonymous id and a purchase as the signed-in user are one
 * user. A link whose ids the events do not know yet is remembered: once
 * they appear the join is stale and the fold is rebuilt.
 */
export class LinkedUsers {
  /** ordinal → the ordinal its user is counted under (only for ordinals that are not their own). */
  readonly remap = new Map<number, number>();
  /** counted ordinal → every ordinal of the user, when there is more than one. */
  readonly members = new Map<number, number[]>();
  /** linked user id → the ordinal it is counted under (when the events know one of its ids). */
  private readonly counted = new Map<string, number>();
  private readonly unresolved: string[] = [];

  constructor(
    private readonly projectId: string,
    private readonly users: UserDictionary,
    private readonly links: Map<string, string>,
  ) {
    const groups = new Map<string, number[]>();
    for (const [anonymous, user] of links) {
      let group = groups.get(user);
      if (!group) groups.set(user, (group = []));
      for (const id of [anonymous, user]) {
        const ordinal = users.lookup(projectId, id);
        if (ordinal === -1) this.unresolved.push(id);
        else if (!group.includes(ordinal)) group.push(ordinal);
      }
    }
    for (const [user, group] of groups) {
      if (group.length === 0) continue;
      const counted = Math.min(...group);
      this.counted.set(user, counted);
      if (group.length === 1) continue;
      this.members.set(counted, group);
      for (const ordinal of group) if (ordinal !== counted) this.remap.set(ordinal, counted);
    }
  }

  /** The ordinal a record's user id is counted under; -1 when the events never saw the user. */
  ordinalOf(userId: string): number {
    const user = this.links.get(userId) ?? userId;
    return this.counted.get(user) ?? this.users.lookup(this.projectId, user);
  }

  /** Whether an id of a link has appeared in the events since the join was made. */
  stale(): boolean {
    return this.unresolved.some((id) => this.users.lookup(this.projectId, id) !== -1);
  }
}
