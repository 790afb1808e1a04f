/**
 * The product catalog of each project. A deleted product keeps its row
 * (marked deleted) so that its version keeps growing if it is written again.
 * The interface every backend implements (sqlite-store.ts; CONTRIBUTING.md,
 * "The storage seam"): each method is one transaction.
 */
import type { Change } from '../shared/change.ts';
import type { Stale } from '../shared/stale.ts';
import type { Product, ProductWrite } from './schema.ts';

/** A product as stored, with the version its ETag is made of. */
export interface StoredProduct {
  product: Product;
  version: number;
}

/** The version the service read and checked: a live product's, or `undefined` for one that does not exist (or was deleted). */
export type ExpectedVersion = number | undefined;

/** A deletion refused: the paywalls whose live revision puts the product in a slot. */
export interface InUse {
  usedBy: string[];
}

export interface ProductStore {
  /** The project's products that are not deleted, by id. */
  list(projectId: string): Promise<StoredProduct[]>;
  /** The product unless it does not exist or was deleted. */
  get(projectId: string, id: string): Promise<StoredProduct | undefined>;
  /**
   * Creates the product, or replaces it, if it is still as the caller read
   * it (`expected`), else STALE; `created` says which (a deleted product
   * written again is created). Each change appends its audit entry (`change`: who) in the same transaction.
   */
  write(
    projectId: string,
    id: string,
    write: ProductWrite,
    expected: ExpectedVersion,
    change: Change,
  ): Promise<{ stored: StoredProduct; created: boolean } | Stale>;
  /**
   * Marks the product deleted if it is still at the version the caller read (`expected`), else STALE,
   * unless a live revision of a paywall that is not archived puts it in a slot: then nothing changes and
   * the answer names those paywalls. Decided in one transaction against the stored revisions, so that a
   * publication naming the product and its deletion, from two instances at once, cannot both succeed.
   */
  delete(projectId: string, id: string, expected: number, change: Change): Promise<undefined | Stale | InUse>;
}
