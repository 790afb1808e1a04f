/**
 * The resolved component tree as the app receives it (`paywall.root`):
 * the paywall document's node types (docs/paywalls.md), with every
 * `text_key` replaced by `text` and `alt_key` by `alt` in the chosen locale,
 * and the nodes bound to a slot carrying their `product`. A union on `type`,
 * so that a renderer's `switch (node.type)` narrows the props.
 * test/client/types.unit.test.ts holds each type's props to the server's schemas.
 */

export type Alignment = 'leading' | 'center' | 'trailing';

export interface TextStyle {
  font_size?: number;
  font_weight?: 'regular' | 'medium' | 'semibold' | 'bold';
  /** #RRGGBB or #RRGGBBAA */
  color?: string;
  alignment?: Alignment;
}

/** A text as resolved: the literal, or the string its key named in the chosen locale. */
export interface Label {
  text: string;
  style?: TextStyle;
}

/** The product in a node's slot, for the requested platform; null when the slot has none for it. */
export interface SlotProduct {
  id: string;
  name: string | null;
  store_product_id: string | null;
}

interface NodeBase {
  id?: string;
  /** What an app too old to know this node's type shows instead. */
  fallback?: ComponentNode;
}

export interface StackNode extends NodeBase {
  type: 'stack';
  props: { axis: 'vertical' | 'horizontal' | 'z'; spacing?: number; padding?: number; alignment?: Alignment; background?: string };
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

export type ComponentNode = StackNode | TextNode | ImageNode | ButtonNode | PurchaseButtonNode | ProductNode | SpacerNode | IconNode | LinkNode;
