/** The props of each node type: what a node may say, checked alone; node-rules.ts and its neighbours check what spans the document. */
import * as v from 'valibot';
import { IdSchema } from '../../shared/id.ts';
import { oneOf } from './primitives.ts';
import {
  AlignmentSchema,
  ColorSchema,
  HttpsUrlSchema,
  ImageUrlSchema,
  kind,
  LinkUrlSchema,
  label,
  PointsSchema,
  SlotSchema,
  TextKeySchema,
  TextStyleSchema,
} from './props.ts';

const BUTTON_ACTIONS = ['close', 'restore', 'open_url', 'custom'] as const;
const LINK_KINDS = ['terms', 'privacy', 'other'] as const;

/** An RFC 3339 instant with its offset: 2025-11-28T23:59:59Z. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
/** Countdowns count from a first view: a minute to 30 days. */
export const COUNTDOWN_SECONDS = { min: 60, max: 30 * 86_400 } as const;

export const StackPropsSchema = v.strictObject({
  axis: oneOf(['vertical', 'horizontal', 'z']),
  spacing: v.optional(PointsSchema),
  padding: v.optional(PointsSchema),
  alignment: v.optional(AlignmentSchema),
  background: v.optional(ColorSchema),
  /** The widest it grows, centred beyond (a web paywall on a wide screen). */
  max_width: v.optional(PointsSchema),
});

export const TextPropsSchema = v.strictObject({ ...label });

export const ImagePropsSchema = v.strictObject({
  url: ImageUrlSchema,
  alt: v.optional(v.pipe(v.string(), kind('text'))),
  alt_key: v.optional(TextKeySchema),
  aspect_ratio: v.optional(v.pipe(v.number(), v.gtValue(0))),
});

export const ButtonPropsSchema = v.strictObject({ ...label, action: oneOf(BUTTON_ACTIONS), url: v.optional(LinkUrlSchema) });

/** `slot` may be "selected": the slot the paywall's package_group or toggle has selected. */
export const PurchaseButtonPropsSchema = v.strictObject({ slot: SlotSchema, ...label });

export const ProductPropsSchema = v.strictObject({ slot: SlotSchema });

export const SpacerPropsSchema = v.strictObject({ size: v.optional(PointsSchema) });

export const IconPropsSchema = v.strictObject({
  name: v.pipe(IdSchema, kind('icon_name')),
  size: v.optional(PointsSchema),
  color: v.optional(ColorSchema),
});

export const LinkPropsSchema = v.strictObject({ ...label, url: LinkUrlSchema, kind: v.optional(oneOf(LINK_KINDS)) });

export const PackageGroupPropsSchema = v.strictObject({
  /** The package selected when the paywall opens. */
  default_slot: SlotSchema,
  axis: v.optional(oneOf(['vertical', 'horizontal'])),
  spacing: v.optional(PointsSchema),
});

export const PackagePropsSchema = v.strictObject({
  slot: SlotSchema,
  /** A badge on the package ("Save {{annual.savings_vs.monthly}}"). */
  badge_key: v.optional(TextKeySchema),
});

export const TogglePropsSchema = v.strictObject({
  text_key: TextKeySchema,
  slot_on: SlotSchema,
  slot_off: SlotSchema,
  default: v.boolean(),
  style: v.optional(TextStyleSchema),
});

export const PagesPropsSchema = v.strictObject({
  indicator: oneOf(['dots', 'none']),
  auto_advance_seconds: v.optional(v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(2), v.maxValue(60))),
});

export const CountdownPropsSchema = v.strictObject({
  ends_at: v.optional(v.pipe(v.string(), v.regex(RFC3339, 'Must be an RFC 3339 instant such as 2025-11-28T23:59:59Z'), kind('instant'))),
  duration_seconds: v.optional(v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(COUNTDOWN_SECONDS.min), v.maxValue(COUNTDOWN_SECONDS.max))),
  text_key: TextKeySchema,
  expired: oneOf(['hide', 'show']),
  style: v.optional(TextStyleSchema),
});

export const VideoPropsSchema = v.strictObject({
  url: HttpsUrlSchema,
  poster_url: HttpsUrlSchema,
  loop: v.optional(v.boolean()),
  autoplay: v.optional(v.boolean()),
  aspect_ratio: v.optional(v.pipe(v.number(), v.gtValue(0))),
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
export type PackageGroupProps = v.InferOutput<typeof PackageGroupPropsSchema>;
export type PackageProps = v.InferOutput<typeof PackagePropsSchema>;
export type ToggleProps = v.InferOutput<typeof TogglePropsSchema>;
export type PagesProps = v.InferOutput<typeof PagesPropsSchema>;
export type CountdownProps = v.InferOutput<typeof CountdownPropsSchema>;
export type VideoProps = v.InferOutput<typeof VideoPropsSchema>;
