import { createHash } from 'node:crypto';
import type { CompiledPaywall } from '../resolve/compiled.ts';
import type { ResolvedPaywall } from '../resolve/schema.ts';
import { FALLBACK_FORMAT, type FallbackBundle, type FallbackPaywall, type FallbackPlacement } from './schema.ts';

/**
 * A live paywall's entry of the fallback bundle: its default variant (what a
 * request without userId that no audience matches gets), rendered through the
 * same path as GET /api/sdk/config in each locale the variant has, without a
 * platform; the client fills in each product's store id for its platform.
 */
export function fallbackEntry(compiled: CompiledPaywall): FallbackPaywall {
  const choice = compiled.defaultChoice();
  const trees: FallbackPaywall['trees'] = {};
  let first: ResolvedPaywall | undefined;
  for (const locale of compiled.localesOf(choice)) {
    const resolved = JSON.parse(compiled.serve(choice, [locale], undefined).body.toString('utf8')) as ResolvedPaywall;
    trees[resolved.locale] = resolved.root;
    first ??= resolved;
  }
  // localesOf always holds the default locale, so the loop ran at least once.
  const base = first!;
  const content: Omit<FallbackPaywall, 'hash'> = {
    paywall_id: base.paywall_id,
    revision: base.revision,
    variant: base.variant,
    default_locale: base.locale,
    metadata: base.metadata,
    ...(base.theme ? { theme: base.theme } : {}),
    trees,
    product_slots: base.product_slots.map(({ slot, product_id }) => {
      const product = compiled.product(product_id);
      return { slot, product_id, name: product?.name ?? null, store_ids: product?.store_ids ?? {} };
    }),
  };
  const hash = createHash('sha256').update(JSON.stringify(content)).digest('base64url');
  return { ...content, hash };
}

/** The bundle of the given live paywalls, in the order given, and of these placements (undefined: none asked for). */
export function fallbackBundle(paywalls: readonly CompiledPaywall[], placements?: readonly FallbackPlacement[]): FallbackBundle {
  return { format: FALLBACK_FORMAT, paywalls: paywalls.map(fallbackEntry), ...(placements ? { placements: [...placements] } : {}) };
}
