/**
 * The edits the outline and the properties make, on the whole document and
 * for a scope (all variants, or one variant whose edits become its
 * overrides: scope.ts): add, move, drop, duplicate and delete a node, set
 * one of its values, and set its text, which always lives in the strings (a
 * key per text, per locale). Pure: each takes a document and gives a new
 * one, or null when the edit cannot be made there.
 */
import { getIn, isObject, type Json, type JsonObject, type Path, withKey } from './json.ts';
import { newNode } from './new-node.ts';
import { defaultLocale, editTree, rootOf, rootPath, type Scope, setString, slotsOf, variantsOf } from './scope.ts';
import { insertChild, moveAmongSiblings, moveTo, nodeAt, removeNode, replaceNode, siblingPlace, walkNodes } from './tree.ts';
import { VOCABULARY } from './vocabulary.ts';

interface Placed {
  doc: JsonObject;
  path: Path;
}

function descriptorOf(type: Json | undefined) {
  return VOCABULARY.find((descriptor) => descriptor.type === type);
}

/** The props of a type of one kind: those that name string keys (text_key, alt_key, badge_key…), or slots; from the vocabulary. */
export function propsOfKind(type: Json | undefined, kind: 'text_key' | 'slot'): string[] {
  return descriptorOf(type)?.props.flatMap((prop) => (prop.kind === kind ? [prop.name] : [])) ?? [];
}

/** Every string key of the document, in every locale of the paywall and of each variant. */
function stringKeys(doc: JsonObject): Set<string> {
  const keys = new Set<string>();
  for (const holder of [doc, ...variantsOf(doc)]) {
    if (!isObject(holder.strings)) continue;
    for (const table of Object.values(holder.strings)) if (isObject(table)) for (const key of Object.keys(table)) keys.add(key);
  }
  return keys;
}

/** A key generator that never repeats a key of `doc` (nor one it gave). */
function keyMaker(doc: JsonObject): (type: string) => string {
  const used = stringKeys(doc);
  return (type) => {
    let n = 1;
    while (used.has(`${type}_${n}`)) n++;
    const key = `${type}_${n}`;
    used.add(key);
    return key;
  };
}

/** A tree edit that also says where the node it concerns ends up. */
function placed(doc: JsonObject, scope: Scope, edit: (root: JsonObject) => { root: JsonObject; path: Path } | null): Placed | null {
  const root = rootOf(doc, scope);
  const done = isObject(root) ? edit(root) : null;
  // Nothing done, nothing written: a variant gets no copy of the root for an edit that could not be made.
  return done && { doc: editTree(doc, scope, () => done.root), path: done.path };
}

/** A new node of `type`, last child of the node at `parent`, its texts in the default locale of the scope's strings. */
export function addNode(doc: JsonObject, scope: Scope, parent: Path, type: string): Placed | null {
  const descriptor = descriptorOf(type);
  const holder = nodeAt(rootOf(doc, scope), parent);
  if (!descriptor || !holder || descriptorOf(holder.type)?.children === null) return null;
  const { node, texts } = newNode(descriptor, { slots: Object.keys(slotsOf(doc, scope)), freshKey: keyMaker(doc) });
  const done = placed(doc, scope, (root) => insertChild(root, parent, node));
  if (!done) return null;
  let next = done.doc;
  for (const [key, text] of Object.entries(texts)) next = setString(next, scope, defaultLocale(doc), key, text);
  return { doc: next, path: done.path };
}

export function deleteNode(doc: JsonObject, scope: Scope, path: Path): JsonObject {
  if (path.length === 0 || !nodeAt(rootOf(doc, scope), path)) return doc;
  return editTree(doc, scope, (root) => removeNode(root, path));
}

export function moveNode(doc: JsonObject, scope: Scope, path: Path, delta: -1 | 1): Placed | null {
  return placed(doc, scope, (root) => moveAmongSiblings(root, path, delta));
}

/** A drag and drop: the node at `from` into the children of `parent`, at `index` as counted before the move. */
export function dropNode(doc: JsonObject, scope: Scope, from: Path, parent: Path, index: number): Placed | null {
  return placed(doc, scope, (root) => moveTo(root, from, parent, index));
}

/**
 * A copy of the node right after it. The copy gets keys of its own (with the
 * same texts, in every locale of the paywall and of each variant), so that
 * editing one text does not change the other, and node ids of its own.
 */
export function duplicateNode(doc: JsonObject, scope: Scope, path: Path): Placed | null {
  const original = nodeAt(rootOf(doc, scope), path);
  const place = siblingPlace(path);
  if (!original || !place) return null;
  const freshKey = keyMaker(doc);
  const ids = new Set<string>();
  for (const { node } of walkNodes(rootOf(doc, scope))) if (typeof node.id === 'string') ids.add(node.id);
  const renamed = new Map<string, string>();
  const copy = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(copy);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [name, value] of Object.entries(node)) out[name] = copy(value);
    if (typeof out.id === 'string') out.id = uniqueId(out.id, ids);
    if (isObject(out.props)) {
      const props: JsonObject = { ...out.props };
      for (const prop of propsOfKind(out.type, 'text_key')) {
        const key = props[prop];
        if (typeof key !== 'string') continue;
        if (!renamed.has(key)) renamed.set(key, freshKey(String(out.type)));
        props[prop] = renamed.get(key)!;
      }
      out.props = props;
    }
    return out;
  };
  const clone = copy(original) as JsonObject;
  const done = placed(doc, scope, (root) => insertChild(root, place.parent, clone, place.index + 1));
  return done && { doc: copyTexts(done.doc, renamed), path: done.path };
}

function uniqueId(id: string, taken: Set<string>): string {
  let n = 2;
  while (taken.has(`${id}_${n}`)) n++;
  taken.add(`${id}_${n}`);
  return `${id}_${n}`;
}

/** Each text of an old key copied to its new key, wherever a strings table holds it. */
function copyTexts(doc: JsonObject, renamed: ReadonlyMap<string, string>): JsonObject {
  const copyIn = (strings: Json | undefined): Json | undefined => {
    if (!isObject(strings)) return strings;
    const out: JsonObject = {};
    for (const [locale, table] of Object.entries(strings)) {
      let next = table;
      if (isObject(table)) for (const [from, to] of renamed) if (typeof table[from] === 'string') next = withKey(next as JsonObject, to, table[from]);
      out[locale] = next;
    }
    return out;
  };
  let next = withKey(doc, 'strings', copyIn(doc.strings));
  if (Array.isArray(doc.variants)) {
    next = withKey(
      next,
      'variants',
      doc.variants.map((variant) => (isObject(variant) && variant.strings !== undefined ? withKey(variant, 'strings', copyIn(variant.strings)) : variant)),
    );
  }
  return next;
}

/** Sets a value of the node (`['props', 'style', 'color']`, `['id']`, `['show_if']`); undefined removes it, and a style left empty. */
export function setNodeValue(doc: JsonObject, scope: Scope, path: Path, field: Path, value: Json | undefined): JsonObject {
  const node = nodeAt(rootOf(doc, scope), path);
  if (!node) return doc;
  let next = setField(node, field, value);
  if (next === node) return doc;
  const parent = field.slice(0, -1);
  const holder = getIn(next, parent);
  if (value === undefined && parent.length > 1 && isObject(holder) && Object.keys(holder).length === 0) next = setField(next, parent, undefined);
  return editTree(doc, scope, (root) => replaceNode(root, path, next));
}

function setField(node: JsonObject, field: Path, value: Json | undefined): JsonObject {
  if (field.length === 0) return node;
  const [first, ...rest] = field;
  const key = String(first);
  if (rest.length === 0) return withKey(node, key, value);
  const inner = isObject(node[key]) ? (node[key] as JsonObject) : {};
  if (value === undefined && !Object.hasOwn(node, key)) return node;
  return withKey(node, key, setField(inner, rest, value));
}

/**
 * Sets a node's text in `locale`. `literal` is the prop that may hold the
 * text itself (`text`, `alt`) and `keyProp` the one naming its string key.
 * A node without a key gets one: the prop is replaced in place, in the tree
 * the scope shows, and the paywall's default locale keeps the text it had,
 * so every other variant and locale reads as before; then the text is set
 * for the scope.
 */
export function setNodeText(doc: JsonObject, scope: Scope, path: Path, keyProp: string, literal: string | null, locale: string, text: string): JsonObject {
  const node = nodeAt(rootOf(doc, scope), path);
  if (!node) return doc;
  const props = isObject(node.props) ? node.props : {};
  const key = props[keyProp];
  if (typeof key === 'string') return setString(doc, scope, locale, key, text);
  const fresh = keyMaker(doc)(typeof node.id === 'string' ? node.id : String(node.type));
  const before = literal !== null && typeof props[literal] === 'string' ? (props[literal] as string) : undefined;
  const keyed: JsonObject = {};
  for (const [name, value] of Object.entries(props)) keyed[name === literal ? keyProp : name] = name === literal ? fresh : value;
  if (!Object.hasOwn(keyed, keyProp)) keyed[keyProp] = fresh;
  // The tree the scope shows holds the node; the key goes there without making a variant copy of the paywall's root.
  const own = rootPath(doc, scope).length === 1 ? null : scope;
  let next = editTree(doc, own, (root) => replaceNode(root, path, withKey(node, 'props', keyed)));
  next = setString(next, null, defaultLocale(doc), fresh, before ?? text);
  return setString(next, scope, locale, fresh, text);
}

/** Gives the node a fallback of `type` (a new node, as added), or removes it with undefined. */
export function setFallback(doc: JsonObject, scope: Scope, path: Path, type: string | undefined): JsonObject {
  if (type === undefined) return setNodeValue(doc, scope, path, ['fallback'], undefined);
  const descriptor = descriptorOf(type);
  if (!descriptor) return doc;
  const { node, texts } = newNode(descriptor, { slots: Object.keys(slotsOf(doc, scope)), freshKey: keyMaker(doc) });
  let next = setNodeValue(doc, scope, path, ['fallback'], node);
  for (const [key, text] of Object.entries(texts)) next = setString(next, scope, defaultLocale(doc), key, text);
  return next;
}
