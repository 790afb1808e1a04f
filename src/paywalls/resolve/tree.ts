import { type ComponentNode, SELECTED } from '../document/components.ts';
import { type PriceVariable, scanVariables } from '../document/variables.ts';

/** What a node bound to a slot carries for the app: the product in that slot. */
export interface SlotProduct {
  id: string;
  name: string | null;
  store_product_id: string | null;
}

interface TreeBindings {
  /** The text of a string key in the chosen locale (with its fallbacks). */
  text(key: string): string | undefined;
  /** The product of a slot for the requested platform. */
  product(slot: string): SlotProduct | undefined;
  /** The slot the tree's selection holds when it opens, if it has one. */
  selected: string | undefined;
}

/** Props whose value is a string key, and the literal prop that replaces each. */
const KEYED_PROPS: Readonly<Record<string, string>> = { text_key: 'text', alt_key: 'alt', badge_key: 'badge' };

function resolveProps(props: Readonly<Record<string, unknown>>, bindings: TreeBindings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    const literal = Object.hasOwn(KEYED_PROPS, name) ? KEYED_PROPS[name] : undefined;
    // Validation guarantees every key exists in the default locale, the end of every fallback chain.
    if (literal !== undefined) out[literal] = bindings.text(value as string) ?? '';
    else out[name] = value;
  }
  return out;
}

/** A variable as resolve lists it: the prop whose text holds it, beside the variable ({{countdown}} has no slot). */
type ListedVariable = Omit<PriceVariable, 'slot'> & { prop: string; slot?: string };

/** The variables of a node's resolved texts, so that an app need not parse them. */
function variablesOf(props: Readonly<Record<string, unknown>>): ListedVariable[] {
  const listed: ListedVariable[] = [];
  for (const prop of ['text', 'alt', 'badge']) {
    const text = props[prop];
    if (typeof text !== 'string') continue;
    for (const { slot, ...variable } of scanVariables(text).variables) listed.push(slot === '' ? { prop, ...variable } : { prop, slot, ...variable });
  }
  return listed;
}

/**
 * The tree an app renders: the document's nodes, in the author's key order,
 * with string keys replaced by text and slot-bound nodes (product,
 * purchase_button, package) carrying their product ("selected": the one
 * selected when the paywall opens, for apps that know no selection; the
 * device knows what the user picks), a toggle its two (`product_on`,
 * `product_off`), and nodes whose texts hold variables listing them in
 * `variables` (absent when there are none).
 * Fallback nodes are resolved the same way, since older apps render them.
 * Recursion is bounded by the write-time depth limit.
 */
export function resolveTree(node: ComponentNode, bindings: TreeBindings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node)) {
    if (name === 'props') {
      const props = resolveProps(value as Record<string, unknown>, bindings);
      out.props = props;
      const variables = variablesOf(props);
      if (variables.length > 0) out.variables = variables;
    } else if (name === 'children') out.children = (value as ComponentNode[]).map((child) => resolveTree(child, bindings));
    else if (name === 'fallback') out.fallback = resolveTree(value as ComponentNode, bindings);
    else out[name] = value;
  }
  const slot = (node.props as { slot?: string } | undefined)?.slot;
  // "selected" carries what is selected when the paywall opens: an app that knows no selection buys that.
  const bound = slot === SELECTED ? bindings.selected : slot;
  if (slot !== undefined) out.product = (bound !== undefined && bindings.product(bound)) || null;
  if (node.type === 'toggle') {
    out.product_on = bindings.product(node.props.slot_on) ?? null;
    out.product_off = bindings.product(node.props.slot_off) ?? null;
  }
  return out;
}
