/**
 * Folds a segment's logs over one phase into the counts the statistics need
 * (docs/experiments.md, "Model"): per user, the variants seen and the first
 * exposure; per exposed user of one variant, the first purchase at or after
 * it and the revenue of every such purchase per currency.
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
import { DAY_MS, dayText } from '../time.ts';
import { BLOCK_MASK, BLOCK_SHIFT, CHUNK_ENTRIES, NO_CURRENCY, type Segment, timeAt } from './experiment-log.ts';

export interface FoldQuery {
  /** Phase interval [from, to) in ms; to is null for the current phase. */
  from: number;
  to: number | null;
  /** The segment's variants in order; exposures to any other variant are ignored. */
  variants: string[];
}

export interface VariantFigures {
  exposed_users: number;
  conversions: number;
  /** Per currency: revenue total and sum of squares of per-user revenue (non-payers add 0 to both). */
  revenue: { currency: string; total: number; sum_of_squares: number }[];
}

export interface FoldResult {
  multiple_exposure_users: number;
  variants: VariantFigures[];
  /** Cumulative exposed users and conversions per variant at the end of each UTC day. */
  days: { day: string; exposed_users: number[]; conversions: number[] }[];
}

const UNSEEN = -1;
const MULTIPLE = -2;
/** Revenue of a user with no purchase in that currency (0 is a real amount: a free purchase). */
const NONE = -1;

export function emptyFold(query: FoldQuery): FoldResult {
  return { multiple_exposure_users: 0, variants: query.variants.map(() => ({ exposed_users: 0, conversions: 0, revenue: [] })), days: [] };
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
  private purchasesRead = 0;
  private users = 0;
  private variantOf = new Int32Array(0);
  private firstExposure = new Float64Array(0);
  private firstPurchase = new Float64Array(0);
  /** currency code → user → revenue (NONE: no purchase in it) */
  private readonly revenue = new Map<number, Float64Array>();
  private readonly to: number;

  constructor(
    private readonly segment: Segment,
    private readonly query: FoldQuery,
  ) {
    this.to = query.to ?? Number.POSITIVE_INFINITY;
  }

  /** Reads the entries added since the last update; `users` is the project's user count (every ordinal is below it). */
  update(users: number): void {
    if (users > this.users) {
      this.variantOf = grown(this.variantOf, users, UNSEEN);
      this.firstExposure = grown(this.firstExposure, users, Number.POSITIVE_INFINITY);
      this.firstPurchase = grown(this.firstPurchase, users, Number.POSITIVE_INFINITY);
      for (const [code, amounts] of this.revenue) this.revenue.set(code, grown(amounts, users, NONE));
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
    const purchases = segment.purchases;
    for (let i = this.purchasesRead; i < purchases.length; ) {
      const block = purchases.blocks[i >>> BLOCK_SHIFT]!;
      const { codes, ordinals, values } = block;
      const end = Math.min(purchases.length, ((i >>> BLOCK_SHIFT) + 1) * CHUNK_ENTRIES);
      for (let j = i & BLOCK_MASK; i < end; i++, j++) this.count(ordinals[j]!, timeAt(block, j), codes[j]!, values![j]!);
    }
    this.purchasesRead = purchases.length;
    // Users whose first exposure moved earlier: their purchases are counted again from scratch.
    const blocks = purchases.blocks;
    for (const user of moved) {
      firstPurchase[user] = Number.POSITIVE_INFINITY;
      for (const amounts of this.revenue.values()) amounts[user] = NONE;
      for (let i = segment.lastPurchase?.get(user) ?? -1; i !== -1; i = segment.previousPurchase[i]!) {
        const block = blocks[i >>> BLOCK_SHIFT]!;
        const j = i & BLOCK_MASK;
        this.count(user, timeAt(block, j), block.codes[j]!, block.values![j]!);
      }
    }
  }

  private count(user: number, ts: number, code: number, value: number): void {
    if (ts < this.query.from || ts >= this.to) return;
    if (this.variantOf[user]! === UNSEEN || ts < this.firstExposure[user]!) return;
    if (ts < this.firstPurchase[user]!) this.firstPurchase[user] = ts;
    if (code === NO_CURRENCY) return;
    let amounts = this.revenue.get(code);
    if (!amounts) this.revenue.set(code, (amounts = new Float64Array(this.users).fill(NONE)));
    amounts[user] = amounts[user] === NONE ? value : amounts[user]! + value;
  }

  /** The counts: one sequential pass over the users. */
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
    const currencies = [...this.revenue.keys()].sort((a, b) => (this.segment.currencies[a]! < this.segment.currencies[b]! ? -1 : 1));
    for (const code of currencies) {
      const amounts = this.revenue.get(code)!;
      const totals = new Float64Array(k);
      const squares = new Float64Array(k);
      let payers = 0;
      for (let user = 0; user < users; user++) {
        const amount = amounts[user]!;
        if (amount === NONE) continue;
        const variant = variantOf[user]!;
        if (variant < 0) continue;
        payers++;
        totals[variant]! += amount;
        squares[variant]! += amount * amount;
      }
      if (payers === 0) continue;
      result.variants.forEach((figures, v) => {
        figures.revenue.push({ currency: this.segment.currencies[code]!, total: totals[v]!, sum_of_squares: squares[v]! });
      });
    }
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
}
