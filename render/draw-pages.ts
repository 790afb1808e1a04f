/**
 * pages as the ARIA carousel pattern draws it: a group with the carousel
 * role description, each page a group labelled "N of M" (pages out of view
 * are inert, so neither Tab nor a screen reader reaches them), the arrow
 * keys and a swipe to move, dots as buttons, and advancing by itself only
 * when it should (never under reduced motion, and not while the user is in
 * it).
 */
import { type Drawing, element } from './draw-kit.ts';
import type { LayoutNode } from './types.ts';

/** A swipe: a horizontal move of at least this many pixels, more horizontal than vertical. */
const SWIPE_PX = 40;

export function drawPages(node: LayoutNode, drawing: Drawing, drawChild: (node: LayoutNode) => HTMLElement | null): HTMLElement {
  const drawn = element('div', node, 'pw-pages');
  drawn.setAttribute('role', 'group');
  drawn.setAttribute('aria-roledescription', 'carousel');
  drawn.tabIndex = 0;
  const viewport = document.createElement('div');
  viewport.className = 'pw-pages-viewport';
  const track = document.createElement('div');
  track.className = 'pw-pages-track';
  // aria-live tells a screen reader of a page turned by the user, not of one turned by itself.
  track.setAttribute('aria-live', node.interval === undefined ? 'polite' : 'off');
  const pages = (node.children ?? []).flatMap((child) => {
    const content = drawChild(child);
    if (!content) return [];
    const page = document.createElement('div');
    page.className = 'pw-page';
    page.setAttribute('role', 'group');
    page.setAttribute('aria-roledescription', 'slide');
    page.append(content);
    return [page];
  });
  track.append(...pages);
  viewport.append(track);
  drawn.append(viewport);
  const count = pages.length;
  const dots = node.props.indicator === 'dots' && count > 1 ? document.createElement('div') : undefined;
  const show = (index: number) => {
    const current = ((index % count) + count) % count;
    drawing.pages.set(node.path, current);
    track.style.setProperty('transform', `translateX(${-100 * current}%)`);
    pages.forEach((page, i) => {
      page.setAttribute('aria-label', `${i + 1} of ${count}`);
      page.inert = i !== current;
      if (i === current) page.removeAttribute('aria-hidden');
      else page.setAttribute('aria-hidden', 'true');
    });
    dots?.querySelectorAll('button').forEach((dot, i) => {
      if (i === current) dot.setAttribute('aria-current', 'true');
      else dot.removeAttribute('aria-current');
    });
  };
  const at = () => drawing.pages.get(node.path) ?? 0;
  if (dots) {
    dots.className = 'pw-dots';
    for (let i = 0; i < count; i++) {
      const dot = document.createElement('button');
      dot.type = 'button';
      dot.className = 'pw-dot';
      dot.setAttribute('aria-label', `Page ${i + 1} of ${count}`);
      dot.addEventListener('click', () => show(i));
      dots.append(dot);
    }
    drawn.append(dots);
  }
  if (count === 0) return drawn;
  show(Math.min(at(), count - 1));
  drawn.addEventListener('keydown', (event) => {
    if (event.target !== drawn || (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft')) return;
    event.preventDefault();
    show(Math.max(0, Math.min(count - 1, at() + (event.key === 'ArrowRight' ? 1 : -1))));
  });
  let start: { x: number; y: number } | undefined;
  viewport.addEventListener('pointerdown', (event) => {
    start = { x: event.clientX, y: event.clientY };
  });
  viewport.addEventListener('pointerup', (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = undefined;
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > Math.abs(dy)) show(Math.max(0, Math.min(count - 1, at() + (dx < 0 ? 1 : -1))));
  });
  if (node.interval !== undefined && count > 1) {
    let hovered = false;
    drawn.addEventListener('pointerenter', () => (hovered = true));
    drawn.addEventListener('pointerleave', () => (hovered = false));
    const timer = setInterval(() => {
      if (!hovered && !drawn.contains(document.activeElement)) show(at() + 1);
    }, node.interval);
    drawing.stops.push(() => clearInterval(timer));
  }
  return drawn;
}
