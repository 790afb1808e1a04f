/**
 * Revenue of a phase fold (experiment-fold.ts): per user and currency the
 * net revenue (client purchases and server sales, minus refunds), what was
 * paid (gross) and what was refunded, kept sparse (payers only), and their
 * totals per variant.
 */
import { isRevenue } from '../../purchases/schema.ts';
import type { FoldQuery, FoldResult } from './fold-types.ts';

/** Revenue entries are keyed user · CURRENCY_SLOTS + currency: more slots than there are three-letter currency codes (26³). */
export const CURRENCY_SLOTS = 65_536;

/**
 * An amount past the bound every source has now (isRevenue) counts as none:
 * a record stored before the bound (or by hand) must not make a sum
 * infinite, which JSON writes as null.
 */
function bounded(amount: number): number {
  return isRevenue(amount) ? amount : 0;
}

export class UserRevenue {
  readonly net = new Map<number, number>();
  readonly gross = new Map<number, number>();
  readonly refunded = new Map<number, number>();

  paid(key: number, stored: number): void {
    const amount = bounded(stored);
    this.net.set(key, (this.net.get(key) ?? 0) + amount);
    this.gross.set(key, (this.gross.get(key) ?? 0) + amount);
  }

  refund(key: number, stored: number): void {
    const amount = bounded(stored);
    // A refund kept aside whole (purchases/dependent-records.ts) is stored at 0: it makes no one a payer.
    if (amount === 0) return;
    this.net.set(key, (this.net.get(key) ?? 0) - amount);
    this.refunded.set(key, (this.refunded.get(key) ?? 0) + amount);
  }

  forget(key: number): void {
    this.net.delete(key);
    this.gross.delete(key);
    this.refunded.delete(key);
  }
}

/** Per currency with a payer among the exposed users: net totals and sums of squares per variant (net capped when the query winsorizes), gross and refunded. */
export function addRevenue(result: FoldResult, query: FoldQuery, variantOf: Int32Array, names: string[], revenue: UserRevenue): void {
  const k = query.variants.length;
  /** slot → [variant, key, variant, key, …] of its payers */
  const payers = new Map<number, number[]>();
  // In key order, not the map's: the sums then do not depend on the order in which updates added and recounted the payers.
  for (const key of Float64Array.from(revenue.net.keys()).sort()) {
    const user = Math.floor(key / CURRENCY_SLOTS);
    const variant = variantOf[user]!;
    if (variant < 0) continue;
    const slot = key - user * CURRENCY_SLOTS;
    let list = payers.get(slot);
    if (!list) payers.set(slot, (list = []));
    list.push(variant, key);
  }
  const slots = [...payers.keys()].sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const percentile = query.winsorizePercentile;
  for (const slot of slots) {
    const list = payers.get(slot)!;
    let cap = Number.POSITIVE_INFINITY;
    if (percentile !== null) {
      const amounts = new Float64Array(list.length / 2);
      for (let i = 0; i < amounts.length; i++) amounts[i] = revenue.net.get(list[2 * i + 1]!)!;
      amounts.sort();
      cap = amounts[Math.min(amounts.length, Math.max(1, Math.ceil((percentile / 100) * amounts.length))) - 1]!;
    }
    const totals = new Float64Array(k);
    const squares = new Float64Array(k);
    const gross = new Float64Array(k);
    const refunded = new Float64Array(k);
    for (let i = 0; i < list.length; i += 2) {
      const variant = list[i]!;
      const key = list[i + 1]!;
      const amount = Math.min(cap, revenue.net.get(key)!);
      totals[variant]! += amount;
      squares[variant]! += amount * amount;
      gross[variant]! += revenue.gross.get(key) ?? 0;
      refunded[variant]! += revenue.refunded.get(key) ?? 0;
    }
    const currency = names[slot]!;
    result.currencies.push({ currency, cap: percentile === null ? null : cap });
    result.variants.forEach((figures, v) => {
      figures.revenue.push({ currency, total: totals[v]!, sum_of_squares: squares[v]!, gross: gross[v]!, refunded: refunded[v]! });
    });
  }
}
