/**
 * A configuration target that is a database (or the server's own storage,
 * for `serve --seed`): the paywall and product services the management API
 * runs, so every rule and precondition is the server's.
 */

import type { PaywallOutput } from '../paywalls/document/schema.ts';
import { type PaywallManager, paywallTag } from '../paywalls/management.ts';
import { type PlacementManager, placementTag } from '../placements/management.ts';
import type { PlacementDocument } from '../placements/schema.ts';
import { type ProductManager, productTag } from '../products/service.ts';
import type { Change } from '../shared/change.ts';
import { DomainError } from '../shared/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { type ConfigBackend, type Expect, TargetError } from './backend.ts';
import type { CurrentState, ProductContent } from './state.ts';

function preconditions(expect: Expect): { ifMatch: string; ifNoneMatch: string } {
  return 'create' in expect ? { ifMatch: '', ifNoneMatch: '*' } : { ifMatch: expect.ifMatch, ifNoneMatch: '' };
}

/** The service's refusal as a TargetError, with the validation errors spelled out. */
async function refused<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError) {
      const details = (error.errors ?? []).map((e) => `${e.path || '/'}: ${e.message}`).join('; ');
      throw new TargetError(`${what}: ${error.code}: ${error.message}${details ? ` (${details})` : ''}`, error.code);
    }
    throw error;
  }
}

export class StoreBackend implements ConfigBackend {
  readonly transactional: boolean;
  private readonly paywalls: PaywallManager;
  private readonly products: ProductManager;
  private readonly placements: PlacementManager;

  /**
   * `services`: the server's own (serve --seed), or ones built on the
   * storage (configurationServices); `change`: who applies, named in the
   * audit entry of each change (the CLI on the database).
   */
  constructor(
    private readonly storage: Storage,
    private readonly projectId: string,
    services: { paywallManager: PaywallManager; products: ProductManager; placementManager: PlacementManager },
    readonly target: string,
    private readonly change: Change,
  ) {
    this.paywalls = services.paywallManager;
    this.products = services.products;
    this.placements = services.placementManager;
    this.transactional = storage.atomically !== undefined;
  }

  async read(): Promise<CurrentState> {
    const products = (await this.products.list(this.projectId)).map((stored) => ({
      id: stored.product.id,
      name: stored.product.name,
      store_ids: stored.product.store_ids,
      tag: productTag(stored),
    }));
    const paywalls = [];
    for (const info of await this.paywalls.list(this.projectId)) {
      const { row, document } = await this.paywalls.get(this.projectId, info.id);
      paywalls.push({
        id: info.id,
        status: info.status,
        revision: info.revision,
        liveRevision: info.live_revision,
        tag: paywallTag(row),
        document: document as PaywallOutput,
      });
    }
    const placements = [];
    for (const info of await this.placements.list(this.projectId)) {
      const { row, document } = await this.placements.get(this.projectId, info.id);
      placements.push({ id: info.id, status: info.status, tag: placementTag(row), document });
    }
    return { products, paywalls, placements };
  }

  async revision(paywallId: string, revision: number): Promise<PaywallOutput> {
    return (await this.paywalls.revision(this.projectId, paywallId, revision)).document as PaywallOutput;
  }

  async putProduct(id: string, content: ProductContent, expect: Expect): Promise<void> {
    await refused(`product ${id}`, () => this.products.write(this.projectId, id, content, preconditions(expect), this.change));
  }

  async deleteProduct(id: string, ifMatch: string): Promise<void> {
    await refused(`product ${id}`, () => this.products.delete(this.projectId, id, ifMatch, this.change));
  }

  async putPaywall(id: string, document: PaywallOutput, expect: Expect): Promise<{ revision: number; tag: string }> {
    const { row } = await refused(`paywall ${id}`, () => this.paywalls.write(this.projectId, id, document, preconditions(expect), this.change));
    return { revision: row.latest_revision, tag: paywallTag(row) };
  }

  async publish(id: string, revision: number, ifMatch: string): Promise<string> {
    return paywallTag((await refused(`paywall ${id}`, () => this.paywalls.publish(this.projectId, id, revision, ifMatch, this.change))).row);
  }

  async archive(id: string, ifMatch: string): Promise<string> {
    return paywallTag(await refused(`paywall ${id}`, () => this.paywalls.archive(this.projectId, id, ifMatch, this.change)));
  }

  async putPlacement(id: string, document: PlacementDocument, expect: Expect): Promise<string> {
    const { row } = await refused(`placement ${id}`, () => this.placements.write(this.projectId, id, document, preconditions(expect), this.change));
    return placementTag(row);
  }

  async archivePlacement(id: string, ifMatch: string): Promise<string> {
    return placementTag(await refused(`placement ${id}`, () => this.placements.archive(this.projectId, id, ifMatch, this.change)));
  }

  /** All steps or none where the storage can (Storage.atomically), else one after the other, as against a server. */
  async atomically<T>(steps: () => Promise<T>): Promise<T> {
    return this.storage.atomically ? this.storage.atomically(steps) : steps();
  }
}
