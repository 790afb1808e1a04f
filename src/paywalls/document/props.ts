/**
 * The schemas node props are made of, each tagged with its kind
 * (`x-kind`, valibot metadata): vocabulary.ts reads the kinds to describe
 * every node type's props to an editor, and the OpenAPI document carries
 * them as schema extensions.
 */
import * as v from 'valibot';
import { IdSchema } from '../../shared/id.ts';
import { oneOf } from './primitives.ts';

/** What an editor offers for a prop; enum, boolean and number ranges are read from the schema itself. */
export type PropKind = 'text' | 'text_key' | 'slot' | 'color' | 'font' | 'size' | 'url' | 'instant' | 'icon_name' | 'style' | 'enum' | 'boolean' | 'number';

export function kind<T>(value: PropKind) {
  return v.metadata<T, { readonly 'x-kind': PropKind }>({ 'x-kind': value });
}

/** A theme token: `@` and a name of the document's theme. */
export const THEME_TOKEN = /^@([A-Za-z][A-Za-z0-9_-]{0,31})$/;
const HEX = /^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/;

export const HexColorSchema = v.pipe(v.string(), v.regex(HEX, 'Must be a hex color: #RRGGBB or #RRGGBBAA'));

/** A colour prop: a hex colour, or `@NAME`, a colour of the theme (light and dark); theme-rules.ts checks the name. */
export const ColorSchema = v.pipe(
  v.string(),
  v.regex(
    /^(?:#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})|@[A-Za-z][A-Za-z0-9_-]{0,31})$/,
    'Must be a hex color (#RRGGBB or #RRGGBBAA) or a theme color such as "@brand"',
  ),
  kind('color'),
);

/** Distances in points; the cap only keeps nonsense out of the apps' layout code. */
export const PointsSchema = v.pipe(v.number(), v.minValue(0), v.maxValue(1000), kind('size'));

export const AlignmentSchema = oneOf(['leading', 'center', 'trailing']);

export const TextStyleSchema = v.pipe(
  v.strictObject({
    font_size: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(200), kind('size'))),
    font_weight: v.optional(oneOf(['regular', 'medium', 'semibold', 'bold'])),
    color: v.optional(ColorSchema),
    alignment: v.optional(AlignmentSchema),
    /** A font of the theme, `@NAME`. */
    font: v.optional(v.pipe(v.string(), v.regex(THEME_TOKEN, 'Must be a theme font such as "@heading"'), kind('font'))),
  }),
  kind('style'),
);

/** A slot of the document's `slots`. */
export const SlotSchema = v.pipe(IdSchema, kind('slot'));
/** A key of the strings table. */
export const TextKeySchema = v.pipe(IdSchema, kind('text_key'));
const LiteralTextSchema = v.pipe(v.string(), kind('text'));

// Images are fetched by the app, so only https (never cleartext) or inline image data.
export const ImageUrlSchema = v.pipe(
  v.string(),
  v.url('Must be a valid URL'),
  v.regex(/^(?:https:\/\/|data:image\/)/, 'Must be an https:// URL or a data:image/ URL'),
  kind('url'),
);

/** Media the app streams (a video, its poster): https only. */
export const HttpsUrlSchema = v.pipe(v.string(), v.url('Must be a valid URL'), v.regex(/^https:\/\//, 'Must be an https:// URL'), kind('url'));

// A web paywall renders these as links, so schemes such as javascript: must never get through.
export const LinkUrlSchema = v.pipe(
  v.string(),
  v.url('Must be a valid URL'),
  v.regex(/^(?:https?:\/\/|mailto:)/, 'Must start with https://, http:// or mailto:'),
  kind('url'),
);

// The schema alone cannot say "exactly one of text and text_key" and stay
// convertible to JSON Schema; validatePaywall checks that rule.
export const label = {
  text: v.optional(LiteralTextSchema),
  text_key: v.optional(TextKeySchema),
  style: v.optional(TextStyleSchema),
};
