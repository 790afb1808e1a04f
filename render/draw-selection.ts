/**
 * The selection as the ARIA patterns draw it: a package_group is a radio
 * group (tap, click, Space and the arrow keys select; only the selected
 * radio is in the Tab order), a toggle a switch (a button, so Space and
 * Enter flip it).
 */
import { type Drawing, element, textStyle } from './draw-kit.ts';
import type { LayoutNode } from './types.ts';

type DrawChild = (node: LayoutNode) => HTMLElement | null;

const NEXT: Readonly<Record<string, number>> = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };

function drawPackage(node: LayoutNode, drawing: Drawing, drawChild: DrawChild): HTMLElement {
  const drawn = element('div', node, 'pw-package');
  drawn.setAttribute('role', 'radio');
  drawn.setAttribute('aria-checked', String(node.selected === true));
  drawn.tabIndex = node.selected ? 0 : -1;
  if (node.badge !== undefined) {
    const badge = document.createElement('span');
    badge.className = 'pw-badge';
    badge.textContent = node.badge;
    drawn.append(badge);
  }
  const children = (node.children ?? []).flatMap((child) => drawChild(child) ?? []);
  if (children.length > 0) drawn.append(...children);
  else {
    // A package that says nothing itself shows its product, so that the radio has a name.
    const name = document.createElement('span');
    name.className = 'pw-product-name';
    name.textContent = node.product?.name ?? node.product?.id ?? '';
    drawn.append(name);
  }
  const action = node.action!;
  drawn.addEventListener('click', () => drawing.select(action, node.path));
  drawn.addEventListener('keydown', (event) => {
    if (event.key !== ' ') return;
    event.preventDefault();
    drawing.select(action, node.path);
  });
  return drawn;
}

export function drawPackageGroup(node: LayoutNode, drawing: Drawing, drawChild: DrawChild): HTMLElement {
  const drawn = element('div', node, `pw-packages pw-packages-${node.props.axis === 'horizontal' ? 'horizontal' : 'vertical'}`);
  drawn.setAttribute('role', 'radiogroup');
  const spacing = node.props.spacing;
  if (typeof spacing === 'number') drawn.style.setProperty('gap', `${spacing}px`);
  const packages = (node.children ?? []).filter((child) => child.visible && child.type === 'package');
  for (const child of packages) drawn.append(drawPackage(child, drawing, drawChild));
  // No package selected (the selection is the toggle's, or hidden): the first one takes the Tab stop.
  if (!packages.some((child) => child.selected) && drawn.firstElementChild) (drawn.firstElementChild as HTMLElement).tabIndex = 0;
  drawn.addEventListener('keydown', (event) => {
    const step = NEXT[event.key];
    const from = packages.findIndex((child) => child.path === (event.target as HTMLElement).dataset.pwPath);
    if (step === undefined || from < 0) return;
    event.preventDefault();
    const to = packages[(from + step + packages.length) % packages.length]!;
    drawing.select(to.action!, to.path);
  });
  return drawn;
}

export function drawToggle(node: LayoutNode, drawing: Drawing): HTMLElement {
  const drawn = element('button', node, 'pw-toggle');
  drawn.type = 'button';
  drawn.setAttribute('role', 'switch');
  drawn.setAttribute('aria-checked', String(node.on === true));
  const text = document.createElement('span');
  text.className = 'pw-toggle-label';
  text.textContent = node.text ?? '';
  textStyle(text, node.props.style);
  const track = document.createElement('span');
  track.className = 'pw-toggle-track';
  track.setAttribute('aria-hidden', 'true');
  const thumb = document.createElement('span');
  thumb.className = 'pw-toggle-thumb';
  track.append(thumb);
  drawn.append(text, track);
  const action = node.action!;
  drawn.addEventListener('click', () => drawing.select(action, node.path));
  return drawn;
}
