/**
 * Folds a segment's logs over one phase into the counts the statistics need
 * (docs/experiments.md, "Model"): per user, the variants seen and the first
 * exposure; per exposed user of one variant, the first purchase at or after
 * it and the revenue of every such purchase per currency. Costs one pass
 * over the segment's entries plus one over its project's users, whatever
 * order the entries arrived in.
 */
import { dayOf, dayText } from '../time.ts';
import { NO_CURRENCY, type Segment } from './experiment-log.ts';

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

export function foldSegment(segment: Segment | undefined, users: number, query: FoldQuery): FoldResult {
  const k = query.variants.length;
  const empty: FoldResult = {
    multiple_exposure_users: 0,
    variants: query.variants.map(() => ({ exposed_users: 0, conversions: 0, revenue: [] })),
    days: [],
  };
  if (!segment || users === 0) return empty;
  const to = query.to ?? Number.POSITIVE_INFINITY;
  const index = new Int32Array(segment.variants.length).fill(UNSEEN);
  segment.variants.forEach((name, code) => {
    index[code] = query.variants.indexOf(name);
  });

  const variantOf = new Int32Array(users).fill(UNSEEN);
  const firstExposure = new Float64Array(users).fill(Number.POSITIVE_INFINITY);
  const { exposures, purchases } = segment;
  for (let i = 0; i < exposures.length; i++) {
    const ts = exposures.times[i]!;
    if (ts < query.from || ts >= to) continue;
    const variant = index[exposures.codes[i]!]!;
    if (variant === UNSEEN) continue;
    const user = exposures.ordinals[i]!;
    const seen = variantOf[user]!;
    if (seen === UNSEEN) variantOf[user] = variant;
    else if (seen !== variant) variantOf[user] = MULTIPLE;
    if (ts < firstExposure[user]!) firstExposure[user] = ts;
  }

  const firstPurchase = new Float64Array(users).fill(Number.POSITIVE_INFINITY);
  /** currency code → user → revenue */
  const revenue = new Map<number, Map<number, number>>();
  const values = purchases.values!;
  for (let i = 0; i < purchases.length; i++) {
    const ts = purchases.times[i]!;
    if (ts < query.from || ts >= to) continue;
    const user = purchases.ordinals[i]!;
    if (variantOf[user]! < 0 || ts < firstExposure[user]!) continue;
    if (ts < firstPurchase[user]!) firstPurchase[user] = ts;
    const code = purchases.codes[i]!;
    if (code === NO_CURRENCY) continue;
    let perUser = revenue.get(code);
    if (!perUser) revenue.set(code, (perUser = new Map()));
    perUser.set(user, (perUser.get(user) ?? 0) + values[i]!);
  }

  const result = empty;
  /** day → [new exposed per variant..., new conversions per variant...] */
  const daily = new Map<number, Float64Array>();
  const bump = (day: number, slot: number) => {
    let row = daily.get(day);
    if (!row) daily.set(day, (row = new Float64Array(2 * k)));
    row[slot]!++;
  };
  for (let user = 0; user < users; user++) {
    const variant = variantOf[user]!;
    if (variant === MULTIPLE) {
      result.multiple_exposure_users++;
      continue;
    }
    if (variant === UNSEEN) continue;
    const figures = result.variants[variant]!;
    figures.exposed_users++;
    bump(dayOf(firstExposure[user]!), variant);
    if (firstPurchase[user]! !== Number.POSITIVE_INFINITY) {
      figures.conversions++;
      bump(dayOf(firstPurchase[user]!), k + variant);
    }
  }
  for (const [code, perUser] of [...revenue].sort(([a], [b]) => (segment.currencies[a]! < segment.currencies[b]! ? -1 : 1))) {
    const sums = query.variants.map(() => ({ total: 0, sum_of_squares: 0 }));
    for (const [user, amount] of perUser) {
      const sum = sums[variantOf[user]!]!;
      sum.total += amount;
      sum.sum_of_squares += amount * amount;
    }
    sums.forEach((sum, variant) => result.variants[variant]!.revenue.push({ currency: segment.currencies[code]!, total: sum.total, sum_of_squares: sum.sum_of_squares }));
  }

  const days = [...daily.keys()].sort((a, b) => a - b);
  if (days.length > 0) {
    const running = new Float64Array(2 * k);
    for (let day = days[0]!; day <= days.at(-1)!; day++) {
      const row = daily.get(day);
      if (row) for (let slot = 0; slot < 2 * k; slot++) running[slot]! += row[slot]!;
      result.days.push({ day: dayText(day), exposed_users: [...running.subarray(0, k)], conversions: [...running.subarray(k)] });
    }
  }
  return result;
}
