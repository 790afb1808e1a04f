/** The products in a paywall's slots with their store prices, and texts filled from them. */
import { fillVariables } from '../src/paywalls/document/variables.ts';
import { priceValues, savings } from './prices.ts';
import type { LayoutProduct, Prices, ResolvedInput, StorePrice } from './types.ts';

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What a text is filled from: each slot's product and store price, the selected slot, the locale, a countdown's time left. */
export interface Fill {
  products: ReadonlyMap<string, LayoutProduct>;
  prices: ReadonlyMap<string, StorePrice | undefined>;
  selected: string | null;
  locale: string | undefined;
}

/** The slot a variable's slot names: "selected" is the selection's. */
export function slotOf(slot: string, fill: Fill): string | undefined {
  return slot === 'selected' ? (fill.selected ?? undefined) : slot;
}

/** Names of the slots' products, from the nodes that carry one (a slot-bound node's `product`, a toggle's two). */
function productNames(root: unknown): Map<string, string | null> {
  const names = new Map<string, string | null>();
  const stack: unknown[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isObject(node)) continue;
    const props = isObject(node.props) ? node.props : {};
    for (const [slotProp, productField] of [
      ['slot', 'product'],
      ['slot_on', 'product_on'],
      ['slot_off', 'product_off'],
    ] as const) {
      const slot = str(props[slotProp]);
      const product = node[productField];
      if (slot !== undefined && isObject(product)) names.set(slot, str(product.name) ?? null);
    }
    if (Array.isArray(node.children)) stack.push(...node.children);
    if (node.fallback !== undefined) stack.push(node.fallback);
  }
  return names;
}

/** Each slot's product with its price values, and its store price. */
export function slotProducts(resolved: ResolvedInput, prices: Prices, locale: string | undefined): Pick<Fill, 'products' | 'prices'> {
  const names = productNames(resolved.root);
  const products = new Map<string, LayoutProduct>();
  const slotPrices = new Map<string, StorePrice | undefined>();
  for (const { slot, product_id, store_product_id } of resolved.product_slots) {
    const name = names.get(slot) ?? null;
    const price = Object.hasOwn(prices, product_id) ? prices[product_id] : undefined;
    const values = priceValues(price, locale) ?? {};
    const priced = values.price !== undefined;
    if (name !== null) values.product_name = name;
    products.set(slot, { slot, id: product_id, name, store_product_id, priced, values });
    slotPrices.set(slot, priced ? price : undefined);
  }
  return { products, prices: slotPrices };
}

/** A text with its variables filled; `countdown` is the time a countdown has left, for its own text. */
export function fill(text: string, context: Fill, countdown?: string): { text: string; missing: number } {
  return fillVariables(text, ({ slot, name, versus }) => {
    if (name === 'countdown') return countdown;
    const own = slotOf(slot, context);
    if (own === undefined) return undefined;
    if (name === 'savings_vs') return savings(context.prices.get(own), context.prices.get(slotOf(versus!, context) ?? ''), context.locale);
    return context.products.get(own)?.values[name];
  });
}

/** A label: filled; for a button, unfillable variables are left out and the spaces around them closed. */
export function label(text: string, context: Fill, button: boolean, countdown?: string): { text: string; visible: boolean } {
  const filled = fill(text, context, countdown);
  if (filled.missing === 0) return { text: filled.text, visible: true };
  return button ? { text: filled.text.replace(/\s+/g, ' ').trim(), visible: true } : { text: '', visible: false };
}
