import * as v from 'valibot';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import { IdSchema } from '../shared/id.ts';
import { ID_RULE } from '../shared/id-pattern.ts';
import { entityTag, type Preconditions, requireIfMatch, requireIfNoneMatch } from '../shared/preconditions.ts';
import { STALE, untilCurrent } from '../shared/stale.ts';
import type { ProductWrite } from './schema.ts';
import type { ProductStore, StoredProduct } from './store.ts';

/** What products need of paywalls: implemented by the in-memory live paywalls, handed over by the context. */
interface ProductUsers {
  /** After a product changed: live paywalls that use it serve the change once this resolves. */
  refreshProduct(projectId: string, productId: string): Promise<void>;
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
 * deletions check their preconditions against the product as read and store
 * only if it is still that version (shared/stale.ts), a product in a live
 * paywall's slot cannot be deleted, and live paywalls serve a change before
 * it is answered.
 */
export class ProductManager {
  constructor(
    private readonly store: ProductStore,
    private readonly users: ProductUsers,
  ) {}

  list(projectId: string): Promise<StoredProduct[]> {
    return this.store.list(projectId);
  }

  async get(projectId: string, id: string): Promise<StoredProduct> {
    const stored = await this.store.get(projectId, id);
    if (!stored) throw notFound();
    return stored;
  }

  /** Creates or replaces the product; `created` says which. `change` says who, for the audit entry written with it. */
  async write(
    projectId: string,
    id: string,
    write: ProductWrite,
    preconditions: Preconditions,
    change: Change,
  ): Promise<{ stored: StoredProduct; created: boolean }> {
    if (!v.is(IdSchema, id)) throw new DomainError('invalid_id', `a product id is ${ID_RULE}`);
    if (write.id !== undefined && write.id !== id) {
      throw new DomainError('validation_failed', 'the request document is invalid; see errors', {
        errors: [{ path: '/id', message: 'Must be the id in the path' }],
      });
    }
    const result = await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      const tag = current && productTag(current);
      requireIfMatch(preconditions.ifMatch, tag);
      requireIfNoneMatch(preconditions.ifNoneMatch, tag);
      return this.store.write(projectId, id, write, current?.version, change);
    });
    await this.users.refreshProduct(projectId, id);
    return result;
  }

  /** Deletes the product unless a live paywall puts it in a slot (the store decides, against the stored live revisions). */
  async delete(projectId: string, id: string, ifMatch: string, change: Change): Promise<void> {
    await untilCurrent(async () => {
      const current = await this.store.get(projectId, id);
      if (!current) throw notFound();
      requireIfMatch(ifMatch, productTag(current));
      const deleted = await this.store.delete(projectId, id, current.version, change);
      if (deleted !== undefined && deleted !== STALE) {
        throw new DomainError(
          'product_in_use',
          `the product is in a slot of ${deleted.usedBy.length} live paywall(s); publish revisions without it or archive them first`,
        );
      }
      return deleted;
    });
    await this.users.refreshProduct(projectId, id);
  }
}
