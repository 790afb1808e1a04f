/**
 * What the editor edits: every variant at once (the paywall's own root,
 * slots and strings) or one variant, whose edits become its overrides. A
 * variant without its own root shows the paywall's; a structural edit made
 * for it copies that root into the variant first. Its slots and strings
 * are merged over the paywall's (locale by locale), as resolve merges them.
 */
import { getIn, isObject, type Json, type JsonObject, type Path, setIn, withKey } from './json.ts';

/** null: all variants (the paywall's own fields); else a variant id. */
export type Scope = string | null;

export type StringTables = Record<string, Record<string, string>>;

export function variantsOf(doc: JsonObject): JsonObject[] {
  return Array.isArray(doc.variants) ? doc.variants.filter(isObject) : [];
}

export function variantIndex(doc: JsonObject, id: string): number {
  return Array.isArray(doc.variants) ? doc.variants.findIndex((variant) => isObject(variant) && variant.id === id) : -1;
}

function variantOf(doc: JsonObject, scope: Scope): { index: number; variant: JsonObject } | null {
  if (scope === null) return null;
  const index = variantIndex(doc, scope);
  const variant = index < 0 ? undefined : (doc.variants as Json[])[index];
  return isObject(variant) ? { index, variant } : null;
}

export function defaultLocale(doc: JsonObject): string {
  return typeof doc.default_locale === 'string' ? doc.default_locale : 'en';
}

/** Where the tree the scope shows lives: the variant's own root, else the paywall's. */
export function rootPath(doc: JsonObject, scope: Scope): Path {
  const found = variantOf(doc, scope);
  return found && found.variant.root !== undefined ? ['variants', found.index, 'root'] : ['root'];
}

export function rootOf(doc: JsonObject, scope: Scope): Json | undefined {
  return getIn(doc, rootPath(doc, scope));
}

/** The tree `edit` changes is the scope's: a variant gets its own copy of the paywall's root on its first structural edit. */
export function editTree(doc: JsonObject, scope: Scope, edit: (root: JsonObject) => JsonObject): JsonObject {
  const found = variantOf(doc, scope);
  const path: Path = found ? ['variants', found.index, 'root'] : ['root'];
  const current = found ? (found.variant.root ?? doc.root) : doc.root;
  if (!isObject(current)) return doc;
  return setIn(doc, path, edit(current)) as JsonObject;
}

function tables(value: Json | undefined): StringTables {
  const out: StringTables = {};
  if (!isObject(value)) return out;
  for (const [locale, table] of Object.entries(value)) {
    if (!isObject(table)) continue;
    const texts: Record<string, string> = {};
    for (const [key, text] of Object.entries(table)) if (typeof text === 'string') texts[key] = text;
    out[locale] = texts;
  }
  return out;
}

/** The strings the scope serves: the paywall's, with the variant's merged over them locale by locale. */
export function stringsOf(doc: JsonObject, scope: Scope): StringTables {
  const base = tables(doc.strings);
  const found = variantOf(doc, scope);
  if (!found) return base;
  for (const [locale, table] of Object.entries(tables(found.variant.strings))) base[locale] = { ...base[locale], ...table };
  return base;
}

/** The variant's own strings (its overrides), empty for all variants. */
export function overriddenStrings(doc: JsonObject, scope: Scope): StringTables {
  const found = variantOf(doc, scope);
  return found ? tables(found.variant.strings) : {};
}

/**
 * Sets a text for the scope, `undefined` removing it. A variant's text equal
 * to the paywall's is no override: it is removed, and so are the tables it
 * leaves empty.
 */
export function setString(doc: JsonObject, scope: Scope, locale: string, key: string, text: string | undefined): JsonObject {
  const found = variantOf(doc, scope);
  if (!found) return setIn(doc, ['strings', locale, key], text) as JsonObject;
  const inherited = getIn(doc, ['strings', locale, key]);
  const path: Path = ['variants', found.index, 'strings'];
  let next = setIn(doc, [...path, locale, key], text === inherited ? undefined : text) as JsonObject;
  next = pruneEmpty(next, [...path, locale]);
  return pruneEmpty(next, path);
}

function pruneEmpty(doc: JsonObject, path: Path): JsonObject {
  const value = getIn(doc, path);
  return isObject(value) && Object.keys(value).length === 0 ? (setIn(doc, path, undefined) as JsonObject) : doc;
}

function slotTable(value: Json | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(value)) for (const [slot, product] of Object.entries(value)) if (typeof product === 'string') out[slot] = product;
  return out;
}

/** The slots the scope serves: the paywall's, with the variant's merged over them. */
export function slotsOf(doc: JsonObject, scope: Scope): Record<string, string> {
  const found = variantOf(doc, scope);
  return { ...slotTable(doc.slots), ...(found ? slotTable(found.variant.slots) : {}) };
}

export function overriddenSlots(doc: JsonObject, scope: Scope): Record<string, string> {
  const found = variantOf(doc, scope);
  return found ? slotTable(found.variant.slots) : {};
}

/** Puts a product in a slot for the scope (`undefined` removes the slot); a variant's choice equal to the paywall's is no override. */
export function setSlot(doc: JsonObject, scope: Scope, slot: string, product: string | undefined): JsonObject {
  const found = variantOf(doc, scope);
  if (!found) return withKey(doc, 'slots', withKey(isObject(doc.slots) ? doc.slots : {}, slot, product));
  const inherited = getIn(doc, ['slots', slot]);
  const path: Path = ['variants', found.index, 'slots'];
  return pruneEmpty(setIn(doc, [...path, slot], product === inherited ? undefined : product) as JsonObject, path);
}
