import * as v from 'valibot';
import { ThemeSchema } from '../document/theme.ts';

const PLATFORMS = ['ios', 'android', 'web'] as const;
export type Platform = (typeof PLATFORMS)[number];

const Attribute = v.pipe(v.string(), v.maxLength(256));

/**
 * The query of GET /api/sdk/config. Custom attributes arrive as `attr.NAME=value`
 * parameters beside these and are read by name, so no schema lists them.
 */
export const SdkConfigQuerySchema = v.object({
  paywallId: v.pipe(v.string(), v.maxLength(64), v.description('The paywall to resolve')),
  userId: v.optional(v.pipe(Attribute, v.description('Stable id of the user; decides the variant. Without it the default variant is served'))),
  platform: v.optional(v.pipe(v.picklist(PLATFORMS), v.description("ios, android or web (any case); picks each product's store id"))),
  locale: v.optional(
    v.pipe(Attribute, v.description("BCP 47 tag such as de-AT or zh_Hant_TW; defaults to Accept-Language, then the paywall's default locale")),
  ),
  country: v.optional(v.pipe(Attribute, v.description('ISO 3166 country code, for audiences'))),
  appVersion: v.optional(v.pipe(Attribute, v.description("The app's version, for audiences ($vgt and friends)"))),
  explain: v.optional(
    v.pipe(
      v.picklist(['0', '1']),
      v.description('1 adds `explain` to the answer (hash, audiences and their conditions, variant, locale chain); needs a secret key, never sent by apps'),
    ),
  ),
});

/** The body of a resolved paywall; the tree is described in words, its nodes being the document's with strings and products filled in. */
export const ResolvedPaywallSchema = v.object({
  paywall_id: v.string(),
  revision: v.pipe(v.number(), v.integer()),
  variant: v.object({
    id: v.string(),
    audience: v.nullable(v.pipe(v.string(), v.description('The audience that matched, if any'))),
    assignment: v.pipe(v.picklist(['hashed', 'default']), v.description('hashed: chosen from userId; default: no userId, the first variant with traffic')),
  }),
  locale: v.string(),
  metadata: v.record(v.string(), v.unknown()),
  theme: v.optional(
    v.pipe(ThemeSchema, v.description('The document\'s theme, when it has one: colours the tree names as "@NAME" (light and dark) and fonts (their URLs)')),
  ),
  root: v.pipe(
    v.nullable(v.record(v.string(), v.unknown())),
    v.description(
      'The component tree with every text_key replaced by text (alt_key by alt, badge_key by badge) in the chosen locale, every node with a slot carrying `product` (for slot "selected", the product selected when the paywall opens: what an app that knows no selection buys), a toggle carrying `product_on` and `product_off`, `show_if` kept for the device to decide, and every node whose text, alt or badge holds variables (`{{SLOT.NAME}}`, `{{SLOT.savings_vs.OTHER}}`, `{{countdown}}`, kept as written) listing them in `variables`: `[{prop, slot, name, versus?, token}]` (no slot for countdown); null for a holdout variant',
    ),
  ),
  product_slots: v.array(v.object({ slot: v.string(), product_id: v.string(), store_product_id: v.nullable(v.string()) })),
});
export type ResolvedPaywall = v.InferOutput<typeof ResolvedPaywallSchema>;
