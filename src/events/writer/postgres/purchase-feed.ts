/**
 * The purchase records and identity links that experiment results read
 * (src/analytics/fold/purchase-records.ts), from PostgreSQL's purchases and user_links
 * (migration 10). The fold reads them synchronously, so the thread calls
 * `refresh` before it asks: that fetches the project's records stored since
 * the last refresh and, when their count moved, the links it has not read, and keeps them
 * in memory (purchase records are few next to events). It reads `seq > last`:
 * exact only because purchase inserts take the advisory lock
 * ADVISORY_LOCKS.purchases, which makes seq order commit order, as for events.
 */

import type { ProjectLinks, PurchaseReader, PurchaseRow } from '../../../analytics/fold/purchase-records.ts';
import type { Sql } from '../../../db/postgres/connection.ts';

interface ProjectPurchases {
  records: PurchaseRow[];
  /** The same object on every links() call: the folds read the list from where they stopped. */
  links: ProjectLinks;
}

export class PostgresPurchaseFeed implements PurchaseReader {
  private readonly projects = new Map<string, ProjectPurchases>();

  constructor(private readonly sql: Sql) {}

  private project(projectId: string): ProjectPurchases {
    let project = this.projects.get(projectId);
    if (!project) this.projects.set(projectId, (project = { records: [], links: { map: new Map(), list: [] } }));
    return project;
  }

  /** Reads what the project stored since the last refresh. */
  async refresh(projectId: string): Promise<void> {
    const project = this.project(projectId);
    const after = project.records.at(-1)?.seq ?? 0;
    const records = await this.sql.unsafe<PurchaseRow[]>(
      'SELECT seq, user_id, type, ts, revenue, currency, paywall_id FROM purchases WHERE project_id = $1 AND seq > $2 ORDER BY seq',
      [projectId, after],
    );
    project.records.push(...records);
    const { map, list } = project.links;
    const [count] = await this.sql.unsafe<{ links: number }[]>('SELECT count(*)::int AS links FROM user_links WHERE project_id = $1', [projectId]);
    if (count === undefined || count.links === map.size) return;
    // Links are only ever added (the first link of an anonymous id stays): the ones not read yet are appended, oldest first.
    const rows = await this.sql.unsafe<{ anonymous_id: string; user_id: string }[]>(
      'SELECT anonymous_id, user_id FROM user_links WHERE project_id = $1 ORDER BY linked_at, anonymous_id',
      [projectId],
    );
    for (const row of rows) {
      if (map.has(row.anonymous_id)) continue;
      map.set(row.anonymous_id, row.user_id);
      list.push([row.anonymous_id, row.user_id]);
    }
  }

  recordsSince(projectId: string, seq: number): PurchaseRow[] {
    const records = this.projects.get(projectId)?.records ?? [];
    // Records are in seq order: the first one after `seq` by bisection.
    let low = 0;
    let high = records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (records[middle]!.seq <= seq) low = middle + 1;
      else high = middle;
    }
    return records.slice(low);
  }

  links(projectId: string): ProjectLinks {
    return this.project(projectId).links;
  }
}
