/**
 * A document's `theme`: named colours with a light and a dark value, and
 * named fonts, which colour props and `style.font` reference as `@NAME`
 * (theme-rules.ts checks every reference). Resolve serves it as written;
 * the app picks the scheme and loads the fonts.
 */
import * as v from 'valibot';
import { ownRecord } from '../../shared/record.ts';
import { HexColorSchema } from './props.ts';

export const MAX_THEME_COLORS = 32;
export const MAX_THEME_FONTS = 4;

const ThemeNameSchema = v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'Must be 1 to 32 letters, digits, "_" or "-", starting with a letter'));

const ThemeColorSchema = v.pipe(
  v.strictObject({ light: HexColorSchema, dark: HexColorSchema }),
  v.description('The colour in a light and in a dark colour scheme'),
);

const ThemeFontSchema = v.pipe(
  v.strictObject({
    /** Set in CSS and native font APIs as is: plain characters only, so it cannot break out of a font-family list. */
    family: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$/, 'Must be 1 to 64 letters, digits, spaces, "_" or "-"')),
    url: v.optional(
      v.pipe(
        v.string(),
        v.url('Must be a valid URL'),
        v.regex(/^https:\/\/[^?#]+\.[Ww][Oo][Ff][Ff]2(?:[?#].*)?$/, 'Must be an https:// URL of a .woff2 file'),
        v.description('Where the app downloads the font (WOFF2); without it the family must be installed'),
      ),
    ),
    weight: v.optional(v.pipe(v.number(), v.integer('Must be a whole number'), v.minValue(100), v.maxValue(900))),
  }),
  v.description('A font face: the text keeps a fallback family while it loads or when it cannot'),
);

export const ThemeSchema = v.pipe(
  v.strictObject({
    /** At most MAX_THEME_COLORS (theme-rules.ts). */
    colors: v.optional(ownRecord(ThemeNameSchema, ThemeColorSchema)),
    /** At most MAX_THEME_FONTS (theme-rules.ts). */
    fonts: v.optional(ownRecord(ThemeNameSchema, ThemeFontSchema)),
  }),
  v.description('Named colours (light and dark) and fonts; colour props and style.font reference them as "@NAME"'),
);

export type Theme = v.InferOutput<typeof ThemeSchema>;
