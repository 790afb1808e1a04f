/** One layout node drawn as DOM elements: the element a browser and a screen reader expect for each type. */
import { color, type Drawing, element, isLight, type Json, num, paragraph, px, setStyle, str, textStyle } from './draw-kit.ts';
import { drawPages } from './draw-pages.ts';
import { drawPackageGroup, drawToggle } from './draw-selection.ts';
import { drawVideo } from './media.ts';
import type { LayoutNode } from './types.ts';

const ALIGN: Json = { leading: 'flex-start', center: 'center', trailing: 'flex-end' };
/** A few common icon names drawn as characters; others show their name's first letter. */
const GLYPHS: Json = { check: '✓', checkmark: '✓', star: '★', close: '✕', x: '✕', heart: '♥', lock: '🔒', crown: '♛', bolt: '⚡', sparkles: '✨', gift: '🎁' };

function button(node: LayoutNode, className: string, drawing: Drawing): HTMLButtonElement {
  const drawn = element('button', node, className);
  drawn.type = 'button';
  drawn.textContent = node.text ?? '';
  drawn.disabled = node.enabled !== true;
  textStyle(drawn, node.props.style);
  const action = node.action;
  if (action) drawn.addEventListener('click', () => drawing.onAction?.(action));
  return drawn;
}

function product(node: LayoutNode): HTMLElement {
  const drawn = element('div', node, 'pw-product');
  const item = node.product!;
  const name = document.createElement('span');
  name.className = 'pw-product-name';
  name.textContent = item.name ?? item.id;
  drawn.append(name);
  if (item.values.price !== undefined) {
    const price = document.createElement('span');
    price.className = 'pw-product-price';
    price.textContent = item.values.period === undefined ? item.values.price : `${item.values.price} / ${item.values.period}`;
    drawn.append(price);
  }
  return drawn;
}

function link(node: LayoutNode, drawing: Drawing): HTMLElement {
  if (node.url === undefined) {
    const drawn = element('span', node, 'pw-link');
    drawn.textContent = node.text ?? '';
    return drawn;
  }
  const drawn = element('a', node, `pw-link pw-link-${str(node.props.kind) ?? 'other'}`);
  drawn.href = node.url;
  drawn.target = '_blank';
  drawn.rel = 'noopener noreferrer';
  drawn.textContent = node.text ?? '';
  textStyle(drawn, node.props.style);
  const action = node.action!;
  drawn.addEventListener('click', (event) => {
    if (!drawing.onAction) return;
    // The app decides how a link opens (an in-app browser, the system's).
    event.preventDefault();
    drawing.onAction(action);
  });
  return drawn;
}

export function draw(node: LayoutNode, drawing: Drawing): HTMLElement | null {
  if (!node.visible) return null;
  const props = node.props;
  const child = (inner: LayoutNode) => draw(inner, drawing);
  switch (node.type) {
    case 'stack': {
      const axis = props.axis === 'horizontal' || props.axis === 'z' ? props.axis : 'vertical';
      const background = color(props.background);
      const drawn = element('div', node, `pw-stack pw-stack-${axis}${background ? (isLight(background) ? ' pw-on-light' : ' pw-on-dark') : ''}`);
      const maxWidth = px(props.max_width);
      setStyle(drawn, {
        gap: px(props.spacing),
        padding: px(props.padding),
        'align-items': str(ALIGN[str(props.alignment) ?? '']),
        'background-color': background,
        // The widest it grows, centred in what is left.
        'max-width': maxWidth,
        width: maxWidth && '100%',
        'margin-inline': maxWidth && 'auto',
      });
      drawn.append(...(node.children ?? []).flatMap((inner) => child(inner) ?? []));
      return drawn;
    }
    case 'text':
      return paragraph(node, 'pw-text');
    case 'countdown': {
      const drawn = paragraph(node, 'pw-text pw-countdown');
      drawn.setAttribute('role', 'timer');
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
      return button(node, `pw-button pw-button-${str(props.action) ?? 'custom'}`, drawing);
    case 'purchase_button':
      return button(node, 'pw-purchase', drawing);
    case 'product':
      return product(node);
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
    case 'link':
      return link(node, drawing);
    case 'package_group':
      return drawPackageGroup(node, drawing, child);
    // A package outside a group is not a radio of any group: the server refuses one; drawn as its content.
    case 'package': {
      const drawn = element('div', node, 'pw-stack pw-stack-vertical');
      drawn.append(...(node.children ?? []).flatMap((inner) => child(inner) ?? []));
      return drawn;
    }
    case 'toggle':
      return drawToggle(node, drawing);
    case 'pages':
      return drawPages(node, drawing, child);
    case 'video':
      return drawVideo(node, drawing);
  }
}
