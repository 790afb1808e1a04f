import { type Path, pointer } from '../../shared/pointer.ts';
import { type ComponentNode, SELECTED } from './components.ts';
import type { PaywallOutput } from './schema.ts';
import { hasSelection } from './structure-rules.ts';
import { walkTree } from './tree.ts';
import { PRICE_VARIABLE_NAMES, scanVariables } from './variables.ts';

type Problem = { path: string; message: string };
type Strings = PaywallOutput['strings'];

/** A strings table a tree reads its keys from, and where it sits in the document. */
interface Layer {
  table: Strings;
  path: Path;
}

const PROBLEMS = {
  malformed: 'Text between {{ and }} must be a variable: {{SLOT.NAME}}, {{SLOT.savings_vs.OTHER}} or {{countdown}}',
  unknown_name: `Unknown price variable; NAME is one of: ${PRICE_VARIABLE_NAMES.join(', ')}`,
} as const;
const UNKNOWN_SLOT = 'A price variable names a slot not defined in slots';
const NO_SELECTION = 'A variable names the selection ("selected"), but this tree has no package_group or toggle';
const NOT_A_COUNTDOWN = '{{countdown}} is filled only in the text of a countdown';

/** Literal props that hold text, and the props that name a string key instead. */
const TEXT_PROPS = ['text', 'alt'] as const;
const KEY_PROPS = ['text_key', 'alt_key', 'badge_key'] as const;

/** Where a text is shown: the slots its variables may name (with "selected" when a selection fills it), and whether a countdown fills {{countdown}}. */
interface TextScope {
  slots: ReadonlySet<string>;
  selection: boolean;
  countdown: boolean;
}

function textErrors(text: string, path: Path, scope: TextScope): Problem[] {
  const { variables, problems } = scanVariables(text);
  const errors: Problem[] = problems.map((problem) => ({ path: pointer(path), message: PROBLEMS[problem] }));
  const slots = variables.flatMap((variable) => (variable.name === 'countdown' ? [] : [variable.slot, ...(variable.versus ? [variable.versus] : [])]));
  if (slots.some((slot) => slot !== SELECTED && !scope.slots.has(slot))) errors.push({ path: pointer(path), message: UNKNOWN_SLOT });
  if (!scope.selection && slots.includes(SELECTED)) errors.push({ path: pointer(path), message: NO_SELECTION });
  if (!scope.countdown && variables.some((variable) => variable.name === 'countdown')) errors.push({ path: pointer(path), message: NOT_A_COUNTDOWN });
  return errors;
}

function tableErrors(layer: Layer, slots: ReadonlySet<string>): Problem[] {
  // A string no tree uses is checked loosely: it may be meant for any tree, selection or countdown.
  const scope: TextScope = { slots, selection: true, countdown: true };
  return Object.entries(layer.table).flatMap(([locale, table]) =>
    Object.entries(table).flatMap(([key, text]) => textErrors(text, [...layer.path, locale, key], scope)),
  );
}

/** The text a key has in a locale where a tree is served: from the first layer (a variant's override, then the paywall's) that has it. */
function keyedTexts(key: string, layers: readonly Layer[]): { text: string; path: Path }[] {
  const locales = new Set(layers.flatMap((layer) => Object.keys(layer.table)));
  const texts: { text: string; path: Path }[] = [];
  for (const locale of locales) {
    const layer = layers.find((candidate) => Object.hasOwn(candidate.table, locale) && Object.hasOwn(candidate.table[locale]!, key));
    if (layer) texts.push({ text: layer.table[locale]![key]!, path: [...layer.path, locale, key] });
  }
  return texts;
}

/**
 * The texts of a tree as it is served: its literal labels, and the strings
 * its keys name, against the slots it is served with; "selected" where the
 * tree has a selection (never in a fallback, which older apps show), and
 * {{countdown}} in a countdown's text only.
 */
function treeErrors(root: ComponentNode, rootPath: Path, slots: ReadonlySet<string>, layers: readonly Layer[]): Problem[] {
  const errors: Problem[] = [];
  const selection = hasSelection(root, rootPath);
  for (const { node, path, inFallback } of walkTree(root, rootPath)) {
    const props = (node.props ?? {}) as Readonly<Record<string, unknown>>;
    const scope: TextScope = { slots, selection: selection && !inFallback, countdown: false };
    for (const name of TEXT_PROPS) {
      const text = props[name];
      if (typeof text === 'string') errors.push(...textErrors(text, [...path, 'props', name], scope));
    }
    for (const name of KEY_PROPS) {
      const key = props[name];
      if (typeof key !== 'string') continue;
      const keyScope = { ...scope, countdown: node.type === 'countdown' && name === 'text_key' };
      for (const { text, path: textPath } of keyedTexts(key, layers)) errors.push(...textErrors(text, textPath, keyScope));
    }
  }
  return errors;
}

/**
 * The price variables of every text: each `{{…}}` must be `{{SLOT.NAME}}`
 * with a known NAME, and SLOT a slot where the text is shown. A tree's texts
 * (its literal labels and the strings its keys name) are checked with the
 * slots it is served with: the paywall's root with the paywall's slots, a
 * variant's tree with the variant's slots merged over them. A string no
 * tree uses may name the slot of any variant.
 */
export function variableErrors(doc: PaywallOutput): Problem[] {
  const allSlots = new Set([...Object.keys(doc.slots), ...doc.variants.flatMap((variant) => Object.keys(variant.slots ?? {}))]);
  const base: Layer = { table: doc.strings, path: ['strings'] };
  const errors = tableErrors(base, allSlots);
  errors.push(...treeErrors(doc.root, ['root'], new Set(Object.keys(doc.slots)), [base]));
  doc.variants.forEach((variant, i) => {
    if (variant.holdout) return;
    const own: Layer | undefined = variant.strings && { table: variant.strings, path: ['variants', i, 'strings'] };
    if (own) errors.push(...tableErrors(own, allSlots));
    const slots = new Set([...Object.keys(doc.slots), ...Object.keys(variant.slots ?? {})]);
    const layers = own ? [own, base] : [base];
    errors.push(...(variant.root ? treeErrors(variant.root, ['variants', i, 'root'], slots, layers) : treeErrors(doc.root, ['root'], slots, layers)));
  });
  return errors;
}
