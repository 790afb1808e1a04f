/** The theme for one colour scheme: "@NAME" in props becomes the scheme's colour or the font's family. */
import { isObject, str } from './slots.ts';
import type { LayoutFont, Theme } from './types.ts';

type Json = Record<string, unknown>;

const TOKEN = /^@([A-Za-z][A-Za-z0-9_-]{0,31})$/;
const HEX = /^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/;
// The server accepts no other font files or family names (src/paywalls/document/theme.ts); a tree from elsewhere is held to the same rule.
const FONT_URL = /^https:\/\/[^?#]+\.woff2(?:[?#].*)?$/i;
const FAMILY = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,63}$/;

/** The theme's "accent" colour for the scheme, if it has one. */
export function accentOf(theme: Theme | undefined, scheme: 'light' | 'dark'): string | null {
  return colorOf('@accent', theme, scheme) ?? null;
}

/** A colour prop's value for the scheme: a hex colour as is, a theme colour's value, else nothing (left out). */
function colorOf(value: unknown, theme: Theme | undefined, scheme: 'light' | 'dark'): string | undefined {
  const text = str(value);
  if (text === undefined || HEX.test(text)) return text;
  const name = TOKEN.exec(text)?.[1];
  const colors = theme?.colors;
  const entry: unknown = name !== undefined && colors && Object.hasOwn(colors, name) ? colors[name] : undefined;
  const color = isObject(entry) ? str(entry[scheme]) : undefined;
  return color !== undefined && HEX.test(color) ? color : undefined;
}

function fontOf(value: unknown, theme: Theme | undefined): string | undefined {
  const name = TOKEN.exec(str(value) ?? '')?.[1];
  const fonts = theme?.fonts;
  const entry: unknown = name !== undefined && fonts && Object.hasOwn(fonts, name) ? fonts[name] : undefined;
  const family = isObject(entry) ? str(entry.family) : undefined;
  return family !== undefined && FAMILY.test(family) ? family : undefined;
}

function set(target: Json, name: string, value: string | undefined): void {
  if (value === undefined) delete target[name];
  else target[name] = value;
}

/** Props with their colours for the scheme (`background`, `color`, `style.color`) and `style.font` as its family. */
export function themedProps(props: Json, theme: Theme | undefined, scheme: 'light' | 'dark'): Json {
  const out: Json = { ...props };
  for (const name of ['background', 'color']) if (name in out) set(out, name, colorOf(out[name], theme, scheme));
  if (isObject(out.style)) {
    const style: Json = { ...out.style };
    if ('color' in style) set(style, 'color', colorOf(style.color, theme, scheme));
    if ('font' in style) set(style, 'font', fontOf(style.font, theme));
    out.style = style;
  }
  return out;
}

/** The theme's fonts, those with a usable family. */
export function themeFonts(theme: Theme | undefined): LayoutFont[] {
  const fonts: LayoutFont[] = [];
  for (const [name, font] of Object.entries(theme?.fonts ?? {})) {
    if (!isObject(font) || !FAMILY.test(str(font.family) ?? '')) continue;
    const entry: LayoutFont = { name, family: font.family };
    if (typeof font.url === 'string' && FONT_URL.test(font.url)) entry.url = font.url;
    if (typeof font.weight === 'number' && Number.isInteger(font.weight) && font.weight >= 100 && font.weight <= 900) entry.weight = font.weight;
    fonts.push(entry);
  }
  return fonts;
}
