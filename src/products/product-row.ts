/** A products row as both backends read it back, and the stored product it is. */
import type { StoreIds } from './schema.ts';
import type { StoredProduct } from './store.ts';

export interface ProductRow {
  project_id: string;
  id: string;
  name: string;
  store_ids: string;
  version: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export function toStored(row: ProductRow): StoredProduct {
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
