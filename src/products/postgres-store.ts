import type { PostgresChangeLog } from '../db/change-log.ts';
import type { Sql } from '../db/postgres/connection.ts';
import { storeCall } from '../db/postgres/store-call.ts';
import type { Change } from '../shared/change.ts';
import { STALE, type Stale } from '../shared/stale.ts';
import { type LiveDocument, liveUsers } from './live-users.ts';
import { productDeleted, productWritten } from './product-entries.ts';
import { type ProductRow, toStored } from './product-row.ts';
import type { ProductWrite } from './schema.ts';
import type { ExpectedVersion, InUse, ProductStore, StoredProduct } from './store.ts';

/** The product catalog in PostgreSQL (store.ts says what each method does). */
export class PostgresProductStore implements ProductStore {
  constructor(
    private readonly sql: Sql,
    private readonly changes: PostgresChangeLog,
  ) {}

  list(projectId: string): Promise<StoredProduct[]> {
    return storeCall(async () => {
      const rows = await this.sql<ProductRow[]>`SELECT * FROM products WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY id`;
      return rows.map(toStored);
    });
  }

  get(projectId: string, id: string): Promise<StoredProduct | undefined> {
    return storeCall(async () => {
      const [row] = await this.sql<ProductRow[]>`SELECT * FROM products WHERE project_id = ${projectId} AND id = ${id} AND deleted_at IS NULL`;
      return row && toStored(row);
    });
  }

  write(
    projectId: string,
    id: string,
    write: ProductWrite,
    expected: ExpectedVersion,
    change: Change,
  ): Promise<{ stored: StoredProduct; created: boolean } | Stale> {
    const storeIds = JSON.stringify(write.store_ids);
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        const now = Date.now();
        const [current] = await tx<ProductRow[]>`SELECT * FROM products WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`;
        const version = current && current.deleted_at === null ? current.version : undefined;
        if (version !== expected) return STALE;
        let rows: ProductRow[];
        if (current) {
          // A deleted product written again is created anew: its created_at restarts, its version keeps growing.
          rows = await tx<ProductRow[]>`
          UPDATE products SET name = ${write.name}, store_ids = ${storeIds}, version = version + 1, updated_at = ${now},
            created_at = CASE WHEN deleted_at IS NULL THEN created_at ELSE ${now} END, deleted_at = NULL
          WHERE project_id = ${projectId} AND id = ${id} RETURNING *`;
        } else {
          // Nothing to lock while the row does not exist: a concurrent creation that committed first leaves this one stale.
          rows = await tx<ProductRow[]>`
          INSERT INTO products (project_id, id, name, store_ids, version, created_at, updated_at)
          VALUES (${projectId}, ${id}, ${write.name}, ${storeIds}, 1, ${now}, ${now})
          ON CONFLICT (project_id, id) DO NOTHING RETURNING *`;
          if (rows.length === 0) return STALE;
        }
        await this.changes.record(tx, change, productWritten(projectId, id, write, expected === undefined));
        return { stored: toStored(rows[0]!), created: expected === undefined };
      }),
    );
  }

  delete(projectId: string, id: string, expected: number, change: Change): Promise<undefined | Stale | InUse> {
    return storeCall(() =>
      this.sql.begin(async (tx) => {
        // FOR UPDATE waits for a publication holding the row FOR SHARE to commit, so its live revision is read below;
        // a publication that comes later waits for this one and then finds the product deleted.
        const [current] = await tx<{ version: number }[]>`
          SELECT version FROM products WHERE project_id = ${projectId} AND id = ${id} AND deleted_at IS NULL FOR UPDATE`;
        if (current?.version !== expected) return STALE;
        const documents = await tx<LiveDocument[]>`
          SELECT p.id, r.document FROM paywalls p
          JOIN paywall_revisions r ON r.project_id = p.project_id AND r.paywall_id = p.id AND r.revision = p.live_revision
          WHERE p.project_id = ${projectId} AND p.archived_at IS NULL ORDER BY p.id`;
        const usedBy = liveUsers(documents, id);
        if (usedBy.length > 0) return { usedBy };
        const now = Date.now();
        await tx`UPDATE products SET deleted_at = ${now}, updated_at = ${now}, version = version + 1 WHERE project_id = ${projectId} AND id = ${id}`;
        await this.changes.record(tx, change, productDeleted(projectId, id));
        return undefined;
      }),
    );
  }
}
