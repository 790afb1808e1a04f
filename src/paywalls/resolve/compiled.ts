import type { StoreIds } from '../../products/schema.ts';
import { storeProductId } from '../../products/store-product-id.ts';
import { digestTag } from '../../shared/digest.ts';
import type { ComponentNode } from '../document/components.ts';
import type { PaywallOutput } from '../document/schema.ts';
import { initialSelection } from '../document/structure-rules.ts';
import { type Attributes, compileCondition } from '../targeting/condition.ts';
import { assignBucketAfter, pickByWeights, seedHash } from '../targeting/hash.ts';
import { pickLocale } from '../targeting/locale.ts';
import { usesServerAttributes } from '../targeting/server-attributes.ts';
import type { Platform, ResolvedPaywall } from './schema.ts';
import { LocaleStrings } from './strings.ts';
import { resolveTree, type SlotProduct } from './tree.ts';

/** A product of the catalog as a compiled paywall keeps it. */
interface CatalogProduct {
  name: string;
  store_ids: StoreIds;
}

interface CompileInput {
  paywallId: string;
  revision: number;
  /** The current experiment phase's seed suffix (experiments/phases.ts); none by default. */
  seedSuffix?: string;
  document: PaywallOutput;
  /** The project's product with this id, undefined when it has none. */
  product(productId: string): CatalogProduct | undefined;
}

interface CompiledVariant {
  id: string;
  holdout: boolean;
  root: ComponentNode | null;
  /** The slot the root's selection holds when it opens, if it has one. */
  selected: string | undefined;
  /** Slot → product id, the paywall's slots with the variant's merged over them. */
  slots: readonly (readonly [slot: string, productId: string])[];
  strings: LocaleStrings;
  locales: ReadonlySet<string>;
  metadata: Record<string, unknown>;
}

/** Weights aligned with the variants, and the variant served when there is no userId to hash. */
interface Split {
  weights: readonly number[];
  first: number;
}

interface CompiledAudience {
  id: string;
  matches: (attributes: Attributes) => boolean;
  split: Split;
}

/** The variant a request gets, and why. */
interface Choice {
  readonly variant: number;
  /** Index of the audience that matched, -1 for none. */
  readonly audience: number;
  /** false: no userId, so the split's first variant with traffic. */
  readonly hashed: boolean;
}

/** A resolved response, serialised once and served as is until the paywall is recompiled. */
interface ServedBody {
  body: Buffer;
  etag: string;
  /** The headers of a 200 and of a 304: Content-Type (200 only), ETag, Cache-Control, Vary. */
  headers: Readonly<Record<string, string>>;
  notModifiedHeaders: Readonly<Record<string, string>>;
}

/** Distinct bodies kept per paywall; past it the cache starts over rather than grow without bound. */
const MAX_CACHED_BODIES = 1024;

/** The body cache's platform dimension: none, then the platforms. */
const PLATFORM_SLOTS = 4;
function platformSlot(platform: Platform | undefined): number {
  switch (platform) {
    case undefined:
      return 0;
    case 'ios':
      return 1;
    case 'android':
      return 2;
    case 'web':
      return 3;
  }
}

function split(weights: number[]): Split {
  return {
    weights,
    first: Math.max(
      0,
      weights.findIndex((weight) => weight > 0),
    ),
  };
}

/**
 * A published revision compiled for the resolve hot path: variants with
 * their merged slots, strings and metadata, audience conditions compiled to
 * closures, weights as arrays. Responses are serialised on first use per
 * (variant, audience, assignment, locale, platform) and then served from
 * memory with their ETag; nothing here touches the database.
 */
export class CompiledPaywall {
  readonly paywallId: string;
  readonly revision: number;
  /** Every product some variant's slots name. */
  readonly productIds: ReadonlySet<string>;
  /** The ids of its variants and audiences: names its events may bring that the ingestion limits never refuse (analytics/name-budget.ts). */
  readonly variantIds: ReadonlySet<string>;
  readonly audienceIds: ReadonlySet<string>;
  /** Some audience tests purchases.*: a request needs a userId, and its user's facts (server-facts.ts). */
  readonly usesFacts: boolean;
  /** The current phase's seed suffix, and the seed users are hashed with: the document's seed (else the paywall id) and that suffix. */
  readonly seedSuffix: string;
  readonly seedText: string;
  /** The hash state after seedText. */
  private readonly seed: number;
  private readonly variants: CompiledVariant[];
  private readonly split: Split;
  private readonly audiences: CompiledAudience[];
  private readonly theme: PaywallOutput['theme'];
  /** Every possible Choice, made once, at choiceIndex(): the hot path allocates none. */
  private readonly choices: Choice[] = [];
  private readonly products = new Map<string, CatalogProduct | undefined>();
  /**
   * Served bodies by locale, one map per (variant, audience, assignment,
   * platform), at choiceIndex() * PLATFORM_SLOTS + the platform's slot: the
   * hot path finds a body with arithmetic and one lookup of a locale tag.
   */
  private bodies: (Map<string, ServedBody> | undefined)[] = [];
  private cachedBodies = 0;

  constructor(input: CompileInput) {
    const doc = input.document;
    this.paywallId = input.paywallId;
    this.revision = input.revision;
    this.seedSuffix = input.seedSuffix ?? '';
    this.seedText = (doc.seed ?? input.paywallId) + this.seedSuffix;
    this.seed = seedHash(this.seedText);
    this.theme = doc.theme;
    this.variants = doc.variants.map((variant): CompiledVariant => {
      const holdout = variant.holdout === true;
      const strings = new LocaleStrings(doc.default_locale, doc.strings, variant.strings);
      const root = holdout ? null : (variant.root ?? doc.root);
      return {
        id: variant.id,
        holdout,
        root,
        selected: root ? initialSelection(root) : undefined,
        slots: holdout ? [] : Object.entries({ ...doc.slots, ...variant.slots }),
        strings,
        locales: strings.locales(),
        metadata: { ...doc.metadata, ...variant.metadata },
      };
    });
    this.split = split(doc.variants.map((variant) => variant.weight));
    this.audiences = doc.audiences.map((audience) => ({
      id: audience.id,
      matches: compileCondition(audience.when),
      // hasOwn: a variant named `constructor` that the audience leaves out must weigh 0, not Object.
      split: split(doc.variants.map((variant) => (Object.hasOwn(audience.weights, variant.id) ? audience.weights[variant.id]! : 0))),
    }));
    this.usesFacts = doc.audiences.some((audience) => usesServerAttributes(audience.when));
    for (let variant = 0; variant < this.variants.length; variant++) {
      for (let audience = -1; audience < this.audiences.length; audience++) {
        for (const hashed of [false, true]) this.choices[this.choiceIndex(variant, audience, hashed)] = Object.freeze({ variant, audience, hashed });
      }
    }
    const productIds = new Set<string>();
    for (const variant of this.variants) for (const [, productId] of variant.slots) productIds.add(productId);
    for (const productId of productIds) this.products.set(productId, input.product(productId));
    this.productIds = productIds;
    this.variantIds = new Set(this.variants.map((variant) => variant.id));
    this.audienceIds = new Set(this.audiences.map((audience) => audience.id));
  }

  /** The first audience that matches decides the weights; the user id's bucket decides the variant. */
  choose(userId: string | undefined, attributes: Attributes): Choice {
    let audience = -1;
    let weights = this.split;
    for (let i = 0; i < this.audiences.length; i++) {
      const candidate = this.audiences[i]!;
      if (candidate.matches(attributes)) {
        audience = i;
        weights = candidate.split;
        break;
      }
    }
    if (userId === undefined) return this.choices[this.choiceIndex(weights.first, audience, false)]!;
    const picked = pickByWeights(assignBucketAfter(this.seed, userId), weights.weights);
    return this.choices[this.choiceIndex(picked < 0 ? weights.first : picked, audience, true)]!;
  }

  /** What a request with no userId that no audience matches gets: the variant the fallback bundle carries. */
  defaultChoice(): Choice {
    return { variant: this.split.first, audience: -1, hashed: false };
  }

  /** The normalised locales a choice's variant can be served in: those it has strings for, and its default. */
  localesOf(choice: Choice): string[] {
    const variant = this.variants[choice.variant]!;
    return [...new Set([variant.strings.defaultLocale, ...variant.locales])];
  }

  /** The catalog entry of a product some variant's slots name, as compiled (undefined when the catalog lacks it). */
  product(productId: string): CatalogProduct | undefined {
    return this.products.get(productId);
  }

  variantId(choice: Choice): string {
    return this.variants[choice.variant]!.id;
  }

  /** The response for a choice, the locales the request asked for and its platform. */
  serve(choice: Choice, locales: readonly string[], platform: Platform | undefined): ServedBody {
    const variant = this.variants[choice.variant]!;
    const locale = pickLocale(locales, variant.locales, variant.strings.defaultLocale);
    const index = this.choiceIndex(choice.variant, choice.audience, choice.hashed) * PLATFORM_SLOTS + platformSlot(platform);
    let served = this.bodies[index]?.get(locale);
    if (!served) {
      if (this.cachedBodies >= MAX_CACHED_BODIES) {
        this.bodies = [];
        this.cachedBodies = 0;
      }
      served = this.render(choice, variant, locale, platform);
      let byLocale = this.bodies[index];
      if (!byLocale) this.bodies[index] = byLocale = new Map();
      byLocale.set(locale, served);
      this.cachedBodies++;
    }
    return served;
  }

  /** A dense index of (variant, audience, assignment), for the choices and the body cache. */
  private choiceIndex(variant: number, audience: number, hashed: boolean): number {
    return (variant * (this.audiences.length + 1) + audience + 1) * 2 + (hashed ? 1 : 0);
  }

  private render(choice: Choice, variant: CompiledVariant, locale: string, platform: Platform | undefined): ServedBody {
    const slotProducts = new Map<string, SlotProduct>();
    for (const [slot, productId] of variant.slots) {
      const product = this.products.get(productId);
      slotProducts.set(slot, {
        id: productId,
        name: product?.name ?? null,
        store_product_id: product ? storeProductId(product.store_ids, platform) : null,
      });
    }
    const text = variant.strings.lookup(locale);
    const resolved: ResolvedPaywall = {
      paywall_id: this.paywallId,
      revision: this.revision,
      variant: {
        id: variant.id,
        audience: choice.audience < 0 ? null : this.audiences[choice.audience]!.id,
        assignment: choice.hashed ? 'hashed' : 'default',
      },
      locale,
      metadata: variant.metadata,
      ...(this.theme && !variant.holdout ? { theme: this.theme } : {}),
      root: variant.root && resolveTree(variant.root, { text, product: (slot) => slotProducts.get(slot), selected: variant.selected }),
      product_slots: [...slotProducts].map(([slot, product]) => ({
        slot,
        product_id: product.id,
        store_product_id: product.store_product_id,
      })),
    };
    const body = Buffer.from(JSON.stringify(resolved));
    const etag = digestTag(body);
    const cache = { ETag: etag, 'Cache-Control': 'private, max-age=60', Vary: 'Accept-Language' };
    return { body, etag, headers: { 'Content-Type': 'application/json', ...cache }, notModifiedHeaders: cache };
  }
}
