/**
 * Folds a segment's logs over one phase into the counts the statistics need
 * (docs/experiments.md, "Model"): per user, the variants seen and the first
 * exposure; per exposed user of one variant, the first purchase at or after
 * it (within the conversion window) and the revenue of every such purchase
 * per currency. Purchases are read from every segment of the paywall: a
 * purchase counts for the segment in which its user was exposed, whatever
 * its own `audience` says (a backend sending it cannot know it). Revenue is
 * kept sparse, per payer and currency, so that memory follows what exists,
 * not users × currencies.
 *
 * A fold is kept and brought up to date: each update reads only the log
 * entries added since the last one. Exposures only lower a user's first
 * exposure or add a variant, so they fold in any order; a user whose first
 * exposure moved earlier has their purchases re-read through the segment's
 * per-user purchase chain (a purchase before the old first exposure may now
 * count). So late events with earlier times give the same answer as events
 * in time order, and an answer costs the new entries plus one sequential
 * pass over the users, not a pass over every event (whose random accesses
 * to per-user arrays cost most of a full fold).
 */
import { MAX_REVENUE } from '../schema.ts';
import { DAY_MS, dayText } from '../time.ts';
import { BLOCK_MASK, BLOCK_SHIFT, CHUNK_ENTRIES, NO_CURRENCY, type Segment, timeAt } from './experiment-log.ts';

export interface FoldQuery {
  /** Phase interval [from, to) in ms; to is null for the current phase. */
  from: number;
  to: number | null;
  /** The segment's variants in order; exposures to any other variant are ignored. */
  variants: string[];
  /** Purchases later than this after the user's first exposure do not count; null: no window. */
  conversionWindowMs: number | null;
  /** Each currency's per-user revenue is capped at this nearest-rank percentile of its payers; null: no cap. */
  winsorizePercentile: number | null;
}

export interface VariantFigures {
  exposed_users: number;
  conversions: number;
  /** Per currency: revenue total and sum of squares of per-user revenue (non-payers add 0 to both). */
  revenue: { currency: string; total: number; sum_of_squares: number }[];
}

/** A currency's cap when the query winsorizes (null: none, or no payer). */
interface CurrencyCap {
  currency: string;
  cap: number | null;
}

export interface FoldResult {
  multiple_exposure_users: number;
  variants: VariantFigures[];
  /** The currencies of `revenue`, in the same order, with the winsorizing cap applied to each. */
  currencies: CurrencyCap[];
  /** Cumulative exposed users and conversions per variant at the end of each UTC day. */
  days: { day: string; exposed_users: number[]; conversions: number[] }[];
}

const UNSEEN = -1;
const MULTIPLE = -2;
/** Revenue entries are keyed user · CURRENCY_SLOTS + currency: more slots than there are three-letter currency codes (26³). */
const CURRENCY_SLOTS = 65_536;

export function emptyFold(query: FoldQuery): FoldResult {
  return { multiple_exposure_users: 0, currencies: [], variants: query.variants.map(() => ({ exposed_users: 0, conversions: 0, revenue: [] })), days: [] };
}

function grown<T extends Int32Array | Float64Array>(array: T, size: number, fill: number): T {
  if (array.length >= size) return array;
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(size, 2 * array.length));
  bigger.fill(fill);
  bigger.set(array);
  return bigger;
}

export class PhaseFold {
  private exposuresRead = 0;
  /** Per purchase source (a segment of the paywall): entries read so far. */
  private readonly purchasesRead = new Map<Segment, number>();
  private users = 0;
  private variantOf = new Int32Array(0);
  private firstExposure = new Float64Array(0);
  private firstPurchase = new Float64Array(0);
  /** user · CURRENCY_SLOTS + currency slot → the user's revenue in that currency (payers only). */
  private readonly revenue = new Map<number, number>();
  /** Currency name → slot, across the paywall's segments (each codes its currencies its own way). */
  private readonly slots = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly to: number;
  private readonly window: number;

  constructor(
    private readonly segment: Segment,
    private readonly query: FoldQuery,
  ) {
    this.to = query.to ?? Number.POSITIVE_INFINITY;
    this.window = query.conversionWindowMs ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Reads the entries added since the last update; `users` is the project's
   * user count (every ordinal is below it), `sources` every segment of the
   * paywall (this one included), whose purchases may count here.
   */
  update(users: number, sources: Segment[]): void {
    if (users > this.users) {
      this.variantOf = grown(this.variantOf, users, UNSEEN);
      this.firstExposure = grown(this.firstExposure, users, Number.POSITIVE_INFINITY);
      this.firstPurchase = grown(this.firstPurchase, users, Number.POSITIVE_INFINITY);
      this.users = users;
    }
    const { segment, query, to, variantOf, firstExposure, firstPurchase } = this;
    const from = query.from;
    // Variant codes of the segment (new ones appear as events arrive) → position in the query's list.
    const index = new Int32Array(segment.variants.length);
    segment.variants.forEach((name, code) => {
      index[code] = query.variants.indexOf(name);
    });
    const moved: number[] = [];
    const exposures = segment.exposures;
    for (let i = this.exposuresRead; i < exposures.length; ) {
      // One block at a time: its columns are plain typed arrays in the loop.
      const { base, offsets, times, codes, ordinals } = exposures.blocks[i >>> BLOCK_SHIFT]!;
      const end = Math.min(exposures.length, ((i >>> BLOCK_SHIFT) + 1) * CHUNK_ENTRIES);
      for (let j = i & BLOCK_MASK; i < end; i++, j++) {
        const ts = offsets ? base + offsets[j]! : times![j]!;
        if (ts < from || ts >= to) continue;
        const variant = index[codes[j]!]!;
        if (variant === UNSEEN) continue;
        const user = ordinals[j]!;
        const seen = variantOf[user]!;
        if (seen === UNSEEN) variantOf[user] = variant;
        else if (seen !== variant) variantOf[user] = MULTIPLE;
        if (ts < firstExposure[user]!) {
          firstExposure[user] = ts;
          moved.push(user);
        }
      }
    }
    this.exposuresRead = exposures.length;
    for (const source of sources) {
      const purchases = source.purchases;
      for (let i = this.purchasesRead.get(source) ?? 0; i < purchases.length; ) {
        const block = purchases.blocks[i >>> BLOCK_SHIFT]!;
        const { codes, ordinals, values } = block;
        const end = Math.min(purchases.length, ((i >>> BLOCK_SHIFT) + 1) * CHUNK_ENTRIES);
        for (let j = i & BLOCK_MASK; i < end; i++, j++) this.count(source, ordinals[j]!, timeAt(block, j), codes[j]!, values![j]!);
      }
      this.purchasesRead.set(source, purchases.length);
    }
    // Users whose first exposure moved earlier: their purchases are counted again from scratch.
    for (const user of moved) {
      firstPurchase[user] = Number.POSITIVE_INFINITY;
      // Most users never buy: their chains are empty in every source.
      if (sources.some((source) => source.lastPurchase?.has(user) === true)) this.recount(user, sources);
    }
  }

  /** Forgets every revenue of `user`, then counts each of their purchases again (through each source's per-user chain). */
  private recount(user: number, sources: Segment[]): void {
    for (const pass of [0, 1]) {
      for (const source of sources) {
        const blocks = source.purchases.blocks;
        for (let i = source.lastPurchase?.get(user) ?? -1; i !== -1; i = source.previousPurchase[i]!) {
          const block = blocks[i >>> BLOCK_SHIFT]!;
          const j = i & BLOCK_MASK;
          if (pass === 0) this.forget(source, user, block.codes[j]!);
          else this.count(source, user, timeAt(block, j), block.codes[j]!, block.values![j]!);
        }
      }
    }
  }

  private slot(source: Segment, code: number): number {
    const name = source.currencies[code]!;
    let slot = this.slots.get(name);
    if (slot === undefined) this.slots.set(name, (slot = this.names.push(name) - 1));
    return slot;
  }

  private forget(source: Segment, user: number, code: number): void {
    if (code !== NO_CURRENCY) this.revenue.delete(user * CURRENCY_SLOTS + this.slot(source, code));
  }

  private count(source: Segment, user: number, ts: number, code: number, value: number): void {
    if (ts < this.query.from || ts >= this.to) return;
    const exposed = this.firstExposure[user]!;
    if (this.variantOf[user]! === UNSEEN || ts < exposed || ts > exposed + this.window) return;
    if (ts < this.firstPurchase[user]!) this.firstPurchase[user] = ts;
    // Events stored before the revenue cap may exceed it: they convert but add no revenue, so every sum stays finite.
    if (code === NO_CURRENCY || !(value <= MAX_REVENUE)) return;
    const key = user * CURRENCY_SLOTS + this.slot(source, code);
    this.revenue.set(key, (this.revenue.get(key) ?? 0) + value);
  }

  /** The counts: one sequential pass over the users, one over the payers. */
  result(): FoldResult {
    const k = this.query.variants.length;
    const result = emptyFold(this.query);
    const { variantOf, firstExposure, firstPurchase, users } = this;
    // A local: an imported binding may be read through a getter per access (CommonJS interop when run from source).
    const dayMs = DAY_MS;
    const baseDay = Math.floor(this.query.from / dayMs);
    // Events are at most 24 h ahead of the server when received: no day after tomorrow holds any.
    const lastDay = Math.floor(Math.min(this.to, Date.now() + 2 * dayMs) / dayMs) - baseDay;
    const width = 2 * k;
    /** (day − baseDay) · width + slot → new exposed users (slots 0…k−1) and conversions (k…2k−1) that day */
    const daily = new Float64Array((lastDay + 1) * width);
    const exposed = new Float64Array(k);
    const conversions = new Float64Array(k);
    let multiple = 0;
    for (let user = 0; user < users; user++) {
      const variant = variantOf[user]!;
      if (variant < 0) {
        if (variant === MULTIPLE) multiple++;
        continue;
      }
      exposed[variant]!++;
      daily[(Math.floor(firstExposure[user]! / dayMs) - baseDay) * width + variant]!++;
      const bought = firstPurchase[user]!;
      if (bought !== Number.POSITIVE_INFINITY) {
        conversions[variant]!++;
        daily[(Math.floor(bought / dayMs) - baseDay) * width + k + variant]!++;
      }
    }
    result.multiple_exposure_users = multiple;
    result.variants.forEach((figures, v) => {
      figures.exposed_users = exposed[v]!;
      figures.conversions = conversions[v]!;
    });
    this.addRevenue(result);
    const running = new Float64Array(width);
    let day = 0;
    while (day <= lastDay && daily.subarray(day * width, (day + 1) * width).every((count) => count === 0)) day++;
    let end = lastDay;
    while (end >= day && daily.subarray(end * width, (end + 1) * width).every((count) => count === 0)) end--;
    for (; day <= end; day++) {
      for (let slot = 0; slot < width; slot++) running[slot]! += daily[day * width + slot]!;
      result.days.push({ day: dayText(baseDay + day), exposed_users: [...running.subarray(0, k)], conversions: [...running.subarray(k)] });
    }
    return result;
  }

  /** Per currency with a payer among the exposed users: totals and sums of squares per variant, capped when the query winsorizes. */
  private addRevenue(result: FoldResult): void {
    const k = this.query.variants.length;
    /** slot → [variant, amount, variant, amount, …] of its payers */
    const payers = new Map<number, number[]>();
    for (const [key, amount] of this.revenue) {
      const user = Math.floor(key / CURRENCY_SLOTS);
      const variant = this.variantOf[user]!;
      if (variant < 0) continue;
      const slot = key - user * CURRENCY_SLOTS;
      let list = payers.get(slot);
      if (!list) payers.set(slot, (list = []));
      list.push(variant, amount);
    }
    const slots = [...payers.keys()].sort((a, b) => (this.names[a]! < this.names[b]! ? -1 : 1));
    const percentile = this.query.winsorizePercentile;
    for (const slot of slots) {
      const list = payers.get(slot)!;
      let cap = Number.POSITIVE_INFINITY;
      if (percentile !== null) {
        const amounts = new Float64Array(list.length / 2);
        for (let i = 0; i < amounts.length; i++) amounts[i] = list[2 * i + 1]!;
        amounts.sort();
        cap = amounts[Math.min(amounts.length, Math.max(1, Math.ceil((percentile / 100) * amounts.length))) - 1]!;
      }
      const totals = new Float64Array(k);
      const squares = new Float64Array(k);
      for (let i = 0; i < list.length; i += 2) {
        const amount = Math.min(cap, list[i + 1]!);
        totals[list[i]!]! += amount;
        squares[list[i]!]! += amount * amount;
      }
      const currency = this.names[slot]!;
      result.currencies.push({ currency, cap: percentile === null ? null : cap });
      result.variants.forEach((figures, v) => {
        figures.revenue.push({ currency, total: totals[v]!, sum_of_squares: squares[v]! });
      });
    }
  }
}
