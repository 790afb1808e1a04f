import * as v from 'valibot';
import { IdSchema } from '../../shared/id.ts';
import { oneOf } from './primitives.ts';

export const COMPONENT_TYPES = ['stack', 'text', 'image', 'button', 'purchase_button', 'product', 'spacer', 'icon', 'link'] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

const BUTTON_ACTIONS = ['close', 'restore', 'open_url', 'custom'] as const;
const LINK_KINDS = ['terms', 'privacy', 'other'] as const;

const ColorSchema = v.pipe(v.string(), v.regex(/^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/, 'Must be a hex color: #RRGGBB or #RRGGBBAA'));

/** Distances in points; the cap only keeps nonsense out of the apps' layout code. */
const PointsSchema = v.pipe(v.number(), v.minValue(0), v.maxValue(1000));

const AlignmentSchema = oneOf(['leading', 'center', 'trailing']);

const TextStyleSchema = v.strictObject({
  font_size: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(200))),
  font_weight: v.optional(oneOf(['regular', 'medium', 'semibold', 'bold'])),
  color: v.optional(ColorSchema),
  alignment: v.optional(AlignmentSchema),
});

// Images are fetched by the app, so only https (never cleartext) or inline image data.
const ImageUrlSchema = v.pipe(
  v.string(),
  v.url('Must be a valid URL'),
  v.regex(/^(?:https:\/\/|data:image\/)/, 'Must be an https:// URL or a data:image/ URL'),
);

// A web paywall renders these as links, so schemes such as javascript: must never get through.
const LinkUrlSchema = v.pipe(v.string(), v.url('Must be a valid URL'), v.regex(/^(?:https?:\/\/|mailto:)/, 'Must start with https://, http:// or mailto:'));

// The schema alone cannot say "exactly one of text and text_key" and stay
// convertible to JSON Schema; validatePaywall checks that rule.
const label = {
  text: v.optional(v.string()),
  text_key: v.optional(IdSchema),
  style: v.optional(TextStyleSchema),
};

const StackPropsSchema = v.strictObject({
  axis: oneOf(['vertical', 'horizontal', 'z']),
  spacing: v.optional(PointsSchema),
  padding: v.optional(PointsSchema),
  alignment: v.optional(AlignmentSchema),
  background: v.optional(ColorSchema),
});

const TextPropsSchema = v.strictObject({ ...label });

const ImagePropsSchema = v.strictObject({
  url: ImageUrlSchema,
  alt: v.optional(v.string()),
  alt_key: v.optional(IdSchema),
  aspect_ratio: v.optional(v.pipe(v.number(), v.gtValue(0))),
});

const ButtonPropsSchema = v.strictObject({
  ...label,
  action: oneOf(BUTTON_ACTIONS),
  url: v.optional(LinkUrlSchema),
});

const PurchaseButtonPropsSchema = v.strictObject({ slot: IdSchema, ...label });

const ProductPropsSchema = v.strictObject({ slot: IdSchema });

const SpacerPropsSchema = v.strictObject({ size: v.optional(PointsSchema) });

const IconPropsSchema = v.strictObject({
  name: IdSchema,
  size: v.optional(PointsSchema),
  color: v.optional(ColorSchema),
});

const LinkPropsSchema = v.strictObject({
  ...label,
  url: LinkUrlSchema,
  kind: v.optional(oneOf(LINK_KINDS)),
});

export type StackProps = v.InferOutput<typeof StackPropsSchema>;
export type TextProps = v.InferOutput<typeof TextPropsSchema>;
export type ImageProps = v.InferOutput<typeof ImagePropsSchema>;
export type ButtonProps = v.InferOutput<typeof ButtonPropsSchema>;
export type PurchaseButtonProps = v.InferOutput<typeof PurchaseButtonPropsSchema>;
export type ProductProps = v.InferOutput<typeof ProductPropsSchema>;
export type SpacerProps = v.InferOutput<typeof SpacerPropsSchema>;
export type IconProps = v.InferOutput<typeof IconPropsSchema>;
export type LinkProps = v.InferOutput<typeof LinkPropsSchema>;

interface NodeBase {
  id?: string;
  /** Shown instead of this node by an app too old to know its type. */
  fallback?: ComponentNode;
}

// Written out by hand: TypeScript cannot infer the type of a recursive schema.
export type ComponentNode =
  | (NodeBase & { type: 'stack'; props: StackProps; children?: ComponentNode[] })
  | (NodeBase & { type: 'text'; props: TextProps })
  | (NodeBase & { type: 'image'; props: ImageProps })
  | (NodeBase & { type: 'button'; props: ButtonProps })
  | (NodeBase & { type: 'purchase_button'; props: PurchaseButtonProps })
  | (NodeBase & { type: 'product'; props: ProductProps })
  | (NodeBase & { type: 'spacer'; props?: SpacerProps })
  | (NodeBase & { type: 'icon'; props: IconProps })
  | (NodeBase & { type: 'link'; props: LinkProps });

const base = {
  id: v.optional(IdSchema),
  fallback: v.optional(v.lazy(() => ComponentNodeSchema)),
};

/**
 * One node of a paywall's component tree. Every type is a strict object, so
 * unknown props (and children on anything but a stack) are rejected. Depth
 * and size are not limited here: validatePaywall checks them before parsing,
 * since this schema recurses once per level.
 */
export const ComponentNodeSchema: v.GenericSchema<ComponentNode> = v.variant(
  'type',
  [
    v.strictObject({
      type: v.literal('stack'),
      ...base,
      props: StackPropsSchema,
      children: v.optional(v.array(v.lazy(() => ComponentNodeSchema))),
    }),
    v.strictObject({ type: v.literal('text'), ...base, props: TextPropsSchema }),
    v.strictObject({ type: v.literal('image'), ...base, props: ImagePropsSchema }),
    v.strictObject({ type: v.literal('button'), ...base, props: ButtonPropsSchema }),
    v.strictObject({ type: v.literal('purchase_button'), ...base, props: PurchaseButtonPropsSchema }),
    v.strictObject({ type: v.literal('product'), ...base, props: ProductPropsSchema }),
    v.strictObject({ type: v.literal('spacer'), ...base, props: v.optional(SpacerPropsSchema) }),
    v.strictObject({ type: v.literal('icon'), ...base, props: IconPropsSchema }),
    v.strictObject({ type: v.literal('link'), ...base, props: LinkPropsSchema }),
  ],
  (issue) => {
    // Without a path the node itself is not an object; with one, its `type` is wrong.
    if (!issue.path) return 'Expected a component node (an object with a type)';
    if (issue.input === undefined) return 'A component node needs a type';
    return `Unknown component type; expected one of: ${COMPONENT_TYPES.join(', ')}`;
  },
);
