import type { StoreIds } from './schema.ts';

/** The platforms an app names when it resolves a paywall. */
export type StorePlatform = 'ios' | 'android' | 'web';

/**
 * A product's id in the store of a platform: App Store on iOS, Google Play on
 * Android, Stripe (else the other web checkout) on the web; null without one
 * or without a platform. Pure, so the client applies the same rule to the
 * fallback bundle's products that the resolve endpoint applies on the server.
 */
export function storeProductId(storeIds: StoreIds, platform: StorePlatform | undefined): string | null {
  switch (platform) {
    case 'ios':
      return storeIds.app_store ?? null;
    case 'android':
      return storeIds.play_store ?? null;
    case 'web':
      return storeIds.stripe ?? storeIds.web ?? null;
    case undefined:
      return null;
  }
}
