/** Videos and theme fonts: what the renderer fetches beyond the answer, always by URL, never as bytes in the answer. */
import { type Drawing, element, num } from './draw-kit.ts';
import type { LayoutFont, LayoutNode } from './types.ts';

function poster(node: LayoutNode): HTMLImageElement {
  const still = element('img', node, 'pw-video pw-video-poster');
  still.src = node.poster_url ?? '';
  still.alt = '';
  return still;
}

function ratio(target: HTMLElement, node: LayoutNode): HTMLElement {
  const value = num(node.props.aspect_ratio);
  if (value !== undefined && value > 0) target.style.setProperty('aspect-ratio', String(value));
  return target;
}

/**
 * A video: muted and inline, with its poster; playing by itself only when
 * asked and never under reduced motion (layoutModel then gives the poster
 * alone), else with controls. One the browser cannot play is replaced by its
 * poster. The previous drawing's element for the same video is reused, so
 * that a redraw (a package selected) does not restart it.
 */
export function drawVideo(node: LayoutNode, drawing: Drawing): HTMLElement | null {
  if (node.url === undefined) return node.poster_url === undefined ? null : ratio(poster(node), node);
  const kept = drawing.videos.get(node.path);
  if (kept && kept.getAttribute('src') === node.url && kept.autoplay === (node.autoplay === true)) return kept;
  const video = element('video', node, 'pw-video');
  video.muted = true;
  video.defaultMuted = true;
  video.playsInline = true;
  video.setAttribute('playsinline', '');
  video.loop = node.props.loop === true;
  video.preload = 'metadata';
  if (node.poster_url !== undefined) video.poster = node.poster_url;
  if (node.autoplay) {
    video.autoplay = true;
    // Nothing to hear or control: a moving picture, which assistive technology can skip.
    video.setAttribute('aria-hidden', 'true');
  } else {
    video.controls = true;
  }
  video.addEventListener('error', () => {
    if (node.poster_url !== undefined && video.isConnected) video.replaceWith(ratio(poster(node), node));
  });
  video.src = node.url;
  return ratio(video, node);
}

/** Fonts added to documents already: each face once, however often a paywall is drawn. */
const added = new WeakMap<Document, Set<string>>();

/**
 * Adds the theme's fonts with a URL to the element's document through the
 * CSSOM (FontFace, which `style-src 'self'` allows, unlike an @font-face
 * rule in a style element); the text shows in the fallback family until a
 * font loads, and keeps it when one cannot (swap).
 */
export function loadFonts(fonts: readonly LayoutFont[], owner: Document): void {
  if (typeof FontFace === 'undefined' || !owner.fonts) return;
  let seen = added.get(owner);
  if (!seen) added.set(owner, (seen = new Set()));
  for (const font of fonts) {
    if (font.url === undefined) continue;
    const key = `${font.family}\n${font.url}\n${font.weight ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const face = new FontFace(font.family, `url(${JSON.stringify(font.url)})`, {
      display: 'swap',
      ...(font.weight === undefined ? {} : { weight: String(font.weight) }),
    });
    owner.fonts.add(face);
    // A font that cannot load leaves the fallback family: nothing to report.
    face.load().catch(() => {});
  }
}
