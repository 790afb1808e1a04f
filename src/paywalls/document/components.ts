import * as v from 'valibot';
import { IdSchema } from '../../shared/id.ts';
import {
  type ButtonProps,
  ButtonPropsSchema,
  type CountdownProps,
  CountdownPropsSchema,
  type IconProps,
  IconPropsSchema,
  type ImageProps,
  ImagePropsSchema,
  type LinkProps,
  LinkPropsSchema,
  type PackageGroupProps,
  PackageGroupPropsSchema,
  type PackageProps,
  PackagePropsSchema,
  type PagesProps,
  PagesPropsSchema,
  type ProductProps,
  ProductPropsSchema,
  type PurchaseButtonProps,
  PurchaseButtonPropsSchema,
  type SpacerProps,
  SpacerPropsSchema,
  type StackProps,
  StackPropsSchema,
  type TextProps,
  TextPropsSchema,
  type ToggleProps,
  TogglePropsSchema,
  type VideoProps,
  VideoPropsSchema,
} from './node-props.ts';
import { SlotSchema } from './props.ts';

export const COMPONENT_TYPES = [
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
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** Types apps before the selection, pages, countdown and video do not know: each needs a fallback for them (a publish warns). */
export const NEWER_TYPES: ReadonlySet<ComponentType> = new Set(['package_group', 'package', 'toggle', 'pages', 'countdown', 'video']);

/** The slot name that means "whatever the package_group or toggle has selected". */
export const SELECTED = 'selected';

/** Shown only when the store says the user may (or may not) get the trial or intro price of a slot's product. */
const ShowIfSchema = v.pipe(
  v.strictObject({ slot: SlotSchema, eligible_for_intro: v.boolean() }),
  v.description(
    'Show the node only when the slot\'s product (or "selected") is, or is not, eligible for its intro offer; unknown eligibility counts as not eligible',
  ),
);
export type ShowIf = v.InferOutput<typeof ShowIfSchema>;

interface NodeBase {
  id?: string;
  /** Shown instead of this node by an app too old to know its type. */
  fallback?: ComponentNode;
  show_if?: ShowIf;
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
  | (NodeBase & { type: 'link'; props: LinkProps })
  | (NodeBase & { type: 'package_group'; props: PackageGroupProps; children?: ComponentNode[] })
  | (NodeBase & { type: 'package'; props: PackageProps; children?: ComponentNode[] })
  | (NodeBase & { type: 'toggle'; props: ToggleProps })
  | (NodeBase & { type: 'pages'; props: PagesProps; children?: ComponentNode[] })
  | (NodeBase & { type: 'countdown'; props: CountdownProps })
  | (NodeBase & { type: 'video'; props: VideoProps });

const base = {
  id: v.optional(IdSchema),
  fallback: v.optional(v.lazy(() => ComponentNodeSchema)),
  show_if: v.optional(ShowIfSchema),
};
const children = { children: v.optional(v.array(v.lazy(() => ComponentNodeSchema))) };

/** A node's `type`, with what the type is for: the OpenAPI document shows it on the variant. */
const type = <const T extends ComponentType>(name: T, description: string) => v.pipe(v.literal(name), v.description(description));

/**
 * One node of a paywall's component tree. Every type is a strict object, so
 * unknown props (and children on a type that holds none) are rejected.
 * Depth and size are not limited here: validatePaywall checks them before
 * parsing, since this schema recurses once per level.
 */
export const ComponentNodeSchema: v.GenericSchema<ComponentNode> = v.variant(
  'type',
  [
    v.strictObject({
      type: type('stack', 'Lays out its children vertically, horizontally or on top of each other (z)'),
      ...base,
      props: StackPropsSchema,
      ...children,
    }),
    v.strictObject({ type: type('text', 'A text: literal or a key of the strings, with price variables'), ...base, props: TextPropsSchema }),
    v.strictObject({ type: type('image', 'An https or data:image picture, with its alt text'), ...base, props: ImagePropsSchema }),
    v.strictObject({
      type: type('button', 'A button that closes, restores purchases, opens a URL or reports a custom action'),
      ...base,
      props: ButtonPropsSchema,
    }),
    v.strictObject({
      type: type('purchase_button', 'Buys the product of a slot, or of the selection with slot "selected"'),
      ...base,
      props: PurchaseButtonPropsSchema,
    }),
    v.strictObject({ type: type('product', "A card with a slot's product, its name and price"), ...base, props: ProductPropsSchema }),
    v.strictObject({ type: type('spacer', 'Space of a fixed size, or flexible'), ...base, props: v.optional(SpacerPropsSchema) }),
    v.strictObject({ type: type('icon', 'A named icon'), ...base, props: IconPropsSchema }),
    v.strictObject({ type: type('link', 'A link: terms, privacy or another page'), ...base, props: LinkPropsSchema }),
    v.strictObject({
      type: type('package_group', 'A radio group of package nodes (its only children, at most 6): exactly one is selected, default_slot first'),
      ...base,
      props: PackageGroupPropsSchema,
      ...children,
    }),
    v.strictObject({
      type: type('package', 'A selectable package of a package_group: its slot, an optional badge, and what it shows (its children)'),
      ...base,
      props: PackagePropsSchema,
      ...children,
    }),
    v.strictObject({ type: type('toggle', 'A switch selecting slot_on or slot_off, such as a free-trial toggle'), ...base, props: TogglePropsSchema }),
    v.strictObject({
      type: type('pages', 'A carousel of its children (at most 10), by swipe, arrow keys and dots'),
      ...base,
      props: PagesPropsSchema,
      ...children,
    }),
    v.strictObject({
      type: type('countdown', 'A text whose {{countdown}} counts down to ends_at, or for duration_seconds from the first view'),
      ...base,
      props: CountdownPropsSchema,
    }),
    v.strictObject({ type: type('video', 'A muted, inline https video with its poster'), ...base, props: VideoPropsSchema }),
  ],
  (issue) => {
    // Without a path the node itself is not an object; with one, its `type` is wrong.
    if (!issue.path) return 'Expected a component node (an object with a type)';
    if (issue.input === undefined) return 'A component node needs a type';
    return `Unknown component type; expected one of: ${COMPONENT_TYPES.join(', ')}`;
  },
);
