/**
 * The attributes the server computes for the user a request names, never
 * sent by the app: `purchases.*`, what the stored purchase records say of
 * them (docs/guide/placements.md, "What the server knows about a user"). A
 * condition that tests one needs a userId, costs a lookup in memory per
 * request, and cannot be decided by an app offline (the fallback bundle).
 * A pure module: the client bundles it.
 */
import { pointer as pointerOf } from '../../shared/pointer.ts';

/** The facts under `purchases.`, as conditions name them. */
const PURCHASE_FACTS = ['is_subscriber', 'had_trial', 'lapsed_days', 'count', 'products', 'first_purchase_days'] as const;

/** The attribute under which the facts sit: `purchases.is_subscriber` is the path purchases → is_subscriber. */
export const PURCHASES = 'purchases';

const LOGICAL = new Set(['$and', '$or', '$nor']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each attribute a condition tests (its dotted path), with the pointer of its clause: through $and, $or, $nor and $not. */
function attributesOf(condition: unknown, at: string, found: { path: string; pointer: string }[]): void {
  if (!isObject(condition)) return;
  for (const [key, operand] of Object.entries(condition)) {
    const here = at + pointerOf([key]);
    if (LOGICAL.has(key)) {
      if (Array.isArray(operand)) for (const [index, item] of operand.entries()) attributesOf(item, `${here}/${index}`, found);
    } else if (key === '$not') attributesOf(operand, here, found);
    else found.push({ path: key, pointer: here });
  }
}

function isServerAttribute(path: string): boolean {
  return path === PURCHASES || path.startsWith(`${PURCHASES}.`);
}

/** Whether the condition tests an attribute only the server knows. */
export function usesServerAttributes(condition: unknown): boolean {
  const found: { path: string; pointer: string }[] = [];
  attributesOf(condition, '', found);
  return found.some(({ path }) => isServerAttribute(path));
}

/** The clauses that name `purchases` without one of its facts (`purchases.is_subscribed`, `purchases` alone): they could never match as meant. */
export function serverAttributeProblems(condition: unknown): { path: string; message: string }[] {
  const found: { path: string; pointer: string }[] = [];
  attributesOf(condition, '', found);
  const known = new Set<string>(PURCHASE_FACTS);
  return found
    .filter(({ path }) => isServerAttribute(path) && !known.has(path.split('.')[1] ?? ''))
    .map(({ pointer }) => ({ path: pointer, message: `purchases has the facts ${PURCHASE_FACTS.join(', ')}: name one (purchases.is_subscriber, …)` }));
}
