/**
 * Revenue of a phase fold (experiment-fold.ts): per user and currency the
 * net revenue (client purchases and server sales, minus refunds), what was
 * paid (gross) and what was refunded, kept sparse (payers only), and their
 * totals per variant; with each change's time (the results' daily looks),
 * and what the user spent before their first exposure (CUPED's covariate).
 */
import { isRevenue } from '../../purchases/schema.ts';
import type { FoldQuery, FoldResult } from './fold-types.ts';
import { type ListedMoments, listedMoments, revenueLooks, type Sparse, sortedChanges } from './revenue-moments.ts';

/** Revenue entries are keyed user · CURRENCY_SLOTS + currency: more slots than there are three-letter currency codes (26³). */
export const CURRENCY_SLOTS = 65_536;

/** An entry's sum of no change at all. */
const NONE = Number.NaN;
const some = (sum: number) => !Number.isNaN(sum);

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

/**
 * One user's revenue in one currency: each change since the first exposure
 * (Sparse's `changes`) and each amount before it (the covariate), and what
 * they sum to, NONE for none: a key with amounts before only is no
 * payer. The sums are taken at each answer (payerRevenue), in one order
 * (the changes by time, amount and kind; the amounts before by value)
 * whatever the order in which the fold counted them, so that a fold kept
 * up to date and one folded from scratch agree to the last bit. It is also
 * the user's entry in the moments' lists, its variant, exposure and
 * covariate set in place at each answer: building a new object per payer
 * per answer, with a heap number per field, cost more than the sums. Its
 * sums are numbers from the start (NONE, not undefined), so that V8 keeps
 * them as doubles written in place rather than a new heap number per
 * write.
 */
interface Entry extends Sparse {
  net: number;
  gross: number;
  refunded: number;
  /** Net amounts before the user's first exposure. */
  before: number[] | undefined;
}

/** Per user: the variant (negative: none or several), the first exposure and the first converting purchase. */
interface ExposedUsers {
  variantOf: Int32Array;
  firstExposure: Float64Array;
  firstPurchase: Float64Array;
}

/**
 * Kept per user (an ordinal, a small integer), each with its entries by
 * currency slot, rather than a map per figure keyed user · CURRENCY_SLOTS
 * + slot: such keys pass 2³¹ from 32,768 users on, each a heap number that
 * V8's Map hashes on every lookup, and every results request reads every
 * payer's figures (issue 32: five such lookups per payer made addRevenue
 * most of a results request at 1 M users).
 */
export class UserRevenue {
  /** user → entries by currency slot */
  readonly users = new Map<number, (Entry | undefined)[]>();
  /** Users with any purchase or refund before their first exposure (with or without revenue). */
  readonly history = new Set<number>();
  /**
   * Bumped by every change of a payer's figures here, and by the fold when
   * a payer's variant, first exposure or first purchase changes: the
   * fold's PayerRevenue holds while it is unchanged.
   */
  version = 0;
  /** The payers' revenue of the last answer, and the version it read. */
  private kept: { revenue: PayerRevenue; version: number } | undefined;

  /** The payers' revenue at `dayEnds` (payerRevenue): the last answer's, unless a payer or a day changed since. */
  answer(query: FoldQuery, users: ExposedUsers, names: string[], dayEnds: number[]): PayerRevenue {
    const { kept } = this;
    if (kept !== undefined && kept.version === this.version && kept.revenue.dayEnds.join() === dayEnds.join()) return kept.revenue;
    this.kept = { revenue: payerRevenue(query, users, names, this, dayEnds), version: this.version };
    return this.kept.revenue;
  }

  private entry(key: number): Entry {
    const user = Math.floor(key / CURRENCY_SLOTS);
    const slot = key - user * CURRENCY_SLOTS;
    const slots = this.users.get(user);
    const found = slots?.[slot];
    if (found) return found;
    const entry: Entry = { net: NONE, gross: NONE, refunded: NONE, before: undefined, changes: undefined, variant: 0, exposed: 0, x: 0 };
    if (slots) slots[slot] = entry;
    else {
      // As long as it needs to be: an element set in [] makes room for 17, and a fold keeps one such array per payer.
      const fresh = new Array<Entry | undefined>(slot + 1).fill(undefined);
      fresh[slot] = entry;
      this.users.set(user, fresh);
    }
    return entry;
  }

  /** Adds a change to the entry of `key`: a first one in an array of its size (a push into [] makes room for 17 numbers). */
  private change(key: number, ts: number, amount: number, kind: number): void {
    this.version++;
    const entry = this.entry(key);
    if (entry.changes === undefined) entry.changes = [ts, amount, kind];
    else entry.changes.push(ts, amount, kind);
  }

  paid(key: number, stored: number, ts: number): void {
    this.change(key, ts, bounded(stored), PAYMENT);
  }

  refund(key: number, stored: number, ts: number): void {
    const amount = bounded(stored);
    // A refund kept aside whole (purchases/dependent-records.ts) is stored at 0: it makes no one a payer.
    if (amount === 0) return;
    this.change(key, ts, -amount, REFUND);
  }

  /** Something the user paid (a positive amount) or got back (negative) before their first exposure; `key` undefined: without revenue. */
  earlier(user: number, key: number | undefined, amount: number): void {
    this.history.add(user);
    if (key === undefined) return;
    this.version++;
    (this.entry(key).before ??= []).push(Math.sign(amount) * bounded(Math.abs(amount)));
  }

  forget(key: number): void {
    this.version++;
    const user = Math.floor(key / CURRENCY_SLOTS);
    const slots = this.users.get(user);
    if (!slots) return;
    slots[key - user * CURRENCY_SLOTS] = undefined;
    if (slots.every((entry) => entry === undefined)) this.users.delete(user);
  }
}

/** Sums an entry's changes (sorted in place, in the one order) into net, gross and refunded, and its amounts before into the covariate. */
function settle(entry: Entry): void {
  let net: number | undefined;
  let gross: number | undefined;
  let refunded: number | undefined;
  if (entry.changes !== undefined) {
    const changes = (entry.changes = sortedChanges(entry));
    for (let j = 0; j < changes.length; j += 3) {
      const amount = changes[j + 1]!;
      net = (net ?? 0) + amount;
      if (changes[j + 2]! === PAYMENT) gross = (gross ?? 0) + amount;
      else refunded = (refunded ?? 0) - amount;
    }
  }
  entry.net = net ?? NONE;
  entry.gross = gross ?? NONE;
  entry.refunded = refunded ?? NONE;
  let x = 0;
  if (entry.before !== undefined) {
    entry.before.sort((a, b) => a - b);
    for (const amount of entry.before) x += amount;
  }
  entry.x = x;
}

/** One currency's revenue per variant, as the payers stand: what addRevenue reads at each answer. */
interface CurrencyRevenue {
  currency: string;
  /** The winsorizing cap (null: the query does not winsorize). */
  cap: number | null;
  total: Float64Array;
  gross: Float64Array;
  refunded: Float64Array;
  moments: ListedMoments;
}

/**
 * What a fold's answer reads from its payers: per currency the revenue,
 * and per variant the converted users with a refund that counts. It
 * depends on the payers' figures, variants, exposures and first purchases
 * and on the days of the answer, not on how many users were exposed, so
 * a fold keeps it while none of those change (experiment-fold.ts).
 */
export interface PayerRevenue {
  currencies: CurrencyRevenue[];
  refundedUsers: Float64Array;
  /** The day ends (ms) it was computed for. */
  dayEnds: number[];
}

/**
 * Per currency with an exposed payer or an exposed user who spent before:
 * per variant the net totals (never capped), gross and refunded, and what
 * the moments of each look need from the listed users (net capped when the
 * query winsorizes, with the pre-exposure covariate), now and at the end of
 * each of the result's days (`dayEnds`, their ends in ms).
 */
function payerRevenue(query: FoldQuery, users: ExposedUsers, names: string[], revenue: UserRevenue, dayEnds: number[]): PayerRevenue {
  const k = query.variants.length;
  const refundedUsers = new Float64Array(k);
  /** slot → the entries of its exposed users with revenue or a covariate */
  const bySlot = new Map<number, Entry[]>();
  // In key order (user, then slot), not the map's: the sums then do not depend on the order in which updates added and recounted the payers.
  const ordinals = new Float64Array(revenue.users.size);
  let n = 0;
  for (const user of revenue.users.keys()) ordinals[n++] = user;
  ordinals.sort();
  for (const user of ordinals) {
    const variant = users.variantOf[user]!;
    if (variant < 0) continue;
    const slots = revenue.users.get(user)!;
    let refunder = false;
    for (let slot = 0; slot < slots.length; slot++) {
      const entry = slots[slot];
      if (entry === undefined) continue;
      settle(entry);
      refunder ||= some(entry.refunded);
      entry.variant = variant;
      entry.exposed = users.firstExposure[user]!;
      let list = bySlot.get(slot);
      if (!list) bySlot.set(slot, (list = []));
      list.push(entry);
    }
    if (refunder && users.firstPurchase[user]! !== Number.POSITIVE_INFINITY) refundedUsers[variant]!++;
  }
  const slots = [...bySlot.keys()].filter((slot) => bySlot.get(slot)!.some((entry) => some(entry.net)));
  slots.sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const percentile = query.winsorizePercentile;
  const currencies = slots.map((slot): CurrencyRevenue => {
    const list = bySlot.get(slot)!;
    let cap = Number.POSITIVE_INFINITY;
    if (percentile !== null) {
      const amounts = Float64Array.from(list.filter((entry) => some(entry.net)).map((entry) => entry.net)).sort();
      cap = amounts[Math.min(amounts.length, Math.max(1, Math.ceil((percentile / 100) * amounts.length))) - 1]!;
    }
    const total = new Float64Array(k);
    const gross = new Float64Array(k);
    const refunded = new Float64Array(k);
    for (const { variant, net, gross: paid, refunded: back } of list) {
      total[variant]! += some(net) ? net : 0;
      gross[variant]! += some(paid) ? paid : 0;
      refunded[variant]! += some(back) ? back : 0;
    }
    const moments = listedMoments(list, cap, k, [...dayEnds, Number.POSITIVE_INFINITY]);
    return { currency: names[slot]!, cap: percentile === null ? null : cap, total, gross, refunded, moments };
  });
  return { currencies, refundedUsers, dayEnds };
}

/** Adds the payers' revenue to an answer whose counts and days are in place (its exposed users are the zeros of the moments). */
export function addRevenue(result: FoldResult, payers: PayerRevenue): void {
  result.variants.forEach((figures, v) => {
    figures.refunded_users = payers.refundedUsers[v]!;
  });
  const exposed = result.variants.map((figures) => figures.exposed_users);
  const exposedPerLook = [...result.days.map((day) => day.exposed_users), exposed];
  for (const { currency, cap, total, gross, refunded, moments } of payers.currencies) {
    const looks = revenueLooks(moments, exposedPerLook);
    const now = looks.pop()!;
    result.currencies.push({ currency, cap });
    result.variants.forEach((figures, v) => {
      const { payers: paid, capped, moments: own } = now[v]!;
      figures.revenue.push({ currency, total: total[v]!, gross: gross[v]!, refunded: refunded[v]!, payers: paid, users_capped: capped, moments: own });
    });
    result.days.forEach((day, j) => {
      day.revenue.push(looks[j]!.map(({ payers: paid, moments: own }) => ({ payers: paid, moments: own })));
    });
  }
}
