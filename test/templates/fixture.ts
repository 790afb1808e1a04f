/**
 * One fixture per template, two consumers: layout.unit.test.ts holds
 * layoutModel's output (without a DOM) to it, and gallery.browser.test.ts holds what
 * renderPaywall drew in Chromium to the same file. A fixture is the drawn
 * paywall as a list: each visible node's path, type, text, checked state and
 * badge, in document order; a countdown's time left is written HH:MM:SS.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LayoutNode, Prices } from '../../render/types.ts';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** The store prices the fixtures are drawn with: the products the templates' slots name, every one eligible for its intro offer. */
export const PRICES: Prices = {
  pro_annual: { amount: 49.99, currency: 'USD', period: 'P1Y', trial: 'P7D', eligible_for_intro: true },
  pro_monthly: { amount: 9.99, currency: 'USD', period: 'P1M', intro: { amount: 4.99, period: 'P1M', cycles: 3 }, eligible_for_intro: true },
  pro_annual_trial: { amount: 59.99, currency: 'USD', period: 'P1Y', trial: 'P7D', eligible_for_intro: true },
  pro_lifetime: { amount: 149.99, currency: 'USD', eligible_for_intro: true },
};

/** The products a server needs for every template to validate and publish. */
export const PRODUCTS: Record<string, string> = {
  pro_annual: 'Pro Annual',
  pro_monthly: 'Pro Monthly',
  pro_annual_trial: 'Pro Annual with trial',
  pro_lifetime: 'Pro Lifetime',
};

export const LOCALES = ['en', 'de'] as const;

/** One drawn node: where it is, what it is, what it says, and whether it is checked (a selected package, a toggle that is on). */
export interface DrawnNode {
  path: string;
  type: string;
  text?: string;
  checked?: boolean;
  /** A package's badge. */
  badge?: string;
}

export type Fixture = Record<(typeof LOCALES)[number], DrawnNode[]>;

/** Intl's no-break spaces as plain ones, and a countdown's time left as HH:MM:SS: what a reader sees, the same at any second. */
export function normalise(text: string): string {
  return text.replace(/[\u00a0\u202f]/g, ' ').replace(/(?:\d+d )?\d\d:\d\d:\d\d/g, 'HH:MM:SS');
}

/** The types whose element shows a text of the node's own. */
const TEXTS = new Set(['text', 'countdown', 'button', 'purchase_button', 'link', 'toggle']);

/** The visible nodes of a layout, as drawn. */
export function drawnNodes(node: LayoutNode | null, out: DrawnNode[] = []): DrawnNode[] {
  if (!node?.visible) return out;
  const drawn: DrawnNode = { path: node.path, type: node.type };
  if (TEXTS.has(node.type)) drawn.text = normalise(node.text ?? '');
  if (node.type === 'package') drawn.checked = node.selected === true;
  if (node.badge !== undefined) drawn.badge = normalise(node.badge);
  if (node.type === 'toggle') drawn.checked = node.on === true;
  out.push(drawn);
  for (const child of node.children ?? []) drawnNodes(child, out);
  return out;
}

export function fixturePath(id: string): string {
  return path.join(DIR, `${id}.json`);
}

export function readFixture(id: string): Fixture {
  return JSON.parse(fs.readFileSync(fixturePath(id), 'utf8')) as Fixture;
}
