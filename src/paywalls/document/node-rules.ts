import { type Path, pointer } from '../../shared/pointer.ts';
import { type ComponentNode, SELECTED } from './components.ts';
import { structureErrors } from './structure-rules.ts';
import type { Theme } from './theme.ts';
import { themeReferenceErrors } from './theme-rules.ts';
import { walkTree } from './tree.ts';

/** What a tree's references resolve against: the default locale's strings and the slots, overrides merged in, and the theme. */
interface TreeScope {
  strings: Readonly<Record<string, string>>;
  slots: Readonly<Record<string, string>>;
  theme: Theme | undefined;
}

type Problem = { path: string; message: string };

/** A label is literal text or a key into the strings table: exactly one of the two. */
function labelErrors(props: { text?: string; text_key?: string }, propsPath: Path, scope: TreeScope): Problem[] {
  if (props.text !== undefined && props.text_key !== undefined) {
    return [{ path: pointer([...propsPath, 'text_key']), message: 'Give either text or text_key, not both' }];
  }
  if (props.text === undefined && props.text_key === undefined) {
    return [{ path: pointer(propsPath), message: 'Requires text or text_key' }];
  }
  return keyErrors(props.text_key, [...propsPath, 'text_key'], scope);
}

function keyErrors(key: string | undefined, path: Path, scope: TreeScope): Problem[] {
  // hasOwn, not `in`: a key such as "constructor" must not resolve to Object.prototype.
  if (key === undefined || Object.hasOwn(scope.strings, key)) return [];
  return [{ path: pointer(path), message: "Not a key of the default locale's strings" }];
}

/** A slot a prop names must be one of `slots`; "selected" too where `selected` is allowed (structure-rules.ts says when it may be). */
function slotErrors(slot: string, path: Path, scope: TreeScope, selected = false): Problem[] {
  if (Object.hasOwn(scope.slots, slot) || (selected && slot === SELECTED)) return [];
  return [{ path: pointer(path), message: 'Not a slot defined in slots' }];
}

function nodeErrors(node: ComponentNode, propsPath: Path, scope: TreeScope): Problem[] {
  switch (node.type) {
    case 'text':
    case 'link':
      return labelErrors(node.props, propsPath, scope);
    case 'purchase_button':
      return [...slotErrors(node.props.slot, [...propsPath, 'slot'], scope, true), ...labelErrors(node.props, propsPath, scope)];
    case 'product':
      return slotErrors(node.props.slot, [...propsPath, 'slot'], scope);
    case 'package_group':
      return slotErrors(node.props.default_slot, [...propsPath, 'default_slot'], scope);
    case 'package':
      return [...slotErrors(node.props.slot, [...propsPath, 'slot'], scope), ...keyErrors(node.props.badge_key, [...propsPath, 'badge_key'], scope)];
    case 'toggle':
      return [
        ...slotErrors(node.props.slot_on, [...propsPath, 'slot_on'], scope),
        ...slotErrors(node.props.slot_off, [...propsPath, 'slot_off'], scope),
        ...keyErrors(node.props.text_key, [...propsPath, 'text_key'], scope),
      ];
    case 'countdown':
      return keyErrors(node.props.text_key, [...propsPath, 'text_key'], scope);
    case 'image': {
      const { alt, alt_key } = node.props;
      if (alt !== undefined && alt_key !== undefined) {
        return [{ path: pointer([...propsPath, 'alt_key']), message: 'Give either alt or alt_key, not both' }];
      }
      return keyErrors(alt_key, [...propsPath, 'alt_key'], scope);
    }
    case 'button': {
      const errors = labelErrors(node.props, propsPath, scope);
      const urlPath = pointer([...propsPath, 'url']);
      if (node.props.action === 'open_url' && node.props.url === undefined) {
        errors.push({ path: urlPath, message: 'The open_url action requires a url' });
      } else if (node.props.action !== 'open_url' && node.props.url !== undefined) {
        errors.push({ path: urlPath, message: 'A url is only allowed with the open_url action' });
      }
      return errors;
    }
    case 'stack':
    case 'spacer':
    case 'icon':
    case 'pages':
    case 'video':
      return [];
  }
}

/** The checks of a tree's nodes that need the rest of the document: labels, string keys, slots, button urls, theme names, its shape. */
export function treeReferenceErrors(root: ComponentNode, rootPath: Path, scope: TreeScope): Problem[] {
  const errors: Problem[] = [];
  for (const { node, path } of walkTree(root, rootPath)) {
    errors.push(...nodeErrors(node, [...path, 'props'], scope));
    if (node.show_if) errors.push(...slotErrors(node.show_if.slot, [...path, 'show_if', 'slot'], scope, true));
  }
  errors.push(...structureErrors(root, rootPath), ...themeReferenceErrors(root, rootPath, scope.theme));
  return errors;
}
