/**
 * layoutModel: a resolve answer and the store's prices turned into what a
 * screen shows, as plain data. renderPaywall draws it into the DOM; a
 * SwiftUI, Compose or React Native view can draw it with a switch over
 * `type` (docs/render.md).
 */
import { fillVariables } from '../src/paywalls/document/variables.ts';
import { intlLocale, priceValues } from './prices.ts';
import {
  type ComponentType,
  DRAWN_TYPES,
  type LayoutModel,
  type LayoutNode,
  type LayoutOptions,
  type LayoutProduct,
  type PaywallAction,
  type Prices,
  type ResolvedInput,
} from './types.ts';

type Json = Record<string, unknown>;

const DRAWN: ReadonlySet<string> = new Set(DRAWN_TYPES);

// The server accepts no others (src/paywalls/document/components.ts); a tree from elsewhere is held to the same rule.
const IMAGE_URL = /^(?:https:\/\/|data:image\/)/i;
const LINK_URL = /^(?:https?:\/\/|mailto:)/i;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

interface Context {
  products: Map<string, LayoutProduct>;
  asOlderApp: boolean;
}

/** Each slot's product with its price values; names come from the tree's slot-bound nodes, which carry the catalog's product. */
function slotProducts(resolved: ResolvedInput, prices: Prices, locale: string | undefined): Map<string, LayoutProduct> {
  const names = new Map<string, string | null>();
  const stack: unknown[] = [resolved.root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isObject(node)) continue;
    const slot = isObject(node.props) ? str(node.props.slot) : undefined;
    if (slot !== undefined && isObject(node.product)) names.set(slot, str(node.product.name) ?? null);
    if (Array.isArray(node.children)) stack.push(...node.children);
    if (node.fallback !== undefined) stack.push(node.fallback);
  }
  const products = new Map<string, LayoutProduct>();
  for (const { slot, product_id, store_product_id } of resolved.product_slots) {
    const name = names.get(slot) ?? null;
    const values = priceValues(Object.hasOwn(prices, product_id) ? prices[product_id] : undefined, locale) ?? {};
    const priced = values.price !== undefined;
    if (name !== null) values.product_name = name;
    products.set(slot, { slot, id: product_id, name, store_product_id, priced, values });
  }
  return products;
}

function fill(text: string, context: Context): { text: string; missing: number } {
  return fillVariables(text, ({ slot, name }) => (name === 'countdown' || name === 'savings_vs' ? undefined : context.products.get(slot)?.values[name]));
}

/** A label: filled; for a button, unfillable variables are left out and the spaces around them closed. */
function label(text: string, context: Context, button: boolean): { text: string; visible: boolean } {
  const filled = fill(text, context);
  if (filled.missing === 0) return { text: filled.text, visible: true };
  return button ? { text: filled.text.replace(/\s+/g, ' ').trim(), visible: true } : { text: '', visible: false };
}

function buttonAction(node: LayoutNode, props: Json): PaywallAction | undefined {
  const action = str(props.action);
  if (action === 'close' || action === 'restore') return { type: action };
  if (action === 'open_url') return node.url === undefined ? undefined : { type: 'link', url: node.url };
  if (action === 'custom') return node.id === undefined ? { type: 'custom' } : { type: 'custom', node_id: node.id };
  return undefined;
}

/** The type-specific part of a node: texts, urls, actions, products. */
function complete(node: LayoutNode, raw: Json, props: Json, context: Context): void {
  const text = str(props.text);
  switch (node.type) {
    case 'text':
    case 'link': {
      const filled = label(text ?? '', context, false);
      node.text = filled.text;
      node.visible = filled.visible;
      if (node.type === 'link') {
        const url = str(props.url);
        if (url !== undefined && LINK_URL.test(url)) node.url = url;
        node.enabled = node.url !== undefined;
        if (node.url !== undefined) node.action = { type: 'link', url: node.url };
      }
      return;
    }
    case 'image': {
      const url = str(props.url);
      if (url !== undefined && IMAGE_URL.test(url)) node.url = url;
      node.visible = node.url !== undefined;
      node.alt = label(str(props.alt) ?? '', context, true).text;
      return;
    }
    case 'button': {
      node.text = label(text ?? '', context, true).text;
      const url = str(props.url);
      if (url !== undefined && LINK_URL.test(url)) node.url = url;
      const action = buttonAction(node, props);
      if (action) node.action = action;
      node.enabled = action !== undefined;
      return;
    }
    case 'purchase_button':
    case 'product': {
      const slot = str(props.slot) ?? '';
      const product = isObject(raw.product) ? context.products.get(slot) : undefined;
      if (product) node.product = product;
      if (node.type === 'product') {
        node.visible = product !== undefined;
        return;
      }
      node.text = label(text ?? '', context, true).text;
      node.action = { type: 'purchase', slot, product_id: product?.id, store_product_id: product?.store_product_id ?? null };
      node.enabled = product?.priced === true;
      return;
    }
    case 'stack':
    case 'spacer':
    case 'icon':
      return;
  }
}

function layoutNode(raw: unknown, path: string, context: Context): LayoutNode | null {
  if (!isObject(raw)) return null;
  const type = str(raw.type) ?? '';
  if (raw.fallback !== undefined && (context.asOlderApp || !DRAWN.has(type))) return layoutNode(raw.fallback, `${path}/fallback`, context);
  if (!DRAWN.has(type)) return null;
  const { text: _text, alt: _alt, ...props } = isObject(raw.props) ? raw.props : {};
  const node: LayoutNode = { type: type as ComponentType, path, visible: true, props };
  const id = str(raw.id);
  if (id !== undefined) node.id = id;
  complete(node, raw, isObject(raw.props) ? raw.props : {}, context);
  if (type === 'stack' && Array.isArray(raw.children)) {
    node.children = raw.children.flatMap((child, i) => layoutNode(child, `${path}/children/${i}`, context) ?? []);
  }
  return node;
}

/**
 * The resolution of a paywall for a screen: every node of a type the
 * renderer knows (else its fallback, else nothing), its texts with price
 * variables filled from `prices` in the answer's locale, whether it shows,
 * and what a tap on it asks for. Pure: the same input gives the same output.
 */
export function layoutModel(resolved: ResolvedInput, prices: Prices = {}, options: LayoutOptions = {}): LayoutModel {
  const context: Context = { products: slotProducts(resolved, prices, intlLocale(resolved.locale)), asOlderApp: options.asOlderApp === true };
  return { locale: resolved.locale, root: resolved.root === null ? null : layoutNode(resolved.root, '', context) };
}
