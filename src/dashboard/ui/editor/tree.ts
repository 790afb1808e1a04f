/**
 * Pure edits of a component tree, each taking the root and giving a new one
 * (only the nodes on the way are copied). A node is named by its path from
 * the root: `[]` the root, `['children', 0]` its first child,
 * `['children', 0, 'fallback']` that child's fallback.
 */
import { getIn, isObject, type Json, type JsonObject, type Path, setIn } from './json.ts';

export function nodeAt(root: Json | undefined, path: Path): JsonObject | undefined {
  const node = getIn(root, path);
  return isObject(node) ? node : undefined;
}

/** The list a node sits in and its place there; null for the root and for a fallback. */
export function siblingPlace(path: Path): { parent: Path; index: number } | null {
  const index = path.at(-1);
  if (typeof index !== 'number' || path.at(-2) !== 'children') return null;
  return { parent: path.slice(0, -2), index };
}

export function childrenOf(node: JsonObject | undefined): Json[] {
  return node && Array.isArray(node.children) ? node.children : [];
}

/** Whether `inner` is `outer` or lies inside it. */
function within(inner: Path, outer: Path): boolean {
  return outer.length <= inner.length && outer.every((step, i) => inner[i] === step);
}

export function replaceNode(root: JsonObject, path: Path, node: JsonObject | undefined): JsonObject {
  if (path.length === 0) return node ?? root;
  return setIn(root, path, node) as JsonObject;
}

/** `node` as a child of the node at `parent`, at `index` (default last). */
export function insertChild(root: JsonObject, parent: Path, node: JsonObject, index?: number): { root: JsonObject; path: Path } {
  const children = childrenOf(nodeAt(root, parent)).slice();
  const at = Math.max(0, Math.min(index ?? children.length, children.length));
  children.splice(at, 0, node);
  return { root: setIn(root, [...parent, 'children'], children) as JsonObject, path: [...parent, 'children', at] };
}

export function removeNode(root: JsonObject, path: Path): JsonObject {
  if (path.length === 0) return root;
  return setIn(root, path, undefined) as JsonObject;
}

/** The node one place up (-1) or down (+1) among its siblings; null where it cannot go. */
export function moveAmongSiblings(root: JsonObject, path: Path, delta: -1 | 1): { root: JsonObject; path: Path } | null {
  const place = siblingPlace(path);
  if (!place) return null;
  const children = childrenOf(nodeAt(root, place.parent)).slice();
  const to = place.index + delta;
  if (to < 0 || to >= children.length) return null;
  [children[place.index], children[to]] = [children[to]!, children[place.index]!];
  return { root: setIn(root, [...place.parent, 'children'], children) as JsonObject, path: [...place.parent, 'children', to] };
}

/**
 * The node at `from` moved into the children of `parent` at `index` (as
 * counted before the move): what a drop does. Null when it would go into
 * itself, or `from` is the root or a fallback.
 */
export function moveTo(root: JsonObject, from: Path, parent: Path, index: number): { root: JsonObject; path: Path } | null {
  const place = siblingPlace(from);
  const node = nodeAt(root, from);
  if (!place || !node || within(parent, from)) return null;
  const sameList = place.parent.length === parent.length && within(parent, place.parent);
  // Removing first shifts what comes after it in the same list, and in lists below a later sibling.
  const removed = removeNode(root, from);
  const shifted = shiftAfterRemoval(parent, place);
  const at = sameList && place.index < index ? index - 1 : index;
  return insertChild(removed, shifted, node, at);
}

function shiftAfterRemoval(path: Path, removed: { parent: Path; index: number }): Path {
  const depth = removed.parent.length;
  if (path.length <= depth + 1 || !within(path, removed.parent) || path[depth] !== 'children') return path;
  const index = path[depth + 1] as number;
  return index > removed.index ? [...path.slice(0, depth + 1), index - 1, ...path.slice(depth + 2)] : path;
}

/** Every node of the tree with its path, fallbacks after children, depth first. */
export function* walkNodes(node: Json | undefined, path: Path = []): Generator<{ node: JsonObject; path: Path }> {
  if (!isObject(node)) return;
  yield { node, path };
  const children = childrenOf(node);
  for (let i = 0; i < children.length; i++) yield* walkNodes(children[i], [...path, 'children', i]);
  if (node.fallback !== undefined) yield* walkNodes(node.fallback, [...path, 'fallback']);
}
