/**
 * The outline as rows: each node of the tree the scope shows, named by its
 * type and its text or id ("text: Unlock everything"), at its level, with
 * the variants that change it. Pure, so a 300-node tree is walked once per
 * edit and the rows are compared cheaply.
 */
import { isObject, type Json, type JsonObject, type Path, sameJson } from './json.ts';
import { propsOfKind } from './node-edits.ts';
import type { StringTables } from './scope.ts';
import { childrenOf, nodeAt, walkNodes } from './tree.ts';
import { VOCABULARY } from './vocabulary.ts';

export interface OutlineRow {
  path: Path;
  /** The path as a JSON pointer below the root ('' for the root): the row's identity. */
  id: string;
  level: number;
  name: string;
  /** Whether it has children or a fallback, shown below it unless collapsed. */
  parent: boolean;
  fallback: boolean;
  position: number;
  siblings: number;
}

export function pathId(path: Path): string {
  return path.map((step) => `/${step}`).join('');
}

export function pathFromId(id: string): Path {
  return id === ''
    ? []
    : id
        .slice(1)
        .split('/')
        .map((step) => (/^\d+$/.test(step) ? Number(step) : step));
}

/** What names a node after its type: its text (in `locale`, else the default locale), else its id, else its slot or icon. */
function nodeLabel(node: JsonObject, strings: StringTables, locale: string, fallbackLocale: string): string {
  const props = isObject(node.props) ? node.props : {};
  const lookup = (key: Json | undefined) => (typeof key === 'string' ? (strings[locale]?.[key] ?? strings[fallbackLocale]?.[key]) : undefined);
  const descriptor = VOCABULARY.find((entry) => entry.type === node.type);
  for (const prop of descriptor?.props ?? []) {
    if (prop.kind === 'text' && typeof props[prop.name] === 'string') return props[prop.name] as string;
    if (prop.kind === 'text_key' && prop.name !== 'badge_key' && lookup(props[prop.name]) !== undefined) return lookup(props[prop.name])!;
  }
  if (typeof node.id === 'string') return node.id;
  for (const prop of descriptor?.props ?? []) {
    if ((prop.kind === 'slot' || prop.kind === 'icon_name') && typeof props[prop.name] === 'string') return props[prop.name] as string;
  }
  return '';
}

function nodeName(node: JsonObject, fallback: boolean, label: string): string {
  const type = `${String(node.type)}${fallback ? ' (fallback)' : ''}`;
  return label === '' ? type : `${type}: ${label}`;
}

/** The rows shown: every node, but none below a collapsed one. */
export function outlineRows(
  root: Json | undefined,
  strings: StringTables,
  locale: string,
  fallbackLocale: string,
  collapsed: ReadonlySet<string>,
): OutlineRow[] {
  const rows: OutlineRow[] = [];
  const visit = (node: Json | undefined, path: Path, level: number, position: number, siblings: number, fallback: boolean) => {
    if (!isObject(node)) return;
    const children = childrenOf(node);
    const id = pathId(path);
    const parent = children.length > 0 || node.fallback !== undefined;
    rows.push({ path, id, level, name: nodeName(node, fallback, nodeLabel(node, strings, locale, fallbackLocale)), parent, fallback, position, siblings });
    if (!parent || collapsed.has(id)) return;
    const count = children.length + (node.fallback === undefined ? 0 : 1);
    for (let i = 0; i < children.length; i++) visit(children[i], [...path, 'children', i], level + 1, i + 1, count, false);
    if (node.fallback !== undefined) visit(node.fallback, [...path, 'fallback'], level + 1, count, count, true);
  };
  visit(root, [], 1, 1, 1, false);
  return rows;
}

/** A node's own values (what the outline would call a change of it): all but its children and fallback, and how many children. */
function ownDiffers(a: JsonObject | undefined, b: JsonObject | undefined): boolean {
  if (!a || !b) return a !== b;
  if (a === b) return false;
  const own = (node: JsonObject) => Object.keys(node).filter((key) => key !== 'children' && key !== 'fallback');
  const keys = own(a);
  if (keys.length !== own(b).length || childrenOf(a).length !== childrenOf(b).length) return true;
  return keys.some((key) => !sameJson(a[key], b[key]));
}

/**
 * For each node of the tree the scope shows (by row id), the variants that
 * change it: a variant root that differs there from the paywall's, or a
 * variant's own strings or slots that the node names.
 */
export function variantChanges(doc: JsonObject, shown: Json | undefined): Map<string, string[]> {
  const changes = new Map<string, string[]>();
  const variants = Array.isArray(doc.variants) ? doc.variants.filter(isObject) : [];
  for (const variant of variants) {
    if (variant.holdout === true || typeof variant.id !== 'string') continue;
    const strings = isObject(variant.strings) ? Object.values(variant.strings).filter(isObject) : [];
    const slots = isObject(variant.slots) ? variant.slots : {};
    for (const { node, path } of walkNodes(shown)) {
      const own = variant.root === undefined ? undefined : nodeAt(variant.root, path);
      const props = isObject((own ?? node).props) ? ((own ?? node).props as JsonObject) : {};
      const type = (own ?? node).type;
      const names = (kind: 'text_key' | 'slot') => propsOfKind(type, kind).flatMap((prop) => (typeof props[prop] === 'string' ? [props[prop] as string] : []));
      const texts = names('text_key').some((key) => strings.some((table) => Object.hasOwn(table, key)));
      const slotted = names('slot').some((slot) => Object.hasOwn(slots, slot));
      const tree = variant.root !== undefined && ownDiffers(own, nodeAt(doc.root, path));
      if (texts || slotted || tree) {
        const id = pathId(path);
        changes.set(id, [...(changes.get(id) ?? []), variant.id]);
      }
    }
  }
  return changes;
}
