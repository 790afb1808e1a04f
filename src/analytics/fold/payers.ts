/**
 * Which users of a fold (experiment-fold.ts) a recount of their purchases
 * concerns: those with a purchase in some segment's per-user chain or a
 * purchase record. Most users never buy, so most need none.
 */
import type { Segment } from './experiment-log.ts';

/** Whether `user` (through each of its `members` ordinals, when linked) has any purchase or record. */
export function hasPurchases(user: number, sources: Segment[], records: ReadonlyMap<number, unknown>, members: ReadonlyMap<number, number[]>): boolean {
  if (records.has(user)) return true;
  const ordinals = members.get(user);
  for (const { lastPurchase } of sources) {
    if (lastPurchase === undefined) continue;
    if (ordinals === undefined ? lastPurchase.has(user) : ordinals.some((ordinal) => lastPurchase.has(ordinal))) return true;
  }
  return false;
}

/**
 * The exposed users (a finite first exposure) with a purchase or a record,
 * each under the ordinal it is counted as (`remap`), and the `joined` users:
 * what a fold's first update recounts instead of every exposed user.
 */
export function exposedPayers(
  sources: Segment[],
  records: ReadonlyMap<number, unknown>,
  remap: ReadonlyMap<number, number>,
  firstExposure: Float64Array,
  joined: number[],
): Iterable<number> {
  // One segment, no links and no records (most folds): its purchasers are distinct already, and a Set of them would cost more than the rest.
  const [only] = sources;
  if (sources.length === 1 && remap.size === 0 && records.size === 0 && joined.length === 0) {
    const exposed: number[] = [];
    for (const user of only!.lastPurchase?.keys() ?? []) if (firstExposure[user] !== Number.POSITIVE_INFINITY) exposed.push(user);
    return exposed;
  }
  const payers = new Set<number>();
  for (const { lastPurchase } of sources) {
    for (const ordinal of lastPurchase?.keys() ?? []) payers.add(remap.get(ordinal) ?? ordinal);
  }
  for (const user of records.keys()) payers.add(user);
  for (const user of payers) if (firstExposure[user] === Number.POSITIVE_INFINITY) payers.delete(user);
  for (const user of joined) payers.add(user);
  return payers;
}
