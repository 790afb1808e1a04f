/** The theme's limits, and every `@NAME` a tree uses must name a colour (colour props) or a font (`style.font`) of the document's theme. */
import { type Path, pointer } from '../../shared/pointer.ts';
import type { ComponentNode } from './components.ts';
import { THEME_TOKEN } from './props.ts';
import { MAX_THEME_COLORS, MAX_THEME_FONTS, type Theme } from './theme.ts';
import { walkTree } from './tree.ts';

type Problem = { path: string; message: string };

/** Props that hold a colour, on any node that has them. */
const COLOR_PROPS = ['background', 'color'] as const;

function tokenError(value: unknown, names: Readonly<Record<string, unknown>> | undefined, path: Path, what: 'color' | 'font'): Problem[] {
  const name = typeof value === 'string' ? THEME_TOKEN.exec(value)?.[1] : undefined;
  if (name === undefined || (names && Object.hasOwn(names, name))) return [];
  return [{ path: pointer(path), message: `No ${what} of the theme has this name` }];
}

export function themeReferenceErrors(root: ComponentNode, rootPath: Path, theme: Theme | undefined): Problem[] {
  const errors: Problem[] = [];
  for (const { node, path } of walkTree(root, rootPath)) {
    const props = (node.props ?? {}) as Readonly<Record<string, unknown>>;
    for (const name of COLOR_PROPS) errors.push(...tokenError(props[name], theme?.colors, [...path, 'props', name], 'color'));
    const style = props.style as { color?: string; font?: string } | undefined;
    if (style) {
      errors.push(...tokenError(style.color, theme?.colors, [...path, 'props', 'style', 'color'], 'color'));
      errors.push(...tokenError(style.font, theme?.fonts, [...path, 'props', 'style', 'font'], 'font'));
    }
  }
  return errors;
}

/** The theme's own limits: a palette and a few fonts, not a design system. */
export function themeErrors(theme: Theme | undefined): Problem[] {
  const errors: Problem[] = [];
  if (Object.keys(theme?.colors ?? {}).length > MAX_THEME_COLORS) errors.push({ path: '/theme/colors', message: `At most ${MAX_THEME_COLORS} colors` });
  if (Object.keys(theme?.fonts ?? {}).length > MAX_THEME_FONTS) errors.push({ path: '/theme/fonts', message: `At most ${MAX_THEME_FONTS} fonts` });
  return errors;
}
