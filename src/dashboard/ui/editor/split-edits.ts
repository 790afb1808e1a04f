/**
 * Edits of the split: the variants (id, weight, control, holdout) and the
 * audiences (id, condition, weights per variant). Pure, and careful of what
 * they do not touch: a renamed or removed variant is renamed or removed in
 * every audience's weights too, and nothing else moves.
 */
import { phaseDesign } from '../../../experiments/phases.ts';
import { getIn, isObject, type Json, type JsonObject, renameKey, sameJson, setIn, withKey } from './json.ts';
import { variantIndex, variantsOf } from './scope.ts';

/** The server's default split for a document without variants. */
const SERVER_DEFAULT: Json[] = [{ id: 'default', weight: 100 }];

function variantList(doc: JsonObject): Json[] {
  return Array.isArray(doc.variants) ? doc.variants : SERVER_DEFAULT;
}

export function weightSum(doc: JsonObject): number {
  return variantList(doc).reduce<number>((sum, variant) => sum + (isObject(variant) && typeof variant.weight === 'number' ? variant.weight : 0), 0);
}

/** The next free id in a, b, c… (then b2, c2…), for a new variant. */
export function nextVariantId(doc: JsonObject): string {
  const taken = new Set(variantList(doc).flatMap((variant) => (isObject(variant) && typeof variant.id === 'string' ? [variant.id] : [])));
  for (let round = 1; ; round++) {
    for (const letter of 'bcdefghijklmnopqrstuvwxyz') {
      const id = round === 1 ? letter : `${letter}${round}`;
      if (!taken.has(id)) return id;
    }
  }
}

export function addVariant(doc: JsonObject, id: string, weight = 0): JsonObject {
  return withKey(doc, 'variants', [...variantList(doc), { id, weight }]);
}

function audiences(doc: JsonObject): Json[] {
  return Array.isArray(doc.audiences) ? doc.audiences : [];
}

/** Every audience's weights rewritten by `rewrite`; the document unchanged where it has no audiences. */
function eachAudienceWeights(doc: JsonObject, rewrite: (weights: JsonObject) => JsonObject): JsonObject {
  if (!Array.isArray(doc.audiences)) return doc;
  return withKey(
    doc,
    'audiences',
    doc.audiences.map((audience) => (isObject(audience) && isObject(audience.weights) ? withKey(audience, 'weights', rewrite(audience.weights)) : audience)),
  );
}

export function removeVariant(doc: JsonObject, id: string): JsonObject {
  const index = variantIndex(doc, id);
  if (index < 0) return doc;
  const next = setIn(doc, ['variants', index], undefined) as JsonObject;
  return eachAudienceWeights(next, (weights) => withKey(weights, id, undefined));
}

export function renameVariant(doc: JsonObject, from: string, to: string): JsonObject {
  const index = variantIndex(doc, from);
  if (index < 0 || from === to) return doc;
  const next = setIn(doc, ['variants', index, 'id'], to) as JsonObject;
  return eachAudienceWeights(next, (weights) => (Object.hasOwn(weights, from) ? renameKey(weights, from, to) : weights));
}

/** Sets a field of a variant (weight, holdout); undefined removes it. A document without variants gets the server's default first. */
export function setVariantValue(doc: JsonObject, id: string, field: string, value: Json | undefined): JsonObject {
  const materialized = Array.isArray(doc.variants) ? doc : withKey(doc, 'variants', SERVER_DEFAULT);
  const index = variantIndex(materialized, id);
  if (index < 0) return doc;
  return setIn(materialized, ['variants', index, field], value) as JsonObject;
}

/** Makes `id` the control (the only one), or, with null, leaves the first listed variant the control by default. */
export function setControl(doc: JsonObject, id: string | null): JsonObject {
  let next = doc;
  for (const variant of variantsOf(doc)) {
    const variantId = String(variant.id);
    if (variantId === id) next = setVariantValue(next, variantId, 'control', true);
    else if (variant.control !== undefined) next = setVariantValue(next, variantId, 'control', undefined);
  }
  return next;
}

export function addAudience(doc: JsonObject, id: string): JsonObject {
  const weights: JsonObject = {};
  for (const variant of variantsOf(doc)) weights[String(variant.id)] = typeof variant.weight === 'number' ? variant.weight : 0;
  return withKey(doc, 'audiences', [...audiences(doc), { id, when: {}, weights }]);
}

export function removeAudience(doc: JsonObject, index: number): JsonObject {
  return setIn(doc, ['audiences', index], undefined) as JsonObject;
}

/** The audience at `index` one place up or down: the first whose condition matches decides. */
export function moveAudience(doc: JsonObject, index: number, delta: -1 | 1): JsonObject {
  const list = audiences(doc).slice();
  const to = index + delta;
  if (to < 0 || to >= list.length) return doc;
  [list[index], list[to]] = [list[to]!, list[index]!];
  return withKey(doc, 'audiences', list);
}

export function setAudienceValue(doc: JsonObject, index: number, field: string, value: Json | undefined): JsonObject {
  if (getIn(doc, ['audiences', index]) === undefined) return doc;
  return setIn(doc, ['audiences', index, field], value) as JsonObject;
}

export function setAudienceWeight(doc: JsonObject, index: number, variant: string, weight: number | undefined): JsonObject {
  if (getIn(doc, ['audiences', index]) === undefined) return doc;
  return setIn(doc, ['audiences', index, 'weights', variant], weight) as JsonObject;
}

/**
 * Whether publishing `draft` in place of `live` starts a new experiment
 * phase: the server's own rule (phaseDesign: variants, weights, holdouts,
 * control, audiences), compared by content.
 */
export function splitChanged(draft: JsonObject, live: JsonObject): boolean {
  const design = (doc: JsonObject) =>
    phaseDesign({ variants: variantList(doc), audiences: audiences(doc) } as unknown as Parameters<typeof phaseDesign>[0]) as unknown as Json;
  return !sameJson(design(draft), design(live));
}
