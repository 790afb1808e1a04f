/** What drawing a node needs beside the node: the shared helpers, and the renderer's state a drawing reads and changes. */
import type { LayoutNode, PaywallAction } from './types.ts';

export type Json = Readonly<Record<string, unknown>>;

/** The renderer's side of a drawing: actions, selection, pages and media kept across redraws, and what to stop before the next one. */
export interface Drawing {
  onAction: ((action: PaywallAction) => void) | undefined;
  /** Selects a slot (a package or the toggle) and draws again, the focus on `focus` (a data-pw-path). */
  select(action: PaywallAction, focus: string): void;
  /** The page each carousel shows, by path: kept across redraws. */
  pages: Map<string, number>;
  /** The previous drawing's video elements, by path: reused so that a redraw does not restart them. */
  videos: Map<string, HTMLVideoElement>;
  /** Stops timers and listeners of this drawing; run before the next one and on destroy. */
  stops: (() => void)[];
}

const COLOR = /^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/;
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
export const color = (value: unknown): string | undefined => (typeof value === 'string' && COLOR.test(value) ? value : undefined);
export const px = (value: unknown): string | undefined => (num(value) === undefined ? undefined : `${value}px`);

const TEXT_ALIGN: Json = { leading: 'start', center: 'center', trailing: 'end' };
const WEIGHT: Json = { regular: '400', medium: '500', semibold: '600', bold: '700' };
/** The fallback of a theme font: readable while it loads, or when it cannot. */
const FALLBACK_FAMILIES = 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif';

/** Whether dark text reads better than light text on this #RRGGBB[AA] background (WCAG relative luminance above the midpoint). */
export function isLight(hex: string): boolean {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179;
}

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, node: LayoutNode, className: string): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  created.className = className;
  created.dataset.pwPath = node.path;
  created.dataset.pwType = node.type;
  if (node.id !== undefined) created.dataset.pwNode = node.id;
  return created;
}

export function setStyle(target: HTMLElement, style: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(style)) if (value !== undefined) target.style.setProperty(name, value);
}

/** A text style: size, weight, colour, alignment, and the theme font's family (layoutModel resolved it) before the fallback ones. */
export function textStyle(target: HTMLElement, style: unknown): void {
  const s = (typeof style === 'object' && style !== null ? style : {}) as Json;
  const family = str(s.font);
  setStyle(target, {
    'font-size': px(s.font_size),
    'font-weight': str(WEIGHT[str(s.font_weight) ?? '']),
    color: color(s.color),
    'text-align': str(TEXT_ALIGN[str(s.alignment) ?? '']),
    'font-family': family === undefined ? undefined : `"${family}",${FALLBACK_FAMILIES}`,
  });
}

/** A text element: the node's text, styled. */
export function paragraph(node: LayoutNode, className: string): HTMLParagraphElement {
  const drawn = element('p', node, className);
  drawn.textContent = node.text ?? '';
  textStyle(drawn, node.props.style);
  return drawn;
}
