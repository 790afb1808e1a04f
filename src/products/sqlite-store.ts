import type { Database } from '../db/database.ts';
import type { Product, ProductWrite, StoreIds } from './schema.ts';
import type { StoredProduct } from './store.ts';

interface ProductRow {
  project_id: string;
  id: string;
  name: string;
  store_ids: string;
  version: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** Checks the current product (undefined when there is none) before a write, throwing to refuse it. */
type Expectation = (current: StoredProduct | undefined) => void;

function toStored(row: ProductRow): StoredProduct {
  return {
    product: {
      id: row.id,
      name: row.name,
      store_ids: JSON.parse(row.store_ids) as StoreIds,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    },
    version: row.version,
  };
}

/**
 * The product catalog of each project. A deleted product keeps its row
 * (marked deleted) so that its version keeps growing if it is written again.
 */
export class SqliteProductStore {
  private readonly byProject;
  private readonly byId;
  private readonly insert;
  private readonly update;
  private readonly markDeleted;
  private readonly writeTx;
  private readonly deleteTx;

  constructor(db: Database) {
    this.byProject = db.prepare<[string], ProductRow>('SELECT * FROM products WHERE project_id = ? AND deleted_at IS NULL ORDER BY id');
    this.byId = db.prepare<[string, string], ProductRow>('SELECT * FROM products WHERE project_id = ? AND id = ?');
    this.insert = db.prepare('INSERT INTO products (project_id, id, name, store_ids, version, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)');
    this.update = db.prepare(
      `UPDATE products SET name = ?, store_ids = ?, version = version + 1, updated_at = ?,
         created_at = CASE WHEN deleted_at IS NULL THEN created_at ELSE ? END, deleted_at = NULL
       WHERE project_id = ? AND id = ?`,
    );
    this.markDeleted = db.prepare(
      'UPDATE products SET deleted_at = ?, updated_at = ?, version = version + 1 WHERE project_id = ? AND id = ? AND deleted_at IS NULL',
    );
    this.writeTx = db.transaction((projectId: string, id: string, write: ProductWrite, expect: Expectation): { stored: StoredProduct; created: boolean } => {
      const now = Date.now();
      const existing = this.get(projectId, id);
      expect(existing);
      const storeIds = JSON.stringify(write.store_ids);
      if (this.byId.get(projectId, id)) this.update.run(write.name, storeIds, now, now, projectId, id);
      else this.insert.run(projectId, id, write.name, storeIds, now, now);
      return { stored: this.get(projectId, id)!, created: existing === undefined };
    });
    this.deleteTx = db.transaction((projectId: string, id: string, expect: Expectation): void => {
      expect(this.get(projectId, id));
      const now = Date.now();
      this.markDeleted.run(now, now, projectId, id);
    });
  }

  list(projectId: string): Product[] {
    return this.byProject.all(projectId).map((row) => toStored(row).product);
  }

  /** The product unless it does not exist or was deleted. */
  get(projectId: string, id: string): StoredProduct | undefined {
    const row = this.byId.get(projectId, id);
    return row && row.deleted_at === null ? toStored(row) : undefined;
  }

  find(projectId: string, id: string): Product | undefined {
    return this.get(projectId, id)?.product;
  }

  /**
   * Creates the product, or replaces it; `created` says which (a deleted
   * product written again is created). `expect` sees the current product
   * inside the transaction and throws to refuse the write.
   */
  write(projectId: string, id: string, write: ProductWrite, expect: Expectation): { stored: StoredProduct; created: boolean } {
    return this.writeTx.immediate(projectId, id, write, expect);
  }

  /** Marks the product deleted, after `expect` saw it inside the transaction (it throws to refuse). */
  delete(projectId: string, id: string, expect: Expectation): void {
    this.deleteTx.immediate(projectId, id, expect);
  }
}
