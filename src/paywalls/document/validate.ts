import * as v from 'valibot';
import { describeIssue, issuePath } from '../../shared/issues.ts';
import { type Path, pointer } from '../../shared/pointer.ts';
import { validateCondition } from '../targeting/condition.ts';
import { serverAttributeProblems } from '../targeting/server-attributes.ts';
import { arraysGivenForObjects } from './arrays.ts';
import { SELECTED } from './components.ts';
import { guardrailErrors } from './experiment.ts';
import { limitErrors } from './limits.ts';
import { treeReferenceErrors } from './node-rules.ts';
import { comparePointers } from './pointer.ts';
import { type PaywallOutput, PaywallSchema } from './schema.ts';
import { type StoreCatalog, storeIdWarnings } from './store-id-warnings.ts';
import { themeErrors } from './theme-rules.ts';
import { variableErrors } from './variable-rules.ts';
import { type PaywallWarning, paywallWarnings } from './warnings.ts';

export type DocumentError = { path: string; message: string };

export interface PaywallDeps {
  /** Whether the project's catalog has this product. */
  productExists(productId: string): boolean;
  /** The catalog's store ids and platforms: slots without a store id on a platform the project sells on are warned of. */
  catalog?: StoreCatalog;
}

type PaywallValidation = { ok: true; value: PaywallOutput; warnings: PaywallWarning[] } | { ok: false; errors: DocumentError[] };

function slotProductErrors(slots: Readonly<Record<string, string>>, slotsPath: Path, productExists: (productId: string) => boolean): DocumentError[] {
  return Object.entries(slots).flatMap(([slot, productId]) => {
    if (slot === SELECTED)
      return [{ path: pointer([...slotsPath, slot]), message: `"${SELECTED}" is reserved: it names the slot a package_group or toggle selects` }];
    return productExists(productId) ? [] : [{ path: pointer([...slotsPath, slot]), message: 'No product with this id exists in the project' }];
  });
}

function duplicateIdErrors(items: readonly { id: string }[], listPath: Path, what: string): DocumentError[] {
  const seen = new Set<string>();
  const errors: DocumentError[] = [];
  items.forEach(({ id }, i) => {
    if (seen.has(id)) errors.push({ path: pointer([...listPath, i, 'id']), message: `Duplicate ${what} id` });
    seen.add(id);
  });
  return errors;
}

// A split where every weight is zero has no variant to give anyone.
const ALL_ZERO = 'At least one variant needs a weight above zero';

function variantErrors(doc: PaywallOutput, productExists: (productId: string) => boolean): DocumentError[] {
  const errors = duplicateIdErrors(doc.variants, ['variants'], 'variant');
  if (doc.variants.every((variant) => variant.weight === 0)) errors.push({ path: '/variants', message: ALL_ZERO });
  doc.variants.forEach((variant, i) => {
    if (variant.holdout) {
      for (const key of ['root', 'slots', 'strings'] as const) {
        if (variant[key] !== undefined) {
          errors.push({ path: pointer(['variants', i, key]), message: 'A holdout variant shows no paywall and cannot override it' });
        }
      }
      return;
    }
    if (variant.slots) errors.push(...slotProductErrors(variant.slots, ['variants', i, 'slots'], productExists));
    if (variant.root) {
      errors.push(
        ...treeReferenceErrors(variant.root, ['variants', i, 'root'], {
          strings: { ...doc.strings[doc.default_locale], ...variant.strings?.[doc.default_locale] },
          slots: { ...doc.slots, ...variant.slots },
          theme: doc.theme,
        }),
      );
    }
  });
  return errors;
}

function audienceErrors(doc: PaywallOutput): DocumentError[] {
  const errors = duplicateIdErrors(doc.audiences, ['audiences'], 'audience');
  const variantIds = new Set(doc.variants.map((variant) => variant.id));
  doc.audiences.forEach((audience, i) => {
    const when = pointer(['audiences', i, 'when']);
    for (const problem of [...validateCondition(audience.when), ...serverAttributeProblems(audience.when)]) {
      errors.push({ path: when + problem.path, message: problem.message });
    }
    const weights = Object.entries(audience.weights);
    for (const [variantId] of weights) {
      if (!variantIds.has(variantId)) {
        errors.push({ path: pointer(['audiences', i, 'weights', variantId]), message: 'No variant has this id' });
      }
    }
    if (weights.every(([, weight]) => weight === 0)) {
      errors.push({ path: pointer(['audiences', i, 'weights']), message: ALL_ZERO });
    }
  });
  return errors;
}

/** The rules that need more than one place of the document, or the product catalog. */
function documentErrors(doc: PaywallOutput, deps: PaywallDeps): DocumentError[] {
  const known = new Map<string, boolean>();
  // Each distinct product is looked up once, however many slots name it.
  const productExists = (productId: string): boolean => {
    let exists = known.get(productId);
    if (exists === undefined) known.set(productId, (exists = deps.productExists(productId)));
    return exists;
  };
  const errors: DocumentError[] = [];
  if (!Object.hasOwn(doc.strings, doc.default_locale)) {
    errors.push({ path: '/default_locale', message: 'The strings have no table for the default locale' });
  }
  errors.push(
    ...slotProductErrors(doc.slots, ['slots'], productExists),
    ...treeReferenceErrors(doc.root, ['root'], { strings: doc.strings[doc.default_locale] ?? {}, slots: doc.slots, theme: doc.theme }),
    ...variantErrors(doc, productExists),
    ...audienceErrors(doc),
    ...variableErrors(doc),
    ...themeErrors(doc.theme),
    ...guardrailErrors(doc.experiment),
  );
  doc.variants.forEach((variant, i) => {
    if (variant.control === true && doc.variants.findIndex((other) => other.control === true) < i) {
      errors.push({ path: pointer(['variants', i, 'control']), message: 'Only one variant can be the control' });
    }
  });
  return errors;
}

function failure(errors: DocumentError[]): PaywallValidation {
  const unique = new Map(errors.map((error) => [`${error.path}\u0000${error.message}`, error]));
  const sorted = [...unique.values()].sort((a, b) => comparePointers(a.path, b.path) || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  return { ok: false, errors: sorted };
}

/**
 * Validates a paywall document as written by a client: its schema, then the
 * rules that span the document (string keys, slots, products, variants,
 * audiences). Errors carry JSON pointers into the input and never quote its
 * values; warnings point at things a valid paywall most likely should have.
 */
export function validatePaywall(input: unknown, deps: PaywallDeps): PaywallValidation {
  const tooBig = limitErrors(input);
  if (tooBig.length > 0) return failure(tooBig);
  const parsed = v.safeParse(PaywallSchema, input, { abortPipeEarly: true, message: describeIssue });
  if (!parsed.success) {
    return failure(parsed.issues.map((issue) => ({ path: pointer(issuePath(issue)), message: issue.message })));
  }
  const errors = [...arraysGivenForObjects(input, parsed.output), ...documentErrors(parsed.output, deps)];
  if (errors.length > 0) return failure(errors);
  const storeWarnings = deps.catalog ? storeIdWarnings(parsed.output, deps.catalog) : [];
  return { ok: true, value: parsed.output, warnings: [...paywallWarnings(parsed.output, Date.now()), ...storeWarnings] };
}
