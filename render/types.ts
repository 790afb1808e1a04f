/** The public shapes of dist/render: what it takes (a resolve answer, store prices) and what it gives (a layout, actions). */

/** The component types the renderer draws; any other type is drawn by its fallback, or not at all. */
export const DRAWN_TYPES = [
  'stack',
  'text',
  'image',
  'button',
  'purchase_button',
  'product',
  'spacer',
  'icon',
  'link',
  'package_group',
  'package',
  'toggle',
  'pages',
  'countdown',
  'video',
] as const;
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
  /** The document's colours (light and dark) and fonts, which the tree names as "@NAME". */
  theme?: Theme | undefined;
}

export interface Theme {
  colors?: Readonly<Record<string, { light: string; dark: string }>> | undefined;
  fonts?: Readonly<Record<string, { family: string; url?: string | undefined; weight?: number | undefined }>> | undefined;
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
  /** `custom` is a button with the custom action; the app knows it by `node_id`. `select`: a package or the toggle chose a slot (the renderer selects it itself). */
  type: 'purchase' | 'restore' | 'close' | 'link' | 'custom' | 'select';
  /** purchase and select: the slot (the selected one for slot "selected"), its product, and the product's id in the store of the resolved platform (null without one). */
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
  /** The slot the selection holds; default the document's (the package_group's default_slot, the toggle's default). */
  selected?: string;
  /** The scheme theme colours are resolved for; default light. */
  colorScheme?: 'light' | 'dark';
  /** The time countdowns are computed at, in milliseconds since the epoch; default now. */
  now?: number;
  /** When the user first saw this paywall (ms), which a countdown with duration_seconds runs from (the client keeps it: firstViewedAt); default `now`. */
  firstViewedAt?: number;
  /** The user asks for less motion: pages do not advance by themselves and videos do not play by themselves. */
  reducedMotion?: boolean;
}

export interface RenderOptions extends Pick<LayoutOptions, 'asOlderApp' | 'firstViewedAt'> {
  prices?: Prices;
  /** Called on each tap of a button or link, and each change of the selection. Without it links open as links and buttons do nothing. */
  onAction?: (action: PaywallAction) => void;
  /** light, dark, or auto (default): the system's, followed as it changes. */
  colorScheme?: 'light' | 'dark' | 'auto';
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
  /** false: leave the node out (a text whose variables cannot be filled, an image without an allowed URL, an empty slot, a show_if that does not hold, an ended countdown that hides). */
  visible: boolean;
  /** The node's props as resolved, less `text`, `alt` and `badge`, theme names replaced by the scheme's colour and the font's family: draw `text`, `alt` and `badge` below instead. */
  props: Readonly<Record<string, unknown>>;
  /** The label or text, variables filled (a button's with the unfillable ones left out). */
  text?: string;
  alt?: string;
  /** package: its badge, filled; absent when it has none or it cannot be filled. */
  badge?: string;
  /** image: its source; link: its target; video: the video (absent under reduced motion for one meant to play by itself: draw the poster alone). */
  url?: string;
  /** video: its poster. */
  poster_url?: string;
  /** video: play by itself, muted. */
  autoplay?: boolean;
  /** button, purchase_button, link, package, toggle: what a tap asks for. */
  action?: PaywallAction;
  /** button, purchase_button, link: false when a tap can do nothing (a product without a price, a URL not allowed). */
  enabled?: boolean;
  /** product, purchase_button, package: the slot's product; toggle: the product it selects now. */
  product?: LayoutProduct;
  /** package: whether it is the selected one. */
  selected?: boolean;
  /** toggle: whether it selects slot_on. */
  on?: boolean;
  /** countdown: when it ends (ms since the epoch), and whether it has. */
  ends_at?: number;
  expired?: boolean;
  /** pages: milliseconds between pages when they advance by themselves. */
  interval?: number;
  children?: LayoutNode[];
}

/** A font of the theme, to load before drawing text in it (the text shows in a fallback family meanwhile). */
export interface LayoutFont {
  name: string;
  family: string;
  /** https, WOFF2; absent: the family must be installed. */
  url?: string;
  weight?: number;
}

export interface LayoutModel {
  locale: string;
  /** The scheme colours were resolved for. */
  scheme: 'light' | 'dark';
  /** The slot the selection holds, null without a selection. */
  selected: string | null;
  /** The theme's colour named "accent" for the scheme, which marks the selection and fills purchase buttons; null: the renderer's own. */
  accent: string | null;
  fonts: LayoutFont[];
  /** null for a holdout variant (or a root of no type the renderer knows, without a fallback): draw nothing. */
  root: LayoutNode | null;
}
