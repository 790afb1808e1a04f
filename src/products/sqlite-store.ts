import type { SqliteChangeLog } from '../db/change-log.ts';
import type { Database } from '../db/database.ts';
import { sqliteRead, sqliteWrite } from '../db/sqlite-transaction.ts';
import type { Change } from '../shared/change.ts';
import { STALE } from '../shared/stale.ts';
import { type LiveDocument, liveUsers } from './live-users.ts';
import { productDeleted, productWritten } from './product-entries.ts';
import { type ProductRow, toStored } from './product-row.ts';
import type { ProductWrite } from './schema.ts';
import type { ExpectedVersion, ProductStore, StoredProduct } from './store.ts';

export class SqliteProductStore implements ProductStore {
  readonly list;
  readonly get;
  readonly write;
  readonly delete;

  constructor(db: Database, changes: SqliteChangeLog) {
    const byProject = db.prepare<[string], ProductRow>('SELECT * FROM products WHERE project_id = ? AND deleted_at IS NULL ORDER BY id');
    const byId = db.prepare<[string, string], ProductRow>('SELECT * FROM products WHERE project_id = ? AND id = ?');
    const insert = db.prepare('INSERT INTO products (project_id, id, name, store_ids, version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)');
    const update = db.prepare(
      `UPDATE products SET name = ?, store_ids = ?, version = version + 1, updated_at = ?,
         created_at = CASE WHEN deleted_at IS NULL THEN created_at ELSE ? END, deleted_at = NULL
       WHERE project_id = ? AND id = ?`,
    );
    const markDeleted = db.prepare(
      'UPDATE products SET deleted_at = ?, updated_at = ?, version = version + 1 WHERE project_id = ? AND id = ? AND deleted_at IS NULL',
    );
    const liveDocuments = db.prepare<[string], LiveDocument>(
      `SELECT p.id, r.document FROM paywalls p
       JOIN paywall_revisions r ON r.project_id = p.project_id AND r.paywall_id = p.id AND r.revision = p.live_revision
       WHERE p.project_id = ? AND p.archived_at IS NULL ORDER BY p.id`,
    );
    /** The product unless it does not exist or was deleted. */
    const live = (projectId: string, id: string): StoredProduct | undefined => {
      const row = byId.get(projectId, id);
      return row && row.deleted_at === null ? toStored(row) : undefined;
    };
    this.list = sqliteRead(db, (projectId: string): StoredProduct[] => byProject.all(projectId).map(toStored));
    this.get = sqliteRead(db, live);
    this.write = sqliteWrite(db, (projectId: string, id: string, write: ProductWrite, expected: ExpectedVersion, change: Change) => {
      const existing = live(projectId, id);
      if (existing?.version !== expected) return STALE;
      const now = Date.now();
      const storeIds = JSON.stringify(write.store_ids);
      if (byId.get(projectId, id)) update.run(write.name, storeIds, now, now, projectId, id);
      else insert.run(projectId, id, write.name, storeIds, now, now);
      changes.record(change, productWritten(projectId, id, write, existing === undefined));
      return { stored: live(projectId, id)!, created: existing === undefined };
    });
    this.delete = sqliteWrite(db, (projectId: string, id: string, expected: number, change: Change) => {
      if (live(projectId, id)?.version !== expected) return STALE;
      const usedBy = liveUsers(liveDocuments.all(projectId), id);
      if (usedBy.length > 0) return { usedBy };
      const now = Date.now();
      markDeleted.run(now, now, projectId, id);
      changes.record(change, productDeleted(projectId, id));
      return undefined;
    });
  }
}
