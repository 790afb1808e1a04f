/**
 * renderPaywall: a resolve answer drawn into a DOM element with plain DOM
 * calls, from layoutModel's resolution. Texts are set as text (never HTML),
 * styles and fonts through the CSSOM (which a strict Content-Security-Policy
 * allows), and the DOM follows the tree, so the focus order does too. The
 * renderer keeps what the user changes (the selection, each carousel's
 * page), follows the system's colour scheme and motion preference, and
 * ticks countdowns once a second.
 */
import { draw } from './draw.ts';
import { type Drawing, isLight } from './draw-kit.ts';
import { layoutModel } from './layout.ts';
import { loadFonts } from './media.ts';
import { adoptStyles } from './style.ts';
import type { LayoutNode, PaywallAction, RenderOptions, ResolvedInput } from './types.ts';

export interface PaywallView {
  /** Draws again with a new resolve answer, or with options merged over the current ones (new prices, say). */
  update(next: ResolvedInput | RenderOptions): void;
  /** Removes what was drawn, and stops its timers. */
  destroy(): void;
}

const isResolved = (value: ResolvedInput | RenderOptions): value is ResolvedInput => 'root' in value && 'product_slots' in value;

function countdowns(node: LayoutNode | null, found: LayoutNode[] = []): LayoutNode[] {
  if (node?.type === 'countdown') found.push(node);
  for (const child of node?.children ?? []) countdowns(child, found);
  return found;
}

/** A media query's current answer and its changes; a browser without matchMedia answers no. */
function query(text: string): MediaQueryList | undefined {
  return typeof matchMedia === 'function' ? matchMedia(text) : undefined;
}

/**
 * Draws `resolved` into `element` (appending one `.pw-root` element) and
 * returns a handle to redraw it with new data or options, or remove it.
 * A redraw keeps the keyboard focus on the node that had it.
 */
export function renderPaywall(element: HTMLElement, resolved: ResolvedInput, options: RenderOptions = {}): PaywallView {
  let current = resolved;
  let settings = options;
  let selected: string | undefined;
  let stops: (() => void)[] = [];
  const pages = new Map<string, number>();
  const firstDrawn = Date.now();
  const dark = query('(prefers-color-scheme: dark)');
  const reduced = query('(prefers-reduced-motion: reduce)');
  const host = document.createElement('div');
  host.className = 'pw-root';
  element.append(host);
  adoptStyles(host);

  const modelNow = () =>
    layoutModel(current, settings.prices, {
      asOlderApp: settings.asOlderApp,
      selected,
      colorScheme: settings.colorScheme === 'dark' || (settings.colorScheme !== 'light' && dark?.matches === true) ? 'dark' : 'light',
      firstViewedAt: settings.firstViewedAt ?? firstDrawn,
      reducedMotion: reduced?.matches === true,
    });

  const redraw = (focus?: string) => {
    const focused = focus ?? (host.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.pwPath : undefined);
    for (const stop of stops) stop();
    stops = [];
    const model = modelNow();
    const videos = new Map([...host.querySelectorAll('video')].map((video) => [video.dataset.pwPath ?? '', video]));
    const drawing: Drawing = { onAction: settings.onAction, select, pages, videos, stops };
    host.lang = model.locale;
    host.classList.toggle('pw-dark', model.scheme === 'dark');
    for (const [name, value] of [
      ['--pw-accent', model.accent],
      ['--pw-cta', model.accent],
      ['--pw-on-accent', model.accent && (isLight(model.accent) ? '#111' : '#fff')],
      ['--pw-on-cta', model.accent && (isLight(model.accent) ? '#111' : '#fff')],
    ] as const) {
      if (value) host.style.setProperty(name, value);
      else host.style.removeProperty(name);
    }
    loadFonts(model.fonts, host.ownerDocument);
    const drawn = model.root && draw(model.root, drawing);
    host.replaceChildren(...(drawn ? [drawn] : []));
    if (focused !== undefined) host.querySelector<HTMLElement>(`[data-pw-path="${CSS.escape(focused)}"]`)?.focus();
    if (countdowns(model.root).length > 0) {
      const timer = setInterval(tick, 1000);
      stops.push(() => clearInterval(timer));
    }
  };

  /** A countdown's second: only its text changes (or it goes, once ended), so nothing else is drawn again. */
  function tick(): void {
    for (const node of countdowns(modelNow().root)) {
      const drawn = host.querySelector<HTMLElement>(`[data-pw-path="${CSS.escape(node.path)}"]`);
      if (!drawn) continue;
      if (node.visible) drawn.textContent = node.text ?? '';
      else drawn.remove();
    }
  }

  function select(action: PaywallAction, focus: string): void {
    if (action.slot === undefined) return;
    selected = action.slot;
    redraw(focus);
    settings.onAction?.(action);
  }

  // The scheme and the motion preference often change together: one redraw for both.
  let following = false;
  let destroyed = false;
  const follow = () => {
    if (following) return;
    following = true;
    queueMicrotask(() => {
      following = false;
      if (!destroyed) redraw();
    });
  };
  dark?.addEventListener('change', follow);
  reduced?.addEventListener('change', follow);
  redraw();
  return {
    update(next) {
      if (isResolved(next)) current = next;
      else settings = { ...settings, ...next };
      redraw();
    },
    destroy() {
      destroyed = true;
      for (const stop of stops) stop();
      dark?.removeEventListener('change', follow);
      reduced?.removeEventListener('change', follow);
      host.remove();
    },
  };
}
