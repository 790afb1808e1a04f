/**
 * The moments of one currency's revenue per variant at each look of a fold
 * (the end of each day, then now): per user y, their net revenue up to the
 * look, capped, and x, what they spent before their first exposure. Only
 * the users with revenue or a covariate are listed; the other exposed users
 * of the look are zeros, joined analytically (Chan's pairwise update).
 *
 * In two steps, so that an answer after new exposures alone costs a few
 * operations per day: listedMoments reads the listed users, which change
 * only with the payers, and revenueLooks joins the zeros of each look.
 * Now is exact: a running (Welford) mean, then the spread around it in a
 * second pass, so that a revenue the same for every user has a spread of
 * exactly 0. The past looks cost one pass over the users' changes, not one
 * per day: each user's terms (y − M)², (x − L)², (x − L)(y − M) around the
 * listed users' means now (M, L) enter the day their value starts and
 * leave the day it changes, summed per day with Neumaier's compensation,
 * so that a term that enters and leaves cancels exactly; a look whose
 * spread is below what its sums can resolve (1e-9 of them: a near-constant
 * revenue far from now's mean) has none.
 */
import { CompensatedSums } from './compensated-sums.ts';
import type { Moments } from './fold-types.ts';

/** An exposed user with revenue or a covariate in the currency. */
export interface Sparse {
  variant: number;
  /** First exposure (ms). */
  exposed: number;
  /** Net revenue before the first exposure. */
  x: number;
  /** Changes since: time, signed amount, 1 for a payment or −1 for a refund (UserRevenue). */
  changes: number[] | undefined;
}

interface Look {
  payers: number;
  capped: number;
  moments: Moments;
}

/** Below this share of its listed users' sum of squares around now's listed mean, a past look's spread is rounding: 0. */
const RESOLVABLE = 1e-9;

/** n − m zeros joined to the moments of m listed users (Chan's pairwise update with an all-zero group). */
function withZeros(n: number, m: number, meanY: number, m2y: number, meanX: number, m2x: number, c: number): Moments {
  if (m === 0 || n === 0) return { n, meanY: 0, m2y: 0, meanX: 0, m2x: 0, c: 0 };
  const w = (m * (n - m)) / n;
  return { n, meanY: (meanY * m) / n, m2y: m2y + meanY * meanY * w, meanX: (meanX * m) / n, m2x: m2x + meanX * meanX * w, c: c + meanX * meanY * w };
}

/** Whether change a of `changes` comes before change b (both indexes of triples): by time, then amount, then kind. */
function before(changes: number[], a: number, b: number): boolean {
  for (let field = 0; field < 3; field++) {
    const x = changes[a + field]!;
    const y = changes[b + field]!;
    if (x !== y) return x < y;
  }
  return false;
}

/**
 * A user's changes (time, amount, kind triples, as UserRevenue keeps them)
 * in one order, by time, then amount, then kind: most are in order already.
 */
export function sortedChanges(entry: Sparse): number[] {
  const changes = entry.changes ?? [];
  let ordered = true;
  for (let j = 3; j < changes.length && ordered; j += 3) ordered = !before(changes, j, j - 3);
  if (ordered) return changes;
  const order = Array.from({ length: changes.length / 3 }, (_, j) => 3 * j).sort((a, b) => (before(changes, a, b) ? -1 : before(changes, b, a) ? 1 : 0));
  return order.flatMap((j) => [changes[j]!, changes[j + 1]!, changes[j + 2]!]);
}

/** Whether change j of a user's (sorted) changes is a payment (a refund, or a payment of nothing, does not make a payer). */
const payment = (changes: number[], j: number) => changes[j + 2]! > 0 && changes[j + 1]! > 0;

/** The listed users of each variant now, exactly: Welford means, then the spreads around them; with the payers and those capped. */
interface ListedNow {
  count: Float64Array;
  meanY: Float64Array;
  m2y: Float64Array;
  meanX: Float64Array;
  m2x: Float64Array;
  c: Float64Array;
  payers: Float64Array;
  capped: Float64Array;
}

function listedNow(list: Sparse[], changes: number[][], cap: number, k: number): ListedNow {
  const count = new Float64Array(k);
  const meanY = new Float64Array(k);
  const meanX = new Float64Array(k);
  const payers = new Float64Array(k);
  const capped = new Float64Array(k);
  const y = new Float64Array(list.length);
  list.forEach((entry, i) => {
    const own = changes[i]!;
    let net = 0;
    let paid = 0;
    for (let j = 0; j < own.length; j += 3) {
      net += own[j + 1]!;
      if (payment(own, j)) paid = 1;
    }
    const v = entry.variant;
    y[i] = Math.min(cap, net);
    count[v]!++;
    meanY[v]! += (y[i]! - meanY[v]!) / count[v]!;
    meanX[v]! += (entry.x - meanX[v]!) / count[v]!;
    payers[v]! += paid;
    if (net > cap) capped[v]!++;
  });
  const m2y = new Float64Array(k);
  const m2x = new Float64Array(k);
  const c = new Float64Array(k);
  list.forEach((entry, i) => {
    const v = entry.variant;
    const dy = y[i]! - meanY[v]!;
    const dx = entry.x - meanX[v]!;
    m2y[v]! += dy * dy;
    m2x[v]! += dx * dx;
    c[v]! += dx * dy;
  });
  return { count, meanY, m2y, meanX, m2x, c, payers, capped };
}

/** Per day and variant, sums with Neumaier's compensation: slot s of SUMS at (day · k + variant) · SUMS + s. */
const SUMS = 6;
const [LISTED, SY, SYY, SX, SXX, SXY] = [0, 1, 2, 3, 4, 5];

/**
 * What the looks need from the listed users of one currency: now, and at
 * the end of each past day their running sums around now's listed means
 * (slot s of SUMS at (day · k + v) · SUMS + s), the payers and those capped.
 */
export interface ListedMoments {
  k: number;
  days: number;
  now: ListedNow;
  sums: Float64Array;
  payers: Float64Array;
  capped: Float64Array;
}

/** The listed users' part of every look (their ends in ms, the last one now: infinite) of k variants. */
export function listedMoments(list: Sparse[], cap: number, k: number, lookEnds: number[]): ListedMoments {
  const changes = list.map(sortedChanges);
  const now = listedNow(list, changes, cap, k);
  const days = lookEnds.length - 1;
  // The first look whose end is after t (days: a change after the last day's end only counts now).
  const lookOf = (t: number) => {
    let low = 0;
    let high = days;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (t < lookEnds[middle]!) high = middle;
      else low = middle + 1;
    }
    return low;
  };
  const sums = new CompensatedSums(days * k * SUMS);
  const paidFrom = new Float64Array(days * k);
  const cappedFrom = new Float64Array(days * k);
  list.forEach((entry, i) => {
    const v = entry.variant;
    const M = now.meanY[v]!;
    const dx = entry.x - now.meanX[v]!;
    // The terms of a value of y, entering (sign 1) or leaving (−1) at a day.
    const terms = (day: number, y: number, sign: number) => {
      const at = (day * k + v) * SUMS;
      const dy = Math.min(cap, y) - M;
      sums.add(at + SY, sign * dy);
      sums.add(at + SYY, sign * dy * dy);
      sums.add(at + SXY, sign * dx * dy);
    };
    const start = lookOf(entry.exposed);
    if (start >= days) return;
    const at = (start * k + v) * SUMS;
    sums.add(at + LISTED, 1);
    sums.add(at + SX, dx);
    sums.add(at + SXX, dx * dx);
    let net = 0;
    let paid = false;
    let over = false;
    let day = start;
    const own = changes[i]!;
    // Changes up to the end of the exposure's day are part of its first value.
    let j = 0;
    for (; j < own.length && lookOf(own[j]!) <= start; j += 3) {
      net += own[j + 1]!;
      paid ||= payment(own, j);
    }
    terms(day, net, 1);
    if (paid) paidFrom[day * k + v]!++;
    if (net > cap) {
      over = true;
      cappedFrom[day * k + v]!++;
    }
    while (j < own.length) {
      day = lookOf(own[j]!);
      if (day >= days) break;
      const before = net;
      for (; j < own.length && lookOf(own[j]!) === day; j += 3) {
        net += own[j + 1]!;
        if (payment(own, j) && !paid) {
          paid = true;
          paidFrom[day * k + v]!++;
        }
      }
      terms(day, before, -1);
      terms(day, net, 1);
      if (net > cap !== over) {
        over = !over;
        cappedFrom[day * k + v]! += over ? 1 : -1;
      }
    }
  });
  // Running totals per day, compensated too: each day's sum and its compensation carry on.
  const running = new Float64Array(days * k * SUMS);
  const totals = new CompensatedSums(k * SUMS);
  const payers = new Float64Array(days * k);
  const capped = new Float64Array(days * k);
  for (let day = 0; day < days; day++) {
    for (let v = 0; v < k; v++) {
      for (let s = 0; s < SUMS; s++) {
        const at = (day * k + v) * SUMS + s;
        totals.add(v * SUMS + s, sums.value(at));
        running[at] = totals.value(v * SUMS + s);
      }
      payers[day * k + v] = (day === 0 ? 0 : payers[(day - 1) * k + v]!) + paidFrom[day * k + v]!;
      capped[day * k + v] = (day === 0 ? 0 : capped[(day - 1) * k + v]!) + cappedFrom[day * k + v]!;
    }
  }
  return { k, days, now, sums: running, payers, capped };
}

/**
 * For each look (the exposed users of each variant by then, cumulative:
 * one list per day of `listed`, then now), per variant: the users who paid
 * by then, those whose revenue is above the cap, and the moments of the
 * look's exposed users.
 */
export function revenueLooks(listed: ListedMoments, exposedPerLook: number[][]): Look[][] {
  const { k, days, now, sums } = listed;
  const looks: Look[][] = [];
  for (let day = 0; day < days; day++) {
    const look: Look[] = [];
    for (let v = 0; v < k; v++) {
      const at = (day * k + v) * SUMS;
      const moments = pastMoments(exposedPerLook[day]![v]!, sums.subarray(at, at + SUMS), now.meanY[v]!, now.meanX[v]!);
      look.push({ payers: listed.payers[day * k + v]!, capped: listed.capped[day * k + v]!, moments });
    }
    looks.push(look);
  }
  const exposed = exposedPerLook[days]!;
  looks.push(
    exposed.map((n, v) => ({
      payers: now.payers[v]!,
      capped: now.capped[v]!,
      moments: withZeros(n, now.count[v]!, now.meanY[v]!, now.m2y[v]!, now.meanX[v]!, now.m2x[v]!, now.c[v]!),
    })),
  );
  return looks;
}

/**
 * A past look's moments from the sums of its listed users around now's
 * listed means (M, L): their own means and spreads, then the n − m users
 * not listed joined as zeros.
 */
function pastMoments(n: number, sums: Float64Array, M: number, L: number): Moments {
  const m = sums[LISTED]!;
  if (m === 0) return withZeros(n, 0, 0, 0, 0, 0, 0);
  const sy = sums[SY]!;
  const sx = sums[SX]!;
  const spread = (squares: number, s: number) => {
    const m2 = squares - (s * s) / m;
    return m2 > RESOLVABLE * squares ? m2 : 0;
  };
  const m2y = spread(sums[SYY]!, sy);
  const m2x = spread(sums[SXX]!, sx);
  const c = m2y === 0 || m2x === 0 ? 0 : sums[SXY]! - (sx * sy) / m;
  return withZeros(n, m, M + sy / m, m2y, L + sx / m, m2x, c);
}
