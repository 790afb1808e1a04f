/**
 * A configuration target that is a database file (or the server's own
 * connection, for `serve --seed`): the paywall and product services the
 * management API runs, so every rule and precondition is the server's.
 */
import type { Database } from '../db/database.ts';
import type { PaywallOutput } from '../paywalls/document/schema.ts';
import { type PaywallManager, paywallTag } from '../paywalls/management.ts';
import { type ProductManager, productTag } from '../products/service.ts';
import { DomainError } from '../shared/errors.ts';
import { type ConfigBackend, type Expect, TargetError } from './backend.ts';
import type { CurrentState, ProductContent } from './state.ts';

function preconditions(expect: Expect): { ifMatch: string; ifNoneMatch: string } {
  return 'create' in expect ? { ifMatch: '', ifNoneMatch: '*' } : { ifMatch: expect.ifMatch, ifNoneMatch: '' };
}

/** The service's refusal as a TargetError, with the validation errors spelled out. */
function refused<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof DomainError) {
      const details = (error.errors ?? []).map((e) => `${e.path || '/'}: ${e.message}`).join('; ');
      throw new TargetError(`${what}: ${error.code}: ${error.message}${details ? ` (${details})` : ''}`, error.code);
    }
    throw error;
  }
}

export class StoreBackend implements ConfigBackend {
  readonly transactional = true;
  private readonly paywalls: PaywallManager;
  private readonly products: ProductManager;

  /** `services`: the server's own (serve --seed), or ones built on the file (configurationServices). */
  constructor(
    private readonly db: Database,
    private readonly projectId: string,
    services: { paywallManager: PaywallManager; products: ProductManager },
    readonly target: string,
  ) {
    this.paywalls = services.paywallManager;
    this.products = services.products;
  }

  async read(): Promise<CurrentState> {
    const products = this.products.list(this.projectId).map((stored) => ({
      id: stored.product.id,
      name: stored.product.name,
      store_ids: stored.product.store_ids,
      tag: productTag(stored),
    }));
    const paywalls = this.paywalls.list(this.projectId).map((info) => {
      const { row, document } = this.paywalls.get(this.projectId, info.id);
      return {
        id: info.id,
        status: info.status,
        revision: info.revision,
        liveRevision: info.live_revision,
        tag: paywallTag(row),
        document: document as PaywallOutput,
      };
    });
    return { products, paywalls };
  }

  async revision(paywallId: string, revision: number): Promise<PaywallOutput> {
    return this.paywalls.revision(this.projectId, paywallId, revision).document as PaywallOutput;
  }

  async putProduct(id: string, content: ProductContent, expect: Expect): Promise<void> {
    refused(`product ${id}`, () => this.products.write(this.projectId, id, content, preconditions(expect)));
  }

  async deleteProduct(id: string, ifMatch: string): Promise<void> {
    refused(`product ${id}`, () => this.products.delete(this.projectId, id, ifMatch));
  }

  async putPaywall(id: string, document: PaywallOutput, expect: Expect): Promise<{ revision: number; tag: string }> {
    const { row } = refused(`paywall ${id}`, () => this.paywalls.write(this.projectId, id, document, preconditions(expect)));
    return { revision: row.latest_revision, tag: paywallTag(row) };
  }

  async publish(id: string, revision: number, ifMatch: string): Promise<string> {
    return paywallTag(refused(`paywall ${id}`, () => this.paywalls.publish(this.projectId, id, revision, ifMatch)).row);
  }

  async archive(id: string, ifMatch: string): Promise<string> {
    return paywallTag(refused(`paywall ${id}`, () => this.paywalls.archive(this.projectId, id, ifMatch)));
  }

  /**
   * One IMMEDIATE transaction around every step: the services' own
   * transactions become savepoints inside it, and a failure rolls all back.
   * The steps await nothing but this connection, so no other work interleaves.
   */
  async atomically<T>(steps: () => Promise<T>): Promise<T> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = await steps();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }
}
