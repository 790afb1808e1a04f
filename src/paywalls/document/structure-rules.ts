/**
 * The rules of a tree's shape that its schema cannot say: packages live in
 * a package_group, a tree has one selection (a package_group or a toggle)
 * and only then may name "selected", pages and packages have limits, a
 * countdown has one end, and a fallback (what an app too old for a node
 * shows) holds nothing such an app cannot draw.
 */
import { type Path, pointer } from '../../shared/pointer.ts';
import { type ComponentNode, NEWER_TYPES, SELECTED } from './components.ts';
import { walkTree } from './tree.ts';

type Problem = { path: string; message: string };

export const MAX_PACKAGES = 6;
export const MAX_PAGES = 10;

const NO_SELECTION = 'Names the selection ("selected"), but this tree has no package_group or toggle';
const SELECTED_IN_FALLBACK = 'A fallback is shown by apps that know no selection: name a slot, not "selected"';

/** Whether a tree has a selection that current apps show: a package_group or a toggle outside any fallback. */
export function hasSelection(root: ComponentNode, rootPath: Path): boolean {
  for (const { node, inFallback } of walkTree(root, rootPath)) {
    if (!inFallback && (node.type === 'package_group' || node.type === 'toggle')) return true;
  }
  return false;
}

/** The slot a tree's selection holds when the paywall opens: its package_group's default_slot, or its toggle's slot by default. */
export function initialSelection(root: ComponentNode): string | undefined {
  for (const { node, inFallback } of walkTree(root, [])) {
    if (inFallback) continue;
    if (node.type === 'package_group') return node.props.default_slot;
    if (node.type === 'toggle') return node.props.default ? node.props.slot_on : node.props.slot_off;
  }
  return undefined;
}

function groupErrors(node: ComponentNode & { type: 'package_group' }, path: Path): Problem[] {
  const errors: Problem[] = [];
  const children = node.children ?? [];
  const slots = new Set<string>();
  children.forEach((child, i) => {
    if (child.type !== 'package') {
      errors.push({ path: pointer([...path, 'children', i]), message: 'A package_group holds package nodes only' });
    } else if (slots.has(child.props.slot)) {
      errors.push({ path: pointer([...path, 'children', i, 'props', 'slot']), message: 'Another package of this group has this slot' });
    } else {
      slots.add(child.props.slot);
    }
  });
  if (children.length === 0) errors.push({ path: pointer(path), message: 'A package_group needs at least one package' });
  if (children.length > MAX_PACKAGES) errors.push({ path: pointer([...path, 'children']), message: `At most ${MAX_PACKAGES} packages in a group` });
  if (children.length > 0 && !slots.has(node.props.default_slot)) {
    errors.push({ path: pointer([...path, 'props', 'default_slot']), message: "Must be the slot of one of the group's packages" });
  }
  return errors;
}

/** What a node of a newer type, or a reference to the selection, may not be: inside a fallback, or without a selection. */
function selectedErrors(node: ComponentNode, path: Path, inFallback: boolean, selection: boolean): Problem[] {
  const places: Path[] = [];
  if (node.type === 'purchase_button' && node.props.slot === SELECTED) places.push([...path, 'props', 'slot']);
  if (node.show_if?.slot === SELECTED) places.push([...path, 'show_if', 'slot']);
  if (inFallback) return places.map((place) => ({ path: pointer(place), message: SELECTED_IN_FALLBACK }));
  return selection ? [] : places.map((place) => ({ path: pointer(place), message: NO_SELECTION }));
}

function nodeErrors(node: ComponentNode, path: Path): Problem[] {
  switch (node.type) {
    case 'package_group':
      return groupErrors(node, path);
    case 'toggle':
      return node.props.slot_on === node.props.slot_off ? [{ path: pointer([...path, 'props', 'slot_off']), message: 'Must differ from slot_on' }] : [];
    case 'pages': {
      const count = node.children?.length ?? 0;
      if (count === 0) return [{ path: pointer(path), message: 'A pages node needs at least one page' }];
      return count > MAX_PAGES ? [{ path: pointer([...path, 'children']), message: `At most ${MAX_PAGES} pages` }] : [];
    }
    case 'countdown': {
      const { ends_at, duration_seconds } = node.props;
      if (ends_at !== undefined && !Number.isFinite(Date.parse(ends_at))) {
        return [{ path: pointer([...path, 'props', 'ends_at']), message: 'Must be a real date and time' }];
      }
      if (ends_at !== undefined && duration_seconds !== undefined) {
        return [{ path: pointer([...path, 'props', 'duration_seconds']), message: 'Give either ends_at or duration_seconds, not both' }];
      }
      return ends_at === undefined && duration_seconds === undefined
        ? [{ path: pointer([...path, 'props']), message: 'Requires ends_at or duration_seconds' }]
        : [];
    }
    default:
      return [];
  }
}

/** The shape rules of one tree (a paywall's root or a variant's). */
export function structureErrors(root: ComponentNode, rootPath: Path): Problem[] {
  const errors: Problem[] = [];
  const selection = hasSelection(root, rootPath);
  let selections = 0;
  // A refused node's children go unreported: the one error says what to fix.
  const refused = new Set<ComponentNode>();
  for (const { node, path, inFallback, parent } of walkTree(root, rootPath)) {
    if (parent && refused.has(parent)) {
      refused.add(node);
      continue;
    }
    if (inFallback && NEWER_TYPES.has(node.type)) {
      errors.push({ path: pointer(path), message: `A fallback is shown by apps too old for ${node.type}: it cannot hold one` });
      refused.add(node);
      continue;
    }
    if (node.type === 'package' && parent?.type !== 'package_group') {
      errors.push({ path: pointer(path), message: 'A package must be a child of a package_group' });
    }
    if (!inFallback && (node.type === 'package_group' || node.type === 'toggle') && ++selections > 1) {
      errors.push({ path: pointer(path), message: 'A paywall has one selection: this is a second package_group or toggle' });
    }
    errors.push(...nodeErrors(node, path), ...selectedErrors(node, path, inFallback, selection));
  }
  return errors;
}
