/**
 * A slot's product without an id in a platform's store offers nothing to
 * buy on that platform (products/store-product-id.ts: App Store on iOS,
 * Google Play on Android, Stripe or another web checkout on the web): the
 * resolve answer gives its store_product_id as null there. Checked for the
 * platforms the project sells on, those where some product of its catalog
 * has a store id, and warned per slot and platform when a paywall is
 * written, published or validated.
 */
import type { StoreIds } from '../../products/schema.ts';
import { type StorePlatform, storeProductId } from '../../products/store-product-id.ts';
import { type Path, pointer } from '../../shared/pointer.ts';
import type { PaywallOutput } from './schema.ts';
import type { PaywallWarning } from './warnings.ts';

/** What the check needs of the catalog. */
export interface StoreCatalog {
  storeIds(productId: string): StoreIds | undefined;
  /** The platforms the project sells on. */
  platforms: readonly StorePlatform[];
}

const PLATFORMS: readonly StorePlatform[] = ['ios', 'android', 'web'];
const NAMES: Record<StorePlatform, { platform: string; store: string }> = {
  ios: { platform: 'iOS', store: 'app_store' },
  android: { platform: 'Android', store: 'play_store' },
  web: { platform: 'the web', store: 'stripe or web' },
};

/** The platforms of a catalog: those where some product has a store id. */
export function storeCatalog(products: Iterable<{ id: string; store_ids: StoreIds }>): StoreCatalog {
  const byId = new Map<string, StoreIds>();
  for (const product of products) byId.set(product.id, product.store_ids);
  const platforms = PLATFORMS.filter((platform) => [...byId.values()].some((ids) => storeProductId(ids, platform) !== null));
  return { storeIds: (productId) => byId.get(productId), platforms };
}

export function storeIdWarnings(doc: PaywallOutput, catalog: StoreCatalog): PaywallWarning[] {
  const slots: [Path, string][] = Object.entries(doc.slots).map(([slot, productId]) => [['slots', slot], productId]);
  doc.variants.forEach((variant, i) => {
    for (const [slot, productId] of Object.entries(variant.slots ?? {})) slots.push([['variants', i, 'slots', slot], productId]);
  });
  const warnings: PaywallWarning[] = [];
  for (const [path, productId] of slots) {
    const ids = catalog.storeIds(productId);
    if (ids === undefined) continue;
    for (const platform of catalog.platforms) {
      if (storeProductId(ids, platform) !== null) continue;
      const { platform: name, store } = NAMES[platform];
      warnings.push({
        path: pointer(path),
        code: 'no_store_id',
        message: `Product ${productId} has no ${store} id: on ${name}, where the project sells, this slot offers nothing to buy`,
      });
    }
  }
  return warnings;
}
