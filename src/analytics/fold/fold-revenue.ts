/**
 * Revenue of a phase fold (experiment-fold.ts): per user and currency the
 * net revenue (client purchases and server sales, minus refunds), what was
 * paid (gross) and what was refunded, kept sparse (payers only), and their
 * totals per variant; with each change's time (the results' daily looks),
 * and what the user spent before their first exposure (CUPED's covariate).
 */
import { isRevenue } from '../../purchases/schema.ts';
import type { FoldQuery, FoldResult } from './fold-types.ts';
import { revenueMoments, type Sparse } from './revenue-moments.ts';

/** Revenue entries are keyed user · CURRENCY_SLOTS + currency: more slots than there are three-letter currency codes (26³). */
export const CURRENCY_SLOTS = 65_536;

/** A change of a user's net revenue: a payment, or a refund. */
const PAYMENT = 1;
const REFUND = -1;

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
  /** key → its changes since the exposure, three numbers each: time, signed amount, PAYMENT or REFUND. */
  readonly changes = new Map<number, number[]>();
  /** key → net revenue before the user's first exposure. */
  readonly before = new Map<number, number>();
  /** Users with any purchase or refund before their first exposure (with or without revenue). */
  readonly history = new Set<number>();

  paid(key: number, stored: number, ts: number): void {
    const amount = bounded(stored);
    this.net.set(key, (this.net.get(key) ?? 0) + amount);
    this.gross.set(key, (this.gross.get(key) ?? 0) + amount);
    this.change(key, ts, amount, PAYMENT);
  }

  refund(key: number, stored: number, ts: number): void {
    const amount = bounded(stored);
    // A refund kept aside whole (purchases/dependent-records.ts) is stored at 0: it makes no one a payer.
    if (amount === 0) return;
    this.net.set(key, (this.net.get(key) ?? 0) - amount);
    this.refunded.set(key, (this.refunded.get(key) ?? 0) + amount);
    this.change(key, ts, -amount, REFUND);
  }

  /** Something the user paid (a positive amount) or got back (negative) before their first exposure; `key` undefined: without revenue. */
  earlier(user: number, key: number | undefined, amount: number): void {
    this.history.add(user);
    if (key !== undefined) this.before.set(key, (this.before.get(key) ?? 0) + Math.sign(amount) * bounded(Math.abs(amount)));
  }

  private change(key: number, ts: number, amount: number, kind: number): void {
    let list = this.changes.get(key);
    if (!list) this.changes.set(key, (list = []));
    list.push(ts, amount, kind);
  }

  forget(key: number): void {
    this.net.delete(key);
    this.gross.delete(key);
    this.refunded.delete(key);
    this.changes.delete(key);
    this.before.delete(key);
  }
}

/**
 * Per currency with an exposed payer or an exposed user who spent before:
 * per variant the net totals (never capped), gross and refunded, the payers,
 * the users capped and the moments inference uses (net capped when the
 * query winsorizes, with the pre-exposure covariate), now and at the end of
 * each of the result's days (`dayEnds`, their ends in ms).
 */
export function addRevenue(
  result: FoldResult,
  query: FoldQuery,
  users: { variantOf: Int32Array; firstExposure: Float64Array },
  names: string[],
  revenue: UserRevenue,
  dayEnds: number[],
): void {
  const k = query.variants.length;
  /** slot → its exposed users with revenue or a covariate */
  const bySlot = new Map<number, Sparse[]>();
  // In key order, not the maps': the sums then do not depend on the order in which updates added and recounted the payers.
  const keys = Float64Array.from(new Set([...revenue.net.keys(), ...revenue.before.keys()])).sort();
  for (const key of keys) {
    const user = Math.floor(key / CURRENCY_SLOTS);
    const variant = users.variantOf[user]!;
    if (variant < 0) continue;
    const slot = key - user * CURRENCY_SLOTS;
    let list = bySlot.get(slot);
    if (!list) bySlot.set(slot, (list = []));
    list.push({ variant, key, exposed: users.firstExposure[user]!, x: revenue.before.get(key) ?? 0, changes: revenue.changes.get(key) });
  }
  const slots = [...bySlot.keys()].filter((slot) => bySlot.get(slot)!.some((entry) => revenue.net.has(entry.key)));
  slots.sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const percentile = query.winsorizePercentile;
  for (const slot of slots) {
    const list = bySlot.get(slot)!;
    let cap = Number.POSITIVE_INFINITY;
    if (percentile !== null) {
      const amounts = Float64Array.from(list.filter((entry) => revenue.net.has(entry.key)).map((entry) => revenue.net.get(entry.key)!)).sort();
      cap = amounts[Math.min(amounts.length, Math.max(1, Math.ceil((percentile / 100) * amounts.length))) - 1]!;
    }
    const totals = new Float64Array(k);
    const gross = new Float64Array(k);
    const refunded = new Float64Array(k);
    for (const { variant, key } of list) {
      totals[variant]! += revenue.net.get(key) ?? 0;
      gross[variant]! += revenue.gross.get(key) ?? 0;
      refunded[variant]! += revenue.refunded.get(key) ?? 0;
    }
    const currency = names[slot]!;
    const exposed = result.variants.map((figures) => figures.exposed_users);
    const looks = revenueMoments(list, cap, [...result.days.map((day) => day.exposed_users), exposed], [...dayEnds, Number.POSITIVE_INFINITY]);
    const now = looks.pop()!;
    result.currencies.push({ currency, cap: percentile === null ? null : cap });
    result.variants.forEach((figures, v) => {
      const { payers, capped, moments } = now[v]!;
      figures.revenue.push({ currency, total: totals[v]!, gross: gross[v]!, refunded: refunded[v]!, payers, users_capped: capped, moments });
    });
    result.days.forEach((day, j) => {
      day.revenue.push(looks[j]!.map(({ payers, moments }) => ({ payers, moments })));
    });
  }
}
