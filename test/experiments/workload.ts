/**
 * Generated experiment workloads and their expected results, computed by
 * brute force from the events the test sent: no typed arrays, no folds, just
 * the rules of docs/reference/experiments.md applied to plain objects.
 */
import type { Json } from '../helpers/json.ts';

/** A small seeded PRNG (mulberry32): the same workload on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SentEvent {
  id: string;
  type: string;
  paywall_id: string;
  ts: number;
  user_id?: string;
  variant_id?: string;
  audience?: string;
  revenue?: number;
  currency?: string;
}

export interface Expected {
  exposed: Record<string, number>;
  conversions: Record<string, number>;
  multiple: number;
  /** currency → variant → per-user revenue of converting users (non-payers are zeros and not listed) */
  revenue: Map<string, Map<string, number[]>>;
  /** day → variant → [cumulative exposed, cumulative conversions] */
  days: Map<string, Record<string, [number, number]>>;
}

/** Expected figures of one phase [from, to) and segment, from the unique stored events. */
export function expectedResults(
  events: SentEvent[],
  paywallId: string,
  from: number,
  to: number | null,
  audience: string | null,
  variants: string[],
): Expected {
  const inWindow = (e: SentEvent) => e.paywall_id === paywallId && e.ts >= from && (to === null || e.ts < to) && e.user_id !== undefined;
  const inPhase = (e: SentEvent) => inWindow(e) && (e.audience ?? null) === audience;
  const seen = new Map<string, { variants: Set<string>; first: number }>();
  for (const e of events) {
    if (!inPhase(e) || e.type !== 'screen_impression' || e.variant_id === undefined || !variants.includes(e.variant_id)) continue;
    const user = seen.get(e.user_id!) ?? { variants: new Set<string>(), first: Number.POSITIVE_INFINITY };
    user.variants.add(e.variant_id);
    user.first = Math.min(user.first, e.ts);
    seen.set(e.user_id!, user);
  }
  const expected: Expected = { exposed: {}, conversions: {}, multiple: 0, revenue: new Map(), days: new Map() };
  for (const variant of variants) {
    expected.exposed[variant] = 0;
    expected.conversions[variant] = 0;
  }
  const dayOf = (ts: number) => new Date(ts).toISOString().slice(0, 10);
  const newByDay = new Map<string, Record<string, [number, number]>>();
  const bump = (day: string, variant: string, slot: 0 | 1) => {
    const row = newByDay.get(day) ?? Object.fromEntries(variants.map((v) => [v, [0, 0] as [number, number]]));
    row[variant]![slot]++;
    newByDay.set(day, row);
  };
  for (const [userId, user] of seen) {
    if (user.variants.size > 1) {
      expected.multiple++;
      continue;
    }
    const variant = [...user.variants][0]!;
    expected.exposed[variant]!++;
    bump(dayOf(user.first), variant, 0);
    // A purchase counts for the segment where its user was exposed, whatever its own audience.
    const purchases = events.filter((e) => inWindow(e) && e.type === 'purchase_complete' && e.user_id === userId && e.ts >= user.first);
    if (purchases.length === 0) continue;
    expected.conversions[variant]!++;
    bump(dayOf(Math.min(...purchases.map((e) => e.ts))), variant, 1);
    const perCurrency = new Map<string, number>();
    for (const e of purchases) if (e.revenue !== undefined) perCurrency.set(e.currency!, (perCurrency.get(e.currency!) ?? 0) + e.revenue);
    for (const [currency, amount] of perCurrency) {
      if (!expected.revenue.has(currency)) expected.revenue.set(currency, new Map(variants.map((v) => [v, []])));
      expected.revenue.get(currency)!.get(variant)!.push(amount);
    }
  }
  const days = [...newByDay.keys()].sort();
  if (days.length > 0) {
    const running: Record<string, [number, number]> = Object.fromEntries(variants.map((v) => [v, [0, 0]]));
    for (let t = Date.parse(days[0]!); t <= Date.parse(days.at(-1)!); t += 86_400_000) {
      const row = newByDay.get(dayOf(t));
      for (const v of variants) {
        running[v]![0] += row?.[v]?.[0] ?? 0;
        running[v]![1] += row?.[v]?.[1] ?? 0;
      }
      expected.days.set(dayOf(t), Object.fromEntries(variants.map((v) => [v, [...running[v]!] as [number, number]])));
    }
  }
  return expected;
}

/** Mean and sample standard deviation of per-user revenue over n exposed users (non-payers 0). */
export function moments(amounts: number[], n: number): { mean: number; sd: number } {
  const sum = amounts.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  let squares = 0;
  for (const amount of amounts) squares += (amount - mean) ** 2;
  squares += (n - amounts.length) * mean * mean;
  return { mean, sd: Math.sqrt(squares / (n - 1)) };
}

/** Sends events in shuffled batches of up to 200, each batch twice (a retry after a lost answer), calling `between` after each. */
export async function sendShuffled(
  send: (events: Json[]) => Promise<{ accepted: number; duplicates: number; rejected: Json[] }>,
  events: SentEvent[],
  rand: () => number,
  between: () => Promise<void> = async () => {},
): Promise<void> {
  const shuffled = [...events];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  for (let i = 0; i < shuffled.length; i += 200) {
    const batch = shuffled.slice(i, i + 200);
    const first = await send(batch);
    if (first.rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(first.rejected)}`);
    const retry = await send(batch);
    if (retry.accepted !== 0 || retry.duplicates !== batch.length) throw new Error('a retried batch was stored again');
    await between();
  }
}
