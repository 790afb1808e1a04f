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
