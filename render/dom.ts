/**
 * renderPaywall: a resolve answer drawn into a DOM element with plain DOM
 * calls, from layoutModel's resolution. Texts are set as text (never HTML),
 * styles through the CSSOM (which a strict Content-Security-Policy allows),
 * and the DOM follows the tree, so the focus order does too.
 */
import { layoutModel } from './layout.ts';
import { adoptStyles } from './style.ts';
import type { LayoutNode, RenderOptions, ResolvedInput } from './types.ts';

export interface PaywallView {
  /** Draws again with a new resolve answer, or with options merged over the current ones (new prices, say). */
  update(next: ResolvedInput | RenderOptions): void;
  /** Removes what was drawn. */
  destroy(): void;
}

type Json = Readonly<Record<string, unknown>>;

const COLOR = /^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/;
const ALIGN: Json = { leading: 'flex-start', center: 'center', trailing: 'flex-end' };
const TEXT_ALIGN: Json = { leading: 'start', center: 'center', trailing: 'end' };
const WEIGHT: Json = { regular: '400', medium: '500', semibold: '600', bold: '700' };
/** A few common icon names drawn as characters; others show their name's first letter. */
const GLYPHS: Json = { check: '✓', checkmark: '✓', star: '★', close: '✕', x: '✕', heart: '♥', lock: '🔒', crown: '♛', bolt: '⚡', sparkles: '✨', gift: '🎁' };

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const color = (value: unknown): string | undefined => (typeof value === 'string' && COLOR.test(value) ? value : undefined);
const px = (value: unknown): string | undefined => (num(value) === undefined ? undefined : `${value}px`);

/** Whether dark text reads better than light text on this #RRGGBB[AA] background (WCAG relative luminance above the midpoint). */
function isLight(hex: string): boolean {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, node: LayoutNode, className: string): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  created.className = className;
  created.dataset.pwPath = node.path;
  if (node.id !== undefined) created.dataset.pwNode = node.id;
  return created;
}

function setStyle(target: HTMLElement, style: Readonly<Record<string, string | undefined>>): void {
  for (const [name, value] of Object.entries(style)) if (value !== undefined) target.style.setProperty(name, value);
}

function textStyle(target: HTMLElement, style: unknown): void {
  const s = (typeof style === 'object' && style !== null ? style : {}) as Json;
  setStyle(target, {
    'font-size': px(s.font_size),
    'font-weight': str(WEIGHT[str(s.font_weight) ?? '']),
    color: color(s.color),
    'text-align': str(TEXT_ALIGN[str(s.alignment) ?? '']),
  });
}

function button(node: LayoutNode, className: string, onAction: RenderOptions['onAction']): HTMLButtonElement {
  const drawn = element('button', node, className);
  drawn.type = 'button';
  drawn.textContent = node.text ?? '';
  drawn.disabled = node.enabled !== true;
  textStyle(drawn, node.props.style);
  const action = node.action;
  if (action) drawn.addEventListener('click', () => onAction?.(action));
  return drawn;
}

function draw(node: LayoutNode, onAction: RenderOptions['onAction']): HTMLElement | null {
  if (!node.visible) return null;
  const props = node.props;
  switch (node.type) {
    case 'stack': {
      const axis = props.axis === 'horizontal' || props.axis === 'z' ? props.axis : 'vertical';
      const background = color(props.background);
      const drawn = element('div', node, `pw-stack pw-stack-${axis}${background ? (isLight(background) ? ' pw-on-light' : ' pw-on-dark') : ''}`);
      setStyle(drawn, {
        gap: px(props.spacing),
        padding: px(props.padding),
        'align-items': str(ALIGN[str(props.alignment) ?? '']),
        'background-color': background,
      });
      for (const child of node.children ?? []) {
        const drawnChild = draw(child, onAction);
        if (drawnChild) drawn.append(drawnChild);
      }
      return drawn;
    }
    case 'text': {
      const drawn = element('p', node, 'pw-text');
      drawn.textContent = node.text ?? '';
      textStyle(drawn, props.style);
      return drawn;
    }
    case 'image': {
      const drawn = element('img', node, 'pw-image');
      drawn.src = node.url!;
      drawn.alt = node.alt ?? '';
      const ratio = num(props.aspect_ratio);
      if (ratio !== undefined) drawn.style.setProperty('aspect-ratio', String(ratio));
      return drawn;
    }
    case 'button':
      return button(node, `pw-button pw-button-${str(props.action) ?? 'custom'}`, onAction);
    case 'purchase_button':
      return button(node, 'pw-purchase', onAction);
    case 'product': {
      const drawn = element('div', node, 'pw-product');
      const product = node.product!;
      const name = document.createElement('span');
      name.className = 'pw-product-name';
      name.textContent = product.name ?? product.id;
      drawn.append(name);
      if (product.values.price !== undefined) {
        const price = document.createElement('span');
        price.className = 'pw-product-price';
        price.textContent = product.values.period === undefined ? product.values.price : `${product.values.price} / ${product.values.period}`;
        drawn.append(price);
      }
      return drawn;
    }
    case 'spacer': {
      const size = px(props.size);
      const drawn = element('div', node, size === undefined ? 'pw-spacer pw-spacer-flexible' : 'pw-spacer');
      drawn.setAttribute('aria-hidden', 'true');
      setStyle(drawn, { width: size, height: size });
      return drawn;
    }
    case 'icon': {
      const name = str(props.name) ?? '';
      const drawn = element('span', node, 'pw-icon');
      drawn.setAttribute('role', 'img');
      drawn.setAttribute('aria-label', name);
      drawn.textContent = str(GLYPHS[name]) ?? name.slice(0, 1).toUpperCase();
      const size = px(props.size) ?? '20px';
      setStyle(drawn, { 'font-size': size, width: size, height: size, color: color(props.color) });
      return drawn;
    }
    case 'link': {
      if (node.url === undefined) {
        const drawn = element('span', node, 'pw-link');
        drawn.textContent = node.text ?? '';
        return drawn;
      }
      const drawn = element('a', node, `pw-link pw-link-${str(props.kind) ?? 'other'}`);
      drawn.href = node.url;
      drawn.target = '_blank';
      drawn.rel = 'noopener noreferrer';
      drawn.textContent = node.text ?? '';
      textStyle(drawn, props.style);
      const action = node.action!;
      drawn.addEventListener('click', (event) => {
        if (!onAction) return;
        // The app decides how a link opens (an in-app browser, the system's).
        event.preventDefault();
        onAction(action);
      });
      return drawn;
    }
  }
}

const isResolved = (value: ResolvedInput | RenderOptions): value is ResolvedInput => 'root' in value && 'product_slots' in value;

/**
 * Draws `resolved` into `element` (appending one `.pw-root` element) and
 * returns a handle to redraw it with new data or options, or remove it.
 * A redraw keeps the keyboard focus on the node that had it.
 */
export function renderPaywall(element: HTMLElement, resolved: ResolvedInput, options: RenderOptions = {}): PaywallView {
  let current = resolved;
  let settings = options;
  const host = document.createElement('div');
  host.className = 'pw-root';
  element.append(host);
  adoptStyles(host);
  const redraw = () => {
    const focused = host.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.pwPath : undefined;
    const model = layoutModel(current, settings.prices, settings);
    host.lang = model.locale;
    const drawn = model.root && draw(model.root, settings.onAction);
    host.replaceChildren(...(drawn ? [drawn] : []));
    if (focused !== undefined) host.querySelector<HTMLElement>(`[data-pw-path="${CSS.escape(focused)}"]`)?.focus();
  };
  redraw();
  return {
    update(next) {
      if (isResolved(next)) current = next;
      else settings = { ...settings, ...next };
      redraw();
    },
    destroy() {
      host.remove();
    },
  };
}
