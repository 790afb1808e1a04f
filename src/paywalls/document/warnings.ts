import { type Path, pointer } from '../../shared/pointer.ts';
import { type ComponentNode, NEWER_TYPES } from './components.ts';
import { comparePointers } from './pointer.ts';
import type { PaywallOutput } from './schema.ts';
import { walkTree } from './tree.ts';

type PaywallWarningCode =
  | 'no_purchase_button'
  | 'no_restore_button'
  | 'no_terms_link'
  | 'no_privacy_link'
  | 'missing_translations'
  | 'keyless_elsewhere'
  | 'no_store_id'
  | 'missing_fallback'
  | 'countdown_ended';

/** Something a valid paywall most likely should have; the document is stored anyway. */
export interface PaywallWarning {
  path: string;
  code: PaywallWarningCode;
  message: string;
}

/** Keys listed in a message, so a locale missing hundreds of keys still gives a readable warning. */
const LISTED_KEYS = 20;

/** Store review wants a way to buy, a way to restore, and the terms and privacy policy on a paywall. */
function treeWarnings(root: ComponentNode, rootPath: Path): PaywallWarning[] {
  let purchase = false;
  let restore = false;
  let terms = false;
  let privacy = false;
  // What current apps show: a fallback stands in for its node only in apps too old to know it.
  for (const { node, inFallback } of walkTree(root, rootPath)) {
    if (inFallback) continue;
    if (node.type === 'purchase_button') purchase = true;
    if (node.type === 'button' && node.props.action === 'restore') restore = true;
    if (node.type === 'link' && node.props.kind === 'terms') terms = true;
    if (node.type === 'link' && node.props.kind === 'privacy') privacy = true;
  }
  const path = pointer(rootPath);
  const warnings: PaywallWarning[] = [];
  if (!purchase) warnings.push({ path, code: 'no_purchase_button', message: 'The tree has no purchase_button' });
  if (!restore) warnings.push({ path, code: 'no_restore_button', message: 'The tree has no button with the restore action' });
  if (!terms) warnings.push({ path, code: 'no_terms_link', message: 'The tree has no link of kind terms' });
  if (!privacy) warnings.push({ path, code: 'no_privacy_link', message: 'The tree has no link of kind privacy' });
  return warnings;
}

/**
 * An app too old for a node's type shows its fallback, else nothing: each
 * node of a newer type that such an app meets (one not inside another node
 * of a newer type, whose fallback stands in for it all) without a fallback
 * is a hole in older apps. And a countdown that ended before now shows as
 * ended from the start.
 */
function newerTypeWarnings(root: ComponentNode, rootPath: Path, now: number): PaywallWarning[] {
  const warnings: PaywallWarning[] = [];
  const covered = new Set<ComponentNode>();
  for (const { node, path, inFallback, parent } of walkTree(root, rootPath)) {
    if (inFallback) continue;
    if (parent && (NEWER_TYPES.has(parent.type) || covered.has(parent))) covered.add(node);
    else if (NEWER_TYPES.has(node.type) && node.fallback === undefined) {
      warnings.push({ path: pointer(path), code: 'missing_fallback', message: `Apps too old for ${node.type} show nothing here: give it a fallback` });
    }
    if (node.type === 'countdown' && node.props.ends_at !== undefined && Date.parse(node.props.ends_at) <= now) {
      warnings.push({ path: pointer([...path, 'props', 'ends_at']), code: 'countdown_ended', message: 'This time has passed: the countdown shows as ended' });
    }
  }
  return warnings;
}

type Strings = PaywallOutput['strings'];

/** One warning per locale of `locales` that lacks keys of the default locale; such texts fall back to it. */
function translationWarnings(merged: Strings, defaultLocale: string, locales: readonly string[], stringsPath: Path): PaywallWarning[] {
  const expected = Object.keys(merged[defaultLocale] ?? {});
  const warnings: PaywallWarning[] = [];
  for (const locale of locales) {
    if (locale === defaultLocale) continue;
    const table = merged[locale] ?? {};
    const missing = expected.filter((key) => !Object.hasOwn(table, key));
    if (missing.length === 0) continue;
    const listed = missing.slice(0, LISTED_KEYS).join(', ');
    const more = missing.length > LISTED_KEYS ? ` and ${missing.length - LISTED_KEYS} more` : '';
    warnings.push({
      path: pointer([...stringsPath, locale]),
      code: 'missing_translations',
      message: `Lacks ${missing.length} key${missing.length === 1 ? '' : 's'} of the default locale: ${listed}${more}`,
    });
  }
  return warnings;
}

function mergeStrings(base: Strings, override: Strings): Strings {
  const merged: Record<string, Record<string, string>> = { ...base };
  for (const [locale, table] of Object.entries(override)) merged[locale] = { ...base[locale], ...table };
  return merged;
}

/**
 * Warnings of a valid document, at `now` (a publish checks again). Trees are checked as served: the paywall's
 * root when some variant shows it, and each variant's own root. A variant's
 * strings are checked for the locales it overrides, with the paywall's
 * strings merged in.
 */
export function paywallWarnings(doc: PaywallOutput, now: number): PaywallWarning[] {
  const warnings: PaywallWarning[] = [];
  if (doc.variants.some((variant) => !variant.holdout && variant.root === undefined)) {
    warnings.push(...treeWarnings(doc.root, ['root']), ...newerTypeWarnings(doc.root, ['root'], now));
  }
  // A valid holdout variant has neither a root nor strings.
  doc.variants.forEach((variant, i) => {
    if (variant.root) warnings.push(...treeWarnings(variant.root, ['variants', i, 'root']), ...newerTypeWarnings(variant.root, ['variants', i, 'root'], now));
    if (variant.strings) {
      const merged = mergeStrings(doc.strings, variant.strings);
      warnings.push(...translationWarnings(merged, doc.default_locale, Object.keys(variant.strings), ['variants', i, 'strings']));
    }
  });
  warnings.push(...translationWarnings(doc.strings, doc.default_locale, Object.keys(doc.strings), ['strings']));
  return warnings.sort((a, b) => comparePointers(a.path, b.path) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}
