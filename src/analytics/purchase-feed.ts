/**
 * The purchase records and identity links as the SQLite writer thread reads
 * them, on its own connection, when a result is asked.
 */
import type { Database } from '../db/database.ts';
import type { ProjectLinks, PurchaseReader, PurchaseRow } from './fold/purchase-records.ts';

/** A time margin for reading new links: a link stored with a time up to this much before the newest one read (the clock stepped back) is still found. */
const LINK_TIME_MARGIN_MS = 600_000;

interface LinkState extends ProjectLinks {
  newest: number;
  /** The connection's data_version when the links were last read: unchanged, no other connection has committed since. */
  version: number;
}

/** Where the records and links come from: the database, read by the writer thread. */
export class PurchaseFeed implements PurchaseReader {
  private readonly since;
  private readonly dataVersion;
  private readonly linkCount;
  private readonly linksOf;
  private readonly linksAfter;
  private readonly projects = new Map<string, LinkState>();

  constructor(db: Database) {
    this.since = db.prepare<[string, number], PurchaseRow>(
      'SELECT seq, user_id, type, ts, revenue, currency, paywall_id FROM purchases WHERE project_id = ? AND seq > ? ORDER BY seq',
    );
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.linkCount = db.prepare<[string], number>('SELECT count(*) FROM user_links WHERE project_id = ?').pluck();
    const columns = 'SELECT anonymous_id, user_id, linked_at FROM user_links WHERE project_id = ?';
    this.linksOf = db.prepare<[string], LinkRow>(columns);
    this.linksAfter = db.prepare<[string, number], LinkRow>(`${columns} AND linked_at >= ?`);
  }

  /** The records of a project stored after `seq`, in order of storage. */
  recordsSince(projectId: string, seq: number): PurchaseRow[] {
    return this.since.all(projectId, seq);
  }

  /**
   * The project's links, read again only when another connection has
   * committed since the last read (the server's writes; the writer's own
   * commits do not count) and the project's count of links moved: then only
   * the links stored since the newest one read are fetched (all of them
   * when the count shows one was missed).
   */
  links(projectId: string): ProjectLinks {
    const version = this.dataVersion.get()!;
    let state = this.projects.get(projectId);
    if (state && state.version === version) return state;
    if (!state) this.projects.set(projectId, (state = { map: new Map(), list: [], newest: Number.NEGATIVE_INFINITY, version }));
    state.version = version;
    const count = this.linkCount.get(projectId) ?? 0;
    if (count === state.map.size) return state;
    this.add(state, this.linksAfter.all(projectId, state.newest - LINK_TIME_MARGIN_MS));
    if (count > state.map.size) this.add(state, this.linksOf.all(projectId));
    return state;
  }

  private add(state: LinkState, rows: LinkRow[]): void {
    for (const row of rows) {
      if (state.map.has(row.anonymous_id)) continue;
      state.map.set(row.anonymous_id, row.user_id);
      state.list.push([row.anonymous_id, row.user_id]);
      if (row.linked_at > state.newest) state.newest = row.linked_at;
    }
  }
}

interface LinkRow {
  anonymous_id: string;
  user_id: string;
  linked_at: number;
}
