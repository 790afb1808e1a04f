import { pickLocale } from '../src/paywalls/targeting/locale.ts';
import { type StorePlatform, storeProductId } from '../src/products/store-product-id.ts';
import { PaywalldError } from './errors.ts';
import { type ClientStorage, readJsonItem, STORAGE_PREFIX } from './storage.ts';
import type { FallbackBundle, FallbackPaywall, FallbackPlacement, ResolvedPaywall } from './types.generated.ts';

type StoreIds = FallbackPaywall['product_slots'][number]['store_ids'];

/** What the client keeps of a bundle it downloaded: the bundle and the ETag that revalidates it. */
interface DownloadedBundle {
  etag: string;
  bundle: FallbackBundle;
}

export const DOWNLOADED_BUNDLE_KEY = `${STORAGE_PREFIX}fallback`;

/** Checks the outline of a bundle the app hands over, so a wrong file fails at start rather than when the network does. */
export function checkBundle(bundle: unknown): FallbackBundle {
  const candidate = bundle as Partial<FallbackBundle> | null;
  if (typeof candidate !== 'object' || candidate === null || candidate.format !== 1 || !Array.isArray(candidate.paywalls)) {
    throw new PaywalldError(
      0,
      'invalid_fallback',
      'the fallback bundle is not a paywalld bundle of format 1 (made by paywalld fallback or GET /api/sdk/fallback)',
    );
  }
  for (const paywall of candidate.paywalls) {
    if (typeof paywall?.paywall_id !== 'string' || typeof paywall.revision !== 'number' || typeof paywall.trees !== 'object') {
      throw new PaywalldError(0, 'invalid_fallback', 'the fallback bundle holds an entry that is not a paywall');
    }
  }
  return candidate as FallbackBundle;
}

/** The fields of a node that hold a slot's product: a slot-bound node's, and a toggle's two. */
const PRODUCT_FIELDS = ['product', 'product_on', 'product_off'] as const;

/** A copy of a resolved tree with each node's products carrying their store id for the platform. */
function withStoreIds(node: unknown, storeIds: ReadonlyMap<string, StoreIds>, platform: StorePlatform | undefined): unknown {
  if (Array.isArray(node)) return node.map((child) => withStoreIds(child, storeIds, platform));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node)) out[name] = withStoreIds(value, storeIds, platform);
  for (const field of PRODUCT_FIELDS) {
    const product = out[field] as { id?: unknown } | null | undefined;
    if (isNode(node) && product && typeof product.id === 'string') {
      out[field] = { ...product, store_product_id: storeProductId(storeIds.get(product.id) ?? {}, platform) };
    }
  }
  return out;
}

/** Whether an object is a component node (products sit on nodes, and a node's props are never walked for one). */
function isNode(node: object): boolean {
  return typeof (node as { type?: unknown }).type === 'string';
}

/**
 * The fallback paywalls: the bundle shipped in the app and the one last
 * downloaded, paywall by paywall, the newer revision winning.
 */
export class FallbackPaywalls {
  private readonly entries = new Map<string, FallbackPaywall>();
  private readonly placements = new Map<string, FallbackPlacement>();
  private etag: string | undefined;
  readonly ready: Promise<void>;

  constructor(
    shipped: readonly unknown[],
    private readonly storage: ClientStorage,
  ) {
    for (const bundle of shipped) this.add(checkBundle(bundle));
    this.ready = readJsonItem<DownloadedBundle>(this.storage, DOWNLOADED_BUNDLE_KEY).then((downloaded) => {
      if (!downloaded) return;
      try {
        this.add(checkBundle(downloaded.bundle));
        this.etag = downloaded.etag;
      } catch {
        // A stored bundle this version cannot read is ignored; the next download replaces it.
      }
    });
  }

  /** Takes each paywall and placement of a bundle whose revision is newer than the one held. */
  add(bundle: FallbackBundle): void {
    for (const paywall of bundle.paywalls) {
      const held = this.entries.get(paywall.paywall_id);
      if (!held || paywall.revision > held.revision) this.entries.set(paywall.paywall_id, paywall);
    }
    for (const placement of Array.isArray(bundle.placements) ? bundle.placements : []) {
      const held = this.placements.get(placement.placement);
      if (!held || placement.revision > held.revision) this.placements.set(placement.placement, placement);
    }
  }

  /** A placement as the bundles hold it, for deciding it offline. */
  placement(placementId: string): FallbackPlacement | undefined {
    return this.placements.get(placementId);
  }

  /** The ETag of the last downloaded bundle, for If-None-Match. */
  downloadedEtag(): string | undefined {
    return this.etag;
  }

  async saveDownloaded(etag: string, bundle: FallbackBundle): Promise<void> {
    this.add(bundle);
    this.etag = etag;
    await this.storage.setItem(DOWNLOADED_BUNDLE_KEY, JSON.stringify({ etag, bundle } satisfies DownloadedBundle));
  }

  revision(paywallId: string): number | undefined {
    return this.entries.get(paywallId)?.revision;
  }

  /** The paywall as GET /api/sdk/config would answer a request without userId, in the best of the given locales. */
  resolve(paywallId: string, locales: readonly string[], platform: StorePlatform | undefined): ResolvedPaywall | undefined {
    const entry = this.entries.get(paywallId);
    if (!entry) return undefined;
    const locale = pickLocale(locales, new Set(Object.keys(entry.trees)), entry.default_locale);
    const storeIds = new Map(entry.product_slots.map((slot) => [slot.product_id, slot.store_ids]));
    const tree = entry.trees[locale] ?? null;
    return {
      paywall_id: entry.paywall_id,
      revision: entry.revision,
      variant: entry.variant,
      locale,
      metadata: entry.metadata,
      ...(entry.theme && tree !== null ? { theme: entry.theme } : {}),
      root: tree === null ? null : (withStoreIds(tree, storeIds, platform) as Record<string, unknown>),
      product_slots: entry.product_slots.map((slot) => ({
        slot: slot.slot,
        product_id: slot.product_id,
        store_product_id: storeProductId(slot.store_ids, platform),
      })),
    };
  }
}
