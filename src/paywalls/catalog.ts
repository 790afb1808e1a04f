import type { Product } from '../products/schema.ts';

/** What paywalls need of the product catalog: implemented by the products feature's store, handed over by the context. */
export interface ProductCatalog {
  /** The product unless it does not exist or was deleted. */
  find(projectId: string, productId: string): Product | undefined;
}
