/**
 * The renderer's look: neutral, so that a document's own colours and sizes
 * decide; light and dark (`.pw-dark`, which the renderer sets after the
 * system or its colorScheme option; a stack with its own background gets
 * the text colour that reads on it, whatever the scheme); a selected
 * package is marked by its border, background and a filled radio, the
 * others plain; no motion when the user asks for less. Adopted as a constructed stylesheet, which a strict
 * Content-Security-Policy (style-src 'self') allows where a <style> element
 * would be refused.
 */
const CSS = `
.pw-root{--pw-cta:#4338ca;--pw-on-cta:#fff;--pw-fg:#111;--pw-link:#3730a3;--pw-bg:#fff;--pw-line:#9a9cab;--pw-card:#fff;--pw-accent:#4338ca;--pw-accent-soft:#eef2ff;--pw-on-accent:#fff;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--pw-fg);background:var(--pw-bg);display:flex;flex-direction:column;min-height:100%;color-scheme:light}
.pw-root.pw-dark{--pw-fg:#f1f1f4;--pw-link:#c7d2fe;--pw-bg:#16161a;--pw-line:#6b6b7b;--pw-card:#1f1f26;--pw-accent:#a5b4fc;--pw-accent-soft:#262650;--pw-on-accent:#111;color-scheme:dark}
.pw-on-light{--pw-fg:#111;--pw-link:#3730a3;color:var(--pw-fg)}
.pw-on-dark{--pw-fg:#f1f1f4;--pw-link:#c7d2fe;color:var(--pw-fg)}
.pw-stack{display:flex;box-sizing:border-box;min-width:0;gap:8px}
.pw-stack-vertical{flex-direction:column}
.pw-stack-horizontal{flex-direction:row;flex-wrap:wrap;align-items:center}
.pw-stack-z{display:grid}
.pw-stack-z>*{grid-area:1/1}
.pw-text{margin:0;font-size:16px;line-height:1.35;overflow-wrap:anywhere}
.pw-image,.pw-video{display:block;width:100%;max-width:100%;object-fit:cover;border-radius:8px}
.pw-button,.pw-purchase{font:inherit;border-radius:10px;padding:10px 14px;cursor:pointer;transition:transform .12s ease}
.pw-button:active:not(:disabled),.pw-purchase:active:not(:disabled){transform:scale(.97)}
.pw-button:disabled,.pw-purchase:disabled{cursor:not-allowed;opacity:.55}
.pw-button{background:transparent;border:1px solid #8a8a96;color:inherit}
.pw-button-close{align-self:flex-end;border:none;font-size:14px}
.pw-button-restore{border:none;text-decoration:underline;font-size:14px}
.pw-purchase{background:var(--pw-cta);color:var(--pw-on-cta);border:none;font-weight:600;font-size:17px}
.pw-product,.pw-package,.pw-toggle{display:flex;flex-direction:column;gap:2px;border:2px solid var(--pw-line);border-radius:12px;padding:12px 14px;background:var(--pw-card);color:var(--pw-fg);box-sizing:border-box;min-width:0}
.pw-product-name{font-weight:600}
.pw-product-price{font-size:14px}
.pw-packages{display:flex;flex-direction:column;gap:10px;min-width:0}
.pw-packages-horizontal{flex-direction:row;flex-wrap:wrap}
.pw-packages-horizontal>.pw-package{flex:1 1 140px}
.pw-package{position:relative;padding-left:44px;cursor:pointer}
.pw-package::before{content:"";position:absolute;left:14px;top:50%;width:18px;height:18px;margin-top:-9px;border:2px solid var(--pw-line);border-radius:50%;box-sizing:border-box}
.pw-package[aria-checked=true]{border-color:var(--pw-accent);background:var(--pw-accent-soft);background:color-mix(in srgb,var(--pw-accent) 12%,var(--pw-card))}
.pw-package[aria-checked=true]::before{border:6px solid var(--pw-accent)}
.pw-badge{position:absolute;top:-11px;right:12px;background:var(--pw-accent);color:var(--pw-on-accent);font-size:12px;font-weight:700;line-height:1.6;border-radius:999px;padding:0 8px}
.pw-toggle{flex-direction:row;align-items:center;justify-content:space-between;gap:12px;font:inherit;cursor:pointer;text-align:start;width:100%}
.pw-toggle-track{flex:none;position:relative;width:44px;height:26px;border-radius:13px;background:#767683;transition:background .12s}
.pw-toggle-thumb{position:absolute;top:3px;left:3px;width:20px;height:20px;border-radius:50%;background:#fff;transition:transform .12s}
.pw-toggle[aria-checked=true] .pw-toggle-track{background:var(--pw-accent)}
.pw-toggle[aria-checked=true] .pw-toggle-thumb{transform:translateX(18px)}
.pw-pages{display:flex;flex-direction:column;gap:4px;min-width:0;touch-action:pan-y}
.pw-pages-viewport{overflow:hidden;min-width:0}
.pw-pages-track{display:flex;transition:transform .3s ease}
.pw-page{flex:0 0 100%;min-width:0;box-sizing:border-box;display:flex;flex-direction:column}
.pw-dots{display:flex;justify-content:center}
.pw-dot{width:24px;height:24px;padding:0;border:0;background:transparent;cursor:pointer;display:inline-flex;align-items:center;justify-content:center}
.pw-dot::after{content:"";width:8px;height:8px;border-radius:50%;background:var(--pw-line)}
.pw-dot[aria-current=true]::after{width:10px;height:10px;background:var(--pw-accent)}
.pw-countdown{font-variant-numeric:tabular-nums}
.pw-spacer-flexible{flex:1 1 auto;min-height:8px}
.pw-icon{display:inline-flex;align-items:center;justify-content:center;line-height:1}
.pw-link{font-size:13px;color:var(--pw-link)}
.pw-root :focus-visible{outline:3px solid #2563eb;outline-offset:2px}
.pw-root.pw-dark :focus-visible{outline-color:#93c5fd}
@media (prefers-reduced-motion:reduce){
.pw-root *{transition:none!important;animation:none!important}
}
`;

let sheet: CSSStyleSheet | undefined;

/** Adds the stylesheet to the shadow root that holds `element`, else to its document (it may not be attached yet), once. */
export function adoptStyles(element: Element): void {
  const holder = element.getRootNode();
  const root = holder instanceof ShadowRoot ? holder : element.ownerDocument;
  if (!('adoptedStyleSheets' in root)) return;
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}
