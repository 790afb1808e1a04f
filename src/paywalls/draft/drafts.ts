import * as v from 'valibot';
import type { Product } from '../../products/schema.ts';
import { DomainError } from '../../shared/errors.ts';
import { IdSchema } from '../../shared/id.ts';
import { ID_RULE } from '../../shared/id-pattern.ts';
import type { JsonValue } from '../../shared/json.ts';
import { type ProductCatalog, productsById } from '../catalog.ts';
import { type PaywallOutput, validatePaywall } from '../document/index.ts';
import { storeCatalog } from '../document/store-id-warnings.ts';
import type { PaywallWarning } from '../document/warnings.ts';
import { CompiledPaywall } from '../resolve/compiled.ts';
import type { PreviewRequest } from './schema.ts';

/** The revision number a preview of an unsaved document reports: no stored revision has it. */
const UNSAVED_REVISION = 0;

/**
 * What an editor needs while the author types: the server's own validation
 * of a document without storing it, and the resolve of it for one chosen
 * variant, locale, platform and country, exactly as the SDK endpoint would
 * serve it once published. Nothing here writes.
 */
export class PaywallDrafts {
  constructor(private readonly products: ProductCatalog) {}

  /** The warnings a PUT of this document would answer; a DomainError with every error at its pointer when it is invalid. */
  async validate(projectId: string, paywallId: string, document: JsonValue): Promise<PaywallWarning[]> {
    return (await this.check(projectId, paywallId, document, '')).warnings;
  }

  /** The resolved paywall as serialised JSON, the bytes the SDK endpoint would send. */
  async preview(projectId: string, paywallId: string, request: PreviewRequest): Promise<Uint8Array> {
    const { value, products } = await this.check(projectId, paywallId, request.document, '/document');
    const compiled = new CompiledPaywall({
      paywallId,
      revision: UNSAVED_REVISION,
      document: value,
      product: (productId) => products.get(productId),
    });
    const attributes: Record<string, unknown> = {};
    if (request.platform !== undefined) attributes.platform = request.platform;
    if (request.country !== undefined) attributes.country = request.country.toUpperCase();
    if (request.locale !== undefined) attributes.locale = request.locale;
    // The audience is still decided by the attributes; only the variant is the author's pick.
    const chosen = compiled.choose(undefined, attributes);
    // choose() hands out shared read-only choices: the author's pick is a new one.
    const choice = request.variant === undefined ? chosen : { ...chosen, variant: variantIndex(value, request.variant) };
    const locales = request.locale === undefined ? [] : [request.locale];
    return compiled.serve(choice, locales, request.platform).body;
  }

  private async check(
    projectId: string,
    paywallId: string,
    document: unknown,
    prefix: string,
  ): Promise<{ value: PaywallOutput; warnings: PaywallWarning[]; products: ReadonlyMap<string, Product> }> {
    if (!v.is(IdSchema, paywallId)) {
      throw new DomainError('invalid_id', `a paywall id is ${ID_RULE}`);
    }
    const products = await productsById(this.products, projectId);
    const validation = validatePaywall(document, { productExists: (productId) => products.has(productId), catalog: storeCatalog(products.values()) });
    if (!validation.ok) {
      const errors = validation.errors.map((error) => ({ path: prefix + error.path, message: error.message }));
      throw new DomainError('validation_failed', 'the paywall document is invalid; see errors', { errors });
    }
    return { value: validation.value, warnings: validation.warnings, products };
  }
}

function variantIndex(document: PaywallOutput, variantId: string): number {
  const index = document.variants.findIndex((variant) => variant.id === variantId);
  if (index < 0)
    throw new DomainError('validation_failed', 'the request is invalid; see errors', {
      errors: [{ path: '/variant', message: 'The document has no variant with this id' }],
    });
  return index;
}
