/**
 * Variables in a paywall's texts: `{{SLOT.NAME}}`, a price filled on the
 * device from what the app's store reports (the server never knows a
 * price); `{{SLOT.savings_vs.OTHER}}`, how much cheaper SLOT is per month
 * than OTHER; `{{countdown}}`, the time a countdown has left. SLOT may be
 * `selected`, the slot the paywall's selection holds. Pure and free of
 * imports: the server validates with it and dist/render bundles it to fill
 * texts.
 */

export const PRICE_VARIABLE_NAMES = ['price', 'price_per_month', 'price_per_week', 'period', 'trial', 'intro_price', 'intro_period', 'product_name'] as const;
type PriceVariableName = (typeof PRICE_VARIABLE_NAMES)[number];

/** One variable of a text. */
export interface PriceVariable {
  /** The slot whose product fills it; empty for `{{countdown}}`. */
  slot: string;
  name: PriceVariableName | 'savings_vs' | 'countdown';
  /** savings_vs: the slot compared with. */
  versus?: string;
  /** The variable as written, `{{annual.price}}`, which an app replaces with its value. */
  token: string;
}

/** Anything between double braces is meant as a variable; what is not a valid one is an error, never shown as is. */
const BRACES = /\{\{([^{}]*)\}\}/g;
/** Slot ids may hold dots, names never do: the name is what follows the last dot. */
const VARIABLE = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\.([a-z_]+)$/;
const SAVINGS = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\.savings_vs\.([A-Za-z0-9][A-Za-z0-9_.-]{0,63})$/;
const COUNTDOWN = 'countdown';

const NAMES: ReadonlySet<string> = new Set(PRICE_VARIABLE_NAMES);

type VariableProblem = 'malformed' | 'unknown_name';

/** The variable the text between a pair of braces is, or why it is none. */
function readVariable(inner: string, token: string): PriceVariable | VariableProblem {
  if (inner === COUNTDOWN) return { slot: '', name: COUNTDOWN, token };
  const match = VARIABLE.exec(inner);
  if (match && NAMES.has(match[2]!)) return { slot: match[1]!, name: match[2] as PriceVariableName, token };
  const savings = SAVINGS.exec(inner);
  if (savings) return { slot: savings[1]!, name: 'savings_vs', versus: savings[2]!, token };
  return match ? 'unknown_name' : 'malformed';
}

/** The variables of a text in order, and each `{{…}}` that is not one. */
export function scanVariables(text: string): { variables: PriceVariable[]; problems: VariableProblem[] } {
  const variables: PriceVariable[] = [];
  const problems: VariableProblem[] = [];
  if (!text.includes('{{')) return { variables, problems };
  for (const [token, inner] of text.matchAll(BRACES)) {
    const read = readVariable(inner!, token);
    if (typeof read === 'string') problems.push(read);
    else variables.push(read);
  }
  return { variables, problems };
}

/**
 * A text with each variable replaced by its value; a variable without one,
 * and any `{{…}}` that is not a variable, is cut out and counted as missing,
 * so that no `{{…}}` ever reaches a screen, not even one that cutting forms
 * (`{{a{{b.price}}}}` leaves `{{a}}`: it goes too).
 */
export function fillVariables(text: string, value: (variable: PriceVariable) => string | undefined): { text: string; missing: number } {
  let missing = 0;
  if (!text.includes('{{')) return { text, missing };
  let filled = text.replace(BRACES, (token, inner: string) => {
    const read = readVariable(inner, token);
    const found = typeof read === 'string' ? undefined : value(read);
    if (found === undefined) missing++;
    return found ?? '';
  });
  // Cutting can join a `{{` and a `}}` into a new pair: cut again until none is left (each pass shortens the text).
  for (let cut = filled.replace(BRACES, ''); cut !== filled; cut = filled.replace(BRACES, '')) {
    missing++;
    filled = cut;
  }
  return { text: filled, missing };
}
