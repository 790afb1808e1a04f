/**
 * layoutModel: a resolve answer and the store's prices turned into what a
 * screen shows, as plain data. renderPaywall draws it into the DOM; a
 * SwiftUI, Compose or React Native view can draw it with a switch over
 * `type` (docs/reference/render.md).
 */
import { intlLocale } from './prices.ts';
import { countdownEnd, findSelection, timeLeft } from './selection.ts';
import { type Fill, isObject, label, slotOf, slotProducts, str } from './slots.ts';
import { accentOf, themedProps, themeFonts } from './theme.ts';
import {
  type ComponentType,
  DRAWN_TYPES,
  type LayoutModel,
  type LayoutNode,
  type LayoutOptions,
  type PaywallAction,
  type Prices,
  type ResolvedInput,
  type Theme,
} from './types.ts';

type Json = Record<string, unknown>;

const DRAWN: ReadonlySet<string> = new Set(DRAWN_TYPES);

// The server accepts no others (src/paywalls/document/props.ts); a tree from elsewhere is held to the same rule.
const IMAGE_URL = /^(?:https:\/\/|data:image\/)/i;
const LINK_URL = /^(?:https?:\/\/|mailto:)/i;
const HTTPS_URL = /^https:\/\//i;

interface Context extends Fill {
  asOlderApp: boolean;
  theme: Theme | undefined;
  scheme: 'light' | 'dark';
  now: number;
  firstViewedAt: number;
  reducedMotion: boolean;
}

function buttonAction(node: LayoutNode, props: Json): PaywallAction | undefined {
  const action = str(props.action);
  if (action === 'close' || action === 'restore') return { type: action };
  if (action === 'open_url') return node.url === undefined ? undefined : { type: 'link', url: node.url };
  if (action === 'custom') return node.id === undefined ? { type: 'custom' } : { type: 'custom', node_id: node.id };
  return undefined;
}

/** A slot's product on a node, and the action that buys or selects it. */
function bind(node: LayoutNode, slot: string, type: 'purchase' | 'select', context: Context): void {
  const product = context.products.get(slot);
  if (product) node.product = product;
  node.action = { type, slot, product_id: product?.id, store_product_id: product?.store_product_id ?? null };
}

/** The type-specific part of a node: texts, urls, actions, products, selection, time. */
function complete(node: LayoutNode, raw: Json, props: Json, context: Context): void {
  const text = str(props.text) ?? '';
  switch (node.type) {
    case 'text':
    case 'link': {
      Object.assign(node, label(text, context, false));
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
      node.text = label(text, context, true).text;
      const url = str(props.url);
      if (url !== undefined && LINK_URL.test(url)) node.url = url;
      const action = buttonAction(node, props);
      if (action) node.action = action;
      node.enabled = action !== undefined;
      return;
    }
    case 'purchase_button': {
      const slot = slotOf(str(props.slot) ?? '', context) ?? '';
      bind(node, slot, 'purchase', context);
      node.text = label(text, context, true).text;
      node.enabled = node.product?.priced === true;
      return;
    }
    case 'product': {
      const product = isObject(raw.product) ? context.products.get(str(props.slot) ?? '') : undefined;
      if (product) node.product = product;
      node.visible = product !== undefined;
      return;
    }
    case 'package': {
      const slot = str(props.slot) ?? '';
      bind(node, slot, 'select', context);
      node.selected = slot === context.selected;
      const badge = str(props.badge);
      const filled = badge === undefined ? undefined : label(badge, context, false);
      if (filled?.visible) node.badge = filled.text;
      return;
    }
    case 'toggle': {
      const on = str(props.slot_on) ?? '';
      const off = str(props.slot_off) ?? '';
      node.on = on === context.selected;
      Object.assign(node, label(text, context, false));
      // A tap selects the other slot; the toggle shows the product it holds now.
      bind(node, node.on ? off : on, 'select', context);
      const held = context.products.get(node.on ? on : off);
      if (held) node.product = held;
      else delete node.product;
      return;
    }
    case 'countdown': {
      const endsAt = countdownEnd(props, context.firstViewedAt);
      if (endsAt === undefined) {
        node.visible = false;
        return;
      }
      node.ends_at = endsAt;
      node.expired = context.now >= endsAt;
      Object.assign(node, label(text, context, false, timeLeft(endsAt - context.now)));
      if (node.expired && props.expired === 'hide') node.visible = false;
      return;
    }
    case 'video': {
      const url = str(props.url);
      const poster = str(props.poster_url);
      if (poster !== undefined && HTTPS_URL.test(poster)) node.poster_url = poster;
      node.autoplay = props.autoplay === true && !context.reducedMotion;
      // Asked to play by itself under reduced motion: the poster alone.
      if (url !== undefined && HTTPS_URL.test(url) && !(props.autoplay === true && context.reducedMotion)) node.url = url;
      node.visible = node.url !== undefined || node.poster_url !== undefined;
      return;
    }
    case 'pages': {
      const seconds = props.auto_advance_seconds;
      if (typeof seconds === 'number' && seconds > 0 && !context.reducedMotion) node.interval = seconds * 1000;
      return;
    }
    case 'stack':
    case 'spacer':
    case 'icon':
    case 'package_group':
      return;
  }
}

/** Whether a node's show_if holds: the store says its slot's product is (or is not) eligible for the intro offer; unknown counts as not eligible. */
function shown(raw: Json, context: Context): boolean {
  if (!isObject(raw.show_if)) return true;
  const slot = slotOf(str(raw.show_if.slot) ?? '', context);
  const eligible = slot !== undefined && context.prices.get(slot)?.eligible_for_intro === true;
  return eligible === (raw.show_if.eligible_for_intro === true);
}

function layoutNode(raw: unknown, path: string, context: Context): LayoutNode | null {
  if (!isObject(raw)) return null;
  const type = str(raw.type) ?? '';
  if (raw.fallback !== undefined && (context.asOlderApp || !DRAWN.has(type))) return layoutNode(raw.fallback, `${path}/fallback`, context);
  if (!DRAWN.has(type)) return null;
  const resolvedProps = isObject(raw.props) ? raw.props : {};
  const { text: _text, alt: _alt, badge: _badge, ...props } = themedProps(resolvedProps, context.theme, context.scheme);
  const node: LayoutNode = { type: type as ComponentType, path, visible: true, props };
  const id = str(raw.id);
  if (id !== undefined) node.id = id;
  complete(node, raw, resolvedProps, context);
  if (!shown(raw, context)) node.visible = false;
  if (Array.isArray(raw.children) && (type === 'stack' || type === 'package_group' || type === 'package' || type === 'pages')) {
    node.children = raw.children.flatMap((child, i) => layoutNode(child, `${path}/children/${i}`, context) ?? []);
  }
  return node;
}

/**
 * The resolution of a paywall for a screen: every node of a type the
 * renderer knows (else its fallback, else nothing), its texts with
 * variables filled from `prices` in the answer's locale and the selection,
 * whether it shows, what a tap on it asks for, which package is selected,
 * when countdowns end, and the theme's colours for the scheme. Pure: the
 * same input (`now` included) gives the same output.
 */
export function layoutModel(resolved: ResolvedInput, prices: Prices = {}, options: LayoutOptions = {}): LayoutModel {
  const locale = intlLocale(resolved.locale);
  const selection = findSelection(resolved.root);
  const selected =
    selection === undefined ? null : options.selected !== undefined && selection.slots.includes(options.selected) ? options.selected : selection.initial;
  const now = options.now ?? Date.now();
  const scheme = options.colorScheme === 'dark' ? 'dark' : 'light';
  const context: Context = {
    ...slotProducts(resolved, prices, locale),
    selected,
    locale,
    asOlderApp: options.asOlderApp === true,
    theme: resolved.theme,
    scheme,
    now,
    firstViewedAt: options.firstViewedAt ?? now,
    reducedMotion: options.reducedMotion === true,
  };
  const root = resolved.root === null ? null : layoutNode(resolved.root, '', context);
  return { locale: resolved.locale, scheme, selected, accent: accentOf(resolved.theme, scheme), fonts: themeFonts(resolved.theme), root };
}
