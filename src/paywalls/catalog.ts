import type { Product } from '../products/schema.ts';

/** What paywalls need of the product catalog: implemented by the products feature's store, handed over by the context. */
export interface ProductCatalog {
  /** The project's products that are not deleted. */
  list(projectId: string): Promise<readonly { product: Product }[]>;
}

/** The project's products by id, read once: validation and compilation look products up synchronously. */
export async function productsById(catalog: ProductCatalog, projectId: string): Promise<ReadonlyMap<string, Product>> {
  return new Map((await catalog.list(projectId)).map(({ product }) => [product.id, product]));
}
