/**
 * The reference rendering of a resolved paywall (the `root` of what
 * GET /api/sdk/config answers) as HTML: every component type the server
 * accepts, with its props, and `fallback` for types this renderer does not
 * know. It depends on Preact and its own stylesheet only, so a web app can
 * import it to show a paywall; the dashboard's preview is one such user.
 *
 *   <PaywallView root={resolved.root} onAction={(action) => …} />
 *
 * Untrusted trees are safe to pass: text is escaped by Preact, and only
 * https/data:image image sources and http(s)/mailto links are rendered.
 */
import type { ComponentChildren, JSX } from 'preact';
import type { ComponentType } from '../../paywalls/document/components.ts';
import './paywall-view.css';

/** A node of a resolved tree: a component type, its props, and for stacks its children. */
export interface ResolvedNode {
  type: string;
  id?: string;
  props?: Record<string, unknown>;
  children?: ResolvedNode[];
  fallback?: ResolvedNode;
  /** The product in the node's slot (product, purchase_button), when it has one. */
  product?: { id: string; name: string | null; store_product_id: string | null } | null;
}

/** What a tap on a button asks the app to do. */
export interface PaywallAction {
  action: 'close' | 'restore' | 'open_url' | 'custom' | 'purchase';
  node: ResolvedNode;
  url?: string;
  productId?: string;
}

interface PaywallViewProps {
  root: ResolvedNode;
  onAction?: (action: PaywallAction) => void;
  /** Render every node's fallback instead of the node, as an app too old to know the node's type would. */
  asOlderApp?: boolean;
}

export function PaywallView({ root, onAction, asOlderApp = false }: PaywallViewProps): JSX.Element {
  return <div class="pw-root">{renderNode(root, { onAction, asOlderApp })}</div>;
}

interface Options {
  onAction: ((action: PaywallAction) => void) | undefined;
  asOlderApp: boolean;
}

function renderNode(node: ResolvedNode, options: Options, key?: number): ComponentChildren {
  if (node.fallback && (options.asOlderApp || !Object.hasOwn(DRAW, node.type))) return renderNode(node.fallback, options, key);
  const props = node.props ?? {};
  if (!Object.hasOwn(DRAW, node.type)) return null;
  const draw = DRAW[node.type as ComponentType];
  return draw(node, props, options, key);
}

type Draw = (node: ResolvedNode, props: Record<string, unknown>, options: Options, key: number | undefined) => ComponentChildren;

const ALIGN: Record<string, string> = { leading: 'flex-start', center: 'center', trailing: 'flex-end' };
const TEXT_ALIGN: Record<string, string> = { leading: 'start', center: 'center', trailing: 'end' };
const WEIGHT: Record<string, number> = { regular: 400, medium: 500, semibold: 600, bold: 700 };

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const color = (value: unknown): string | undefined => {
  const text = str(value);
  if (!text || !/^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/.test(text)) return undefined;
  return text;
};

/** The text style of labels (text, buttons, links). */
function textStyle(style: unknown): JSX.CSSProperties {
  const s = (style && typeof style === 'object' ? style : {}) as Record<string, unknown>;
  const out: JSX.CSSProperties = {};
  const size = num(s.font_size);
  if (size !== undefined) out.fontSize = `${size}px`;
  const weight = WEIGHT[str(s.font_weight) ?? ''];
  if (weight !== undefined) out.fontWeight = weight;
  const c = color(s.color);
  if (c) out.color = c;
  const align = TEXT_ALIGN[str(s.alignment) ?? ''];
  if (align) out.textAlign = align as JSX.CSSProperties['textAlign'];
  return out;
}

function safeImage(url: unknown): string | undefined {
  const text = str(url);
  return text && /^(?:https:\/\/|data:image\/)/i.test(text) ? text : undefined;
}

function safeLink(url: unknown): string | undefined {
  const text = str(url);
  return text && /^(?:https?:\/\/|mailto:)/i.test(text) ? text : undefined;
}

/** A few common icon names drawn as characters; others show their name's first letter. */
const GLYPHS: Record<string, string> = {
  check: '✓',
  checkmark: '✓',
  star: '★',
  close: '✕',
  x: '✕',
  heart: '♥',
  lock: '🔒',
  crown: '♛',
  bolt: '⚡',
  sparkles: '✨',
  gift: '🎁',
};

/** One drawing per component type the server accepts: a type added to the schema is a type error here until it is drawn. */
const DRAW: Record<ComponentType, Draw> = {
  stack(node, props, options, key) {
    const axis = str(props.axis) ?? 'vertical';
    const style: JSX.CSSProperties = {};
    const spacing = num(props.spacing);
    if (spacing !== undefined) style.gap = `${spacing}px`;
    const padding = num(props.padding);
    if (padding !== undefined) style.padding = `${padding}px`;
    const align = ALIGN[str(props.alignment) ?? ''];
    if (align) style.alignItems = align;
    const background = color(props.background);
    if (background) style.backgroundColor = background;
    return (
      <div key={key} class={`pw-stack pw-stack-${axis === 'horizontal' || axis === 'z' ? axis : 'vertical'}`} style={style} data-node={node.id}>
        {(node.children ?? []).map((child, i) => renderNode(child, options, i))}
      </div>
    );
  },
  text(node, props, _options, key) {
    return (
      <p key={key} class="pw-text" style={textStyle(props.style)} data-node={node.id}>
        {str(props.text) ?? ''}
      </p>
    );
  },
  image(node, props, _options, key) {
    const src = safeImage(props.url);
    const ratio = num(props.aspect_ratio);
    const style: JSX.CSSProperties = ratio ? { aspectRatio: String(ratio) } : {};
    if (!src) return <div key={key} class="pw-image pw-image-missing" style={style} role="img" aria-label={str(props.alt) ?? 'image'} />;
    return <img key={key} class="pw-image" src={src} alt={str(props.alt) ?? ''} style={style} data-node={node.id} />;
  },
  button(node, props, options, key) {
    const action = (str(props.action) ?? 'custom') as PaywallAction['action'];
    const url = action === 'open_url' ? safeLink(props.url) : undefined;
    return (
      <button
        key={key}
        type="button"
        class={`pw-button pw-button-${action}`}
        style={textStyle(props.style)}
        data-node={node.id}
        onClick={() => options.onAction?.({ action, node, ...(url ? { url } : {}) })}
      >
        {str(props.text) ?? ''}
      </button>
    );
  },
  purchase_button(node, props, options, key) {
    const product = node.product ?? undefined;
    return (
      <button
        key={key}
        type="button"
        class="pw-purchase"
        style={textStyle(props.style)}
        data-node={node.id}
        onClick={() => options.onAction?.({ action: 'purchase', node, ...(product ? { productId: product.id } : {}) })}
      >
        <span class="pw-purchase-label">{str(props.text) ?? ''}</span>
        {product ? <span class="pw-purchase-product">{product.name ?? product.id}</span> : null}
      </button>
    );
  },
  product(node, props, _options, key) {
    const product = node.product ?? undefined;
    return (
      <div key={key} class="pw-product" data-node={node.id}>
        <span class="pw-product-name">{product ? (product.name ?? product.id) : `Empty slot "${str(props.slot) ?? ''}"`}</span>
        {product?.store_product_id ? <span class="pw-product-store">{product.store_product_id}</span> : null}
      </div>
    );
  },
  spacer(node, props, _options, key) {
    const size = num(props.size);
    return (
      <div
        key={key}
        class={size === undefined ? 'pw-spacer pw-spacer-flexible' : 'pw-spacer'}
        style={size === undefined ? {} : { height: `${size}px`, width: `${size}px` }}
        data-node={node.id}
      />
    );
  },
  icon(node, props, _options, key) {
    const name = str(props.name) ?? '';
    const size = num(props.size) ?? 20;
    const style: JSX.CSSProperties = { fontSize: `${size}px`, width: `${size}px`, height: `${size}px` };
    const c = color(props.color);
    if (c) style.color = c;
    return (
      <span key={key} class="pw-icon" style={style} role="img" aria-label={name} title={name} data-node={node.id}>
        {GLYPHS[name] ?? name.slice(0, 1).toUpperCase()}
      </span>
    );
  },
  link(node, props, _options, key) {
    const url = safeLink(props.url);
    const kind = str(props.kind) ?? 'other';
    const text = str(props.text) ?? '';
    if (!url)
      return (
        <span key={key} class={`pw-link pw-link-${kind}`}>
          {text}
        </span>
      );
    return (
      <a key={key} class={`pw-link pw-link-${kind}`} style={textStyle(props.style)} href={url} target="_blank" rel="noopener noreferrer" data-node={node.id}>
        {text}
      </a>
    );
  },
};
