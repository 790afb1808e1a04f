/**
 * The offline fallback bundle: what an app ships in its binary (or refreshes
 * from GET /api/sdk/fallback) so that it can show a paywall when the server
 * cannot be reached. The client's types are generated from these schemas.
 */
import * as v from 'valibot';
import { StoreIdsSchema } from '../../products/schema.ts';
import { ResolvedPaywallSchema } from '../resolve/schema.ts';

/** The bundle's format; a client refuses bundles of a format it does not know. */
export const FALLBACK_FORMAT = 1;
/** The most paywalls one bundle request may name. */
export const MAX_FALLBACK_PAYWALLS = 100;

export const FallbackQuerySchema = v.object({
  paywallId: v.optional(
    v.pipe(
      v.string(),
      v.description(
        `the paywalls to include, comma-separated or as repeated parameters (at most ${MAX_FALLBACK_PAYWALLS}); ids that are not live are left out`,
      ),
    ),
  ),
  placement: v.optional(
    v.pipe(
      v.string(),
      v.description(
        `the placements to include, likewise (at most ${MAX_FALLBACK_PAYWALLS}), with every live paywall their rules name; archived ones are left out. paywallId or placement is required`,
      ),
    ),
  ),
});

/** One live paywall's default variant, rendered in every locale it has, with its products' ids in every store; fonts, images, videos and posters as URLs, never their bytes. */
export const FallbackPaywallSchema = v.object({
  paywall_id: v.string(),
  revision: v.pipe(v.number(), v.integer()),
  hash: v.pipe(v.string(), v.description('SHA-256 (base64url) of this entry without the hash: equal hashes, equal content')),
  variant: ResolvedPaywallSchema.entries.variant,
  default_locale: v.pipe(v.string(), v.description("the locale served when none of the app's locales is in `trees`")),
  metadata: v.record(v.string(), v.unknown()),
  theme: ResolvedPaywallSchema.entries.theme,
  trees: v.pipe(
    v.record(v.string(), v.nullable(v.record(v.string(), v.unknown()))),
    v.description('normalised locale tag → the resolved tree in that locale, with store_product_id null; null trees are a holdout variant'),
  ),
  product_slots: v.array(
    v.object({
      slot: v.string(),
      product_id: v.string(),
      name: v.nullable(v.string()),
      store_ids: v.pipe(StoreIdsSchema, v.description("the product's id in each store: the client picks its platform's")),
    }),
  ),
});
export type FallbackPaywall = v.InferOutput<typeof FallbackPaywallSchema>;

/**
 * One placement of the fallback bundle: its rules as an app decides them
 * offline (docs/guide/placements.md, "Offline"): in order, the first whose
 * audience matches the app's attributes decides, and one that tests what
 * only the server knows stops the walk with nothing shown.
 */
export const FallbackPlacementSchema = v.object({
  placement: v.string(),
  revision: v.pipe(v.number(), v.integer()),
  rules: v.array(
    v.object({
      paywall_id: v.string(),
      audience: v.pipe(v.nullable(v.record(v.string(), v.unknown())), v.description('the condition on the request attributes; null: every user')),
      server_only: v.pipe(
        v.boolean(),
        v.description('the audience tests purchases.*, which only the server knows: offline, a walk that reaches this rule shows nothing'),
      ),
      holdout_percent: v.number(),
      frequency: v.nullable(v.object({ limit: v.number(), per: v.picklist(['session', 'day', 'week', 'ever']) })),
    }),
  ),
  default: v.pipe(v.nullable(v.string()), v.description('the paywall shown when no rule matches; null: nothing')),
});
export type FallbackPlacement = v.InferOutput<typeof FallbackPlacementSchema>;

export const FallbackBundleSchema = v.object({
  format: v.literal(FALLBACK_FORMAT),
  paywalls: v.array(FallbackPaywallSchema),
  placements: v.optional(v.pipe(v.array(FallbackPlacementSchema), v.description('present when the bundle was asked for placements'))),
});
export type FallbackBundle = v.InferOutput<typeof FallbackBundleSchema>;
