/** The public shapes of dist/render: what it takes (a resolve answer, store prices) and what it gives (a layout, actions). */

/** The component types the renderer draws; any other type is drawn by its fallback, or not at all. */
export const DRAWN_TYPES = ['stack', 'text', 'image', 'button', 'purchase_button', 'product', 'spacer', 'icon', 'link'] as const;
export type ComponentType = (typeof DRAWN_TYPES)[number];

/** What `{{SLOT.NAME}}` may name. */
export type PriceVariableName = 'price' | 'price_per_month' | 'price_per_week' | 'period' | 'trial' | 'intro_price' | 'intro_period' | 'product_name';

/**
 * A resolve answer, as GET /api/sdk/config and the client's getPaywall give
 * it (the client's `ResolvedPaywall` is one): only the fields drawn are named.
 */
export interface ResolvedInput {
  locale: string;
  /** The resolved tree (the client's typed `ComponentNode` or the raw JSON); null for a holdout variant: nothing is drawn. */
  root: object | null;
  product_slots: readonly { slot: string; product_id: string; store_product_id: string | null }[];
}

/** A product's price as the app's store reported it. */
export interface StorePrice {
  /** In major units: 49.99. */
  amount: number;
  /** ISO 4217: "USD". */
  currency: string;
  /** The subscription period, ISO 8601: "P1Y", "P1M", "P1W", "P3M"; absent for a one-time purchase. */
  period?: string;
  /** The free trial, ISO 8601: "P7D". Shown only when eligible_for_intro is true. */
  trial?: string;
  /** An introductory price: `amount` per `period`, for `cycles` periods. Shown only when eligible_for_intro is true. */
  intro?: { amount: number; period: string; cycles: number };
  /** Whether the store says this user may still get the trial and the introductory price. Absent counts as not eligible. */
  eligible_for_intro?: boolean;
}

/** Product id (paywalld's, as in product_slots) → its store price. */
export type Prices = Readonly<Record<string, StorePrice | undefined>>;

/** What a tap asks the app to do. */
export interface PaywallAction {
  /** `custom` is a button with the custom action; the app knows it by `node_id`. */
  type: 'purchase' | 'restore' | 'close' | 'link' | 'custom';
  /** purchase: the slot, its product, and the product's id in the store of the resolved platform (null without one). */
  slot?: string;
  product_id?: string;
  store_product_id?: string | null;
  /** link: an http(s) or mailto URL. */
  url?: string;
  /** custom: the node's id, when it has one. */
  node_id?: string;
}

export interface LayoutOptions {
  /** Draw every node's fallback instead of the node, as an app too old to know its type would. */
  asOlderApp?: boolean;
}

export interface RenderOptions extends LayoutOptions {
  prices?: Prices;
  /** Called on each tap of a button or link. Without it links open as links and buttons do nothing. */
  onAction?: (action: PaywallAction) => void;
}

/** A product in a slot, with the values of its price variables that could be filled. */
export interface LayoutProduct {
  slot: string;
  id: string;
  name: string | null;
  store_product_id: string | null;
  /** Whether options.prices has a usable price for it. */
  priced: boolean;
  values: Partial<Record<PriceVariableName, string>>;
}

/** One node as drawn: texts filled, links checked, actions decided. */
export interface LayoutNode {
  type: ComponentType;
  /** JSON pointer of the node in the resolved root: a stable key (`/children/2/fallback`). */
  path: string;
  id?: string;
  /** false: leave the node out (a text whose variables cannot be filled, an image without an allowed URL, an empty slot). */
  visible: boolean;
  /** The node's props as resolved, less `text` and `alt`: draw `text` and `alt` below instead. */
  props: Readonly<Record<string, unknown>>;
  /** The label or text, variables filled (a button's with the unfillable ones left out). */
  text?: string;
  alt?: string;
  /** image: its source; link: its target. Only https/data:image images and http(s)/mailto links. */
  url?: string;
  /** button, purchase_button, link: what a tap asks for. */
  action?: PaywallAction;
  /** button, purchase_button, link: false when a tap can do nothing (a product without a price, a URL not allowed). */
  enabled?: boolean;
  /** product, purchase_button: the slot's product. */
  product?: LayoutProduct;
  children?: LayoutNode[];
}

export interface LayoutModel {
  locale: string;
  /** null for a holdout variant (or a root of no type the renderer knows, without a fallback): draw nothing. */
  root: LayoutNode | null;
}
