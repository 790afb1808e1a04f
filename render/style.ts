/**
 * The renderer's look: neutral, so that a document's own colours and sizes
 * decide; light and dark after the system (a stack with its own background
 * gets the text colour that reads on it, whatever the system's); no motion
 * when the user asks for less. Adopted as a constructed stylesheet, which a strict
 * Content-Security-Policy (style-src 'self') allows where a <style> element
 * would be refused.
 */
const CSS = `
.pw-root{--pw-fg:#111;--pw-link:#3730a3;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--pw-fg);background:#fff;display:flex;flex-direction:column;min-height:100%;color-scheme:light}
.pw-on-light{--pw-fg:#111;--pw-link:#3730a3;color:var(--pw-fg)}
.pw-on-dark{--pw-fg:#f1f1f4;--pw-link:#c7d2fe;color:var(--pw-fg)}
.pw-stack{display:flex;box-sizing:border-box;min-width:0;gap:8px}
.pw-stack-vertical{flex-direction:column}
.pw-stack-horizontal{flex-direction:row;flex-wrap:wrap;align-items:center}
.pw-stack-z{display:grid}
.pw-stack-z>*{grid-area:1/1}
.pw-text{margin:0;font-size:16px;line-height:1.35;overflow-wrap:anywhere}
.pw-image{display:block;width:100%;object-fit:cover;border-radius:8px}
.pw-button,.pw-purchase{font:inherit;border-radius:10px;padding:10px 14px;cursor:pointer;transition:transform .12s ease}
.pw-button:active:not(:disabled),.pw-purchase:active:not(:disabled){transform:scale(.97)}
.pw-button:disabled,.pw-purchase:disabled{cursor:not-allowed;opacity:.55}
.pw-button{background:transparent;border:1px solid #8a8a96;color:inherit}
.pw-button-close{align-self:flex-end;border:none;font-size:14px}
.pw-button-restore{border:none;text-decoration:underline;font-size:14px}
.pw-purchase{background:#4338ca;color:#fff;border:none;font-weight:600;font-size:17px}
.pw-product{display:flex;flex-direction:column;gap:2px;border:2px solid #4338ca;border-radius:12px;padding:12px 14px;background:#eef2ff;color:#111}
.pw-product-name{font-weight:600}
.pw-product-price{font-size:14px}
.pw-spacer-flexible{flex:1 1 auto;min-height:8px}
.pw-icon{display:inline-flex;align-items:center;justify-content:center;line-height:1}
.pw-link{font-size:13px;color:var(--pw-link)}
.pw-root :focus-visible{outline:3px solid #2563eb;outline-offset:2px}
@media (prefers-color-scheme:dark){
.pw-root{--pw-fg:#f1f1f4;--pw-link:#c7d2fe;background:#16161a;color-scheme:dark}
.pw-product{background:#23234a;border-color:#a5b4fc;color:#f1f1f4}
.pw-root :focus-visible{outline-color:#93c5fd}
}
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
