/**
 * The resolved component tree as the app receives it (`paywall.root`):
 * the paywall document's node types (docs/reference/document.md), with
 * every `text_key` replaced by `text`, `alt_key` by `alt` and `badge_key` by
 * `badge` in the chosen locale, and the nodes bound to a slot carrying their
 * `product`. A union on `type`, so that a renderer's `switch (node.type)`
 * narrows the props. test/client/types.unit.test.ts holds each type's props to
 * the server's schemas.
 */

export type Alignment = 'leading' | 'center' | 'trailing';

export interface TextStyle {
  font_size?: number;
  font_weight?: 'regular' | 'medium' | 'semibold' | 'bold';
  /** #RRGGBB, #RRGGBBAA, or "@NAME": a colour of the paywall's `theme` (light and dark). */
  color?: string;
  alignment?: Alignment;
  /** "@NAME": a font of the paywall's `theme`. */
  font?: string;
}

/** A text as resolved: the literal, or the string its key named in the chosen locale. */
export interface Label {
  text: string;
  style?: TextStyle;
}

/** The product in a node's slot, for the requested platform (for slot "selected", the one selected when the paywall opens); null when the slot has none. */
export interface SlotProduct {
  id: string;
  name: string | null;
  store_product_id: string | null;
}

/** Shows a node only when the store says a slot's product (or the selected one) is, or is not, eligible for its intro offer. */
export interface ShowIf {
  slot: string;
  eligible_for_intro: boolean;
}

interface NodeBase {
  id?: string;
  /** What an app too old to know this node's type shows instead. */
  fallback?: ComponentNode;
  show_if?: ShowIf;
}

export interface StackNode extends NodeBase {
  type: 'stack';
  props: { axis: 'vertical' | 'horizontal' | 'z'; spacing?: number; padding?: number; alignment?: Alignment; background?: string; max_width?: number };
  children?: ComponentNode[];
}
export interface TextNode extends NodeBase {
  type: 'text';
  props: Label;
}
export interface ImageNode extends NodeBase {
  type: 'image';
  props: { url: string; alt?: string; aspect_ratio?: number };
}
export interface ButtonNode extends NodeBase {
  type: 'button';
  props: Label & { action: 'close' | 'restore' | 'open_url' | 'custom'; url?: string };
}
export interface PurchaseButtonNode extends NodeBase {
  type: 'purchase_button';
  /** `slot` "selected": buys what the package_group or toggle has selected. */
  props: Label & { slot: string };
  product: SlotProduct | null;
}
export interface ProductNode extends NodeBase {
  type: 'product';
  props: { slot: string };
  product: SlotProduct | null;
}
export interface SpacerNode extends NodeBase {
  type: 'spacer';
  props?: { size?: number };
}
export interface IconNode extends NodeBase {
  type: 'icon';
  props: { name: string; size?: number; color?: string };
}
export interface LinkNode extends NodeBase {
  type: 'link';
  props: Label & { url: string; kind?: 'terms' | 'privacy' | 'other' };
}

/** A radio group: its children are packages, one selected at a time, `default_slot` first. */
export interface PackageGroupNode extends NodeBase {
  type: 'package_group';
  props: { default_slot: string; axis?: 'vertical' | 'horizontal'; spacing?: number };
  children?: ComponentNode[];
}
export interface PackageNode extends NodeBase {
  type: 'package';
  props: { slot: string; badge?: string };
  product: SlotProduct | null;
  children?: ComponentNode[];
}
/** A switch between two slots (a free-trial toggle). */
export interface ToggleNode extends NodeBase {
  type: 'toggle';
  props: { text: string; slot_on: string; slot_off: string; default: boolean; style?: TextStyle };
  product_on: SlotProduct | null;
  product_off: SlotProduct | null;
}
/** A carousel of its children. */
export interface PagesNode extends NodeBase {
  type: 'pages';
  props: { indicator: 'dots' | 'none'; auto_advance_seconds?: number };
  children?: ComponentNode[];
}
/** A text whose `{{countdown}}` counts down to `ends_at` (RFC 3339), or for `duration_seconds` from the user's first view. */
export interface CountdownNode extends NodeBase {
  type: 'countdown';
  props: { text: string; ends_at?: string; duration_seconds?: number; expired: 'hide' | 'show'; style?: TextStyle };
}
export interface VideoNode extends NodeBase {
  type: 'video';
  props: { url: string; poster_url: string; loop?: boolean; autoplay?: boolean; aspect_ratio?: number };
}

export type ComponentNode =
  | StackNode
  | TextNode
  | ImageNode
  | ButtonNode
  | PurchaseButtonNode
  | ProductNode
  | SpacerNode
  | IconNode
  | LinkNode
  | PackageGroupNode
  | PackageNode
  | ToggleNode
  | PagesNode
  | CountdownNode
  | VideoNode;
