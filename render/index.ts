/**
 * paywalld's renderer: draws a resolve answer in a web page, price variables
 * filled from the app's store prices, packages to select, carousels,
 * countdowns, videos, the theme's colours and fonts (renderPaywall), or gives
 * the same resolution as data for a native view (layoutModel). No
 * dependencies. docs/reference/render.md describes it.
 */

export { type PaywallView, renderPaywall } from './dom.ts';
export { layoutModel } from './layout.ts';
export type {
  ComponentType,
  LayoutFont,
  LayoutModel,
  LayoutNode,
  LayoutOptions,
  LayoutProduct,
  PaywallAction,
  Prices,
  PriceVariableName,
  RenderOptions,
  ResolvedInput,
  StorePrice,
  Theme,
} from './types.ts';
