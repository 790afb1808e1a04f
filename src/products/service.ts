import * as v from 'valibot';
import { DomainError } from '../shared/errors.ts';
import { IdSchema } from '../shared/id.ts';
import { ID_RULE } from '../shared/id-pattern.ts';
import { entityTag, type Preconditions, requireIfMatch, requireIfNoneMatch } from '../shared/preconditions.ts';
import type { ProductWrite } from './schema.ts';
import type { SqliteProductStore as ProductStore } from './sqlite-store.ts';
import type { StoredProduct } from './store.ts';

/** What products need of paywalls: implemented by the in-memory live paywalls, handed over by the context. */
interface ProductUsers {
  /** The live paywalls that put this product in a slot. */
  usingProduct(projectId: string, productId: string): string[];
  /** After a product changed: live paywalls that use it serve the change at once. */
  refreshProduct(projectId: string, productId: string): void;
}

/** A product's ETag: its version, which grows with every change (deletion included). */
export function productTag(stored: StoredProduct): string {
  return entityTag(stored.version);
}

function notFound(): DomainError {
  return new DomainError('product_not_found', 'no product with this id in the project');
}

/**
 * What the management API (and `paywalld apply`) does to products: writes and
 * deletions check their preconditions inside the transaction, a product in a
 * live paywall's slot cannot be deleted, and live paywalls serve a change at once.
 */
export class ProductManager {
  constructor(
    private readonly store: ProductStore,
    private readonly users: ProductUsers,
  ) {}

  list(projectId: string): StoredProduct[] {
    return this.store.list(projectId).map((product) => this.get(projectId, product.id));
  }

  get(projectId: string, id: string): StoredProduct {
    const stored = this.store.get(projectId, id);
    if (!stored) throw notFound();
    return stored;
  }

  /** Creates or replaces the product; `created` says which. */
  write(projectId: string, id: string, write: ProductWrite, preconditions: Preconditions): { stored: StoredProduct; created: boolean } {
    if (!v.is(IdSchema, id)) throw new DomainError('invalid_id', `a product id is ${ID_RULE}`);
    if (write.id !== undefined && write.id !== id) {
      throw new DomainError('validation_failed', 'the request document is invalid; see errors', {
        errors: [{ path: '/id', message: 'Must be the id in the path' }],
      });
    }
    const result = this.store.write(projectId, id, write, (current) => {
      const tag = current && productTag(current);
      requireIfMatch(preconditions.ifMatch, tag);
      requireIfNoneMatch(preconditions.ifNoneMatch, tag);
    });
    this.users.refreshProduct(projectId, id);
    return result;
  }

  /** Deletes the product unless a live paywall puts it in a slot. */
  delete(projectId: string, id: string, ifMatch: string): void {
    this.store.delete(projectId, id, (current) => {
      if (!current) throw notFound();
      requireIfMatch(ifMatch, productTag(current));
      const users = this.users.usingProduct(projectId, id);
      if (users.length > 0) {
        throw new DomainError(
          'product_in_use',
          `the product is in a slot of ${users.length} live paywall(s); publish revisions without it or archive them first`,
        );
      }
    });
    this.users.refreshProduct(projectId, id);
  }
}
