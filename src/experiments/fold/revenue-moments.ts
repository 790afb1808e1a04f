/**
 * The moments of one currency's revenue per variant at each look of a fold
 * (the end of each day, then now): per user y, their net revenue up to the
 * look, capped, and x, what they spent before their first exposure. Only
 * the users with revenue or a covariate are listed; the other exposed users
 * of the look are zeros, joined analytically. Means come from a running
 * (Welford) mean and spreads from a second pass around it, so that a
 * revenue the same for every user has a spread of exactly 0.
 */
import type { Moments } from './fold-types.ts';

/** An exposed user with revenue or a covariate in the currency. */
export interface Sparse {
  variant: number;
  key: number;
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

/** n − m zeros joined to the moments of m listed users (Chan's pairwise update with an all-zero group). */
function withZeros(n: number, m: number, meanY: number, m2y: number, meanX: number, m2x: number, c: number): Moments {
  if (m === 0 || n === 0) return { n, meanY: 0, m2y: 0, meanX: 0, m2x: 0, c: 0 };
  const w = (m * (n - m)) / n;
  return { n, meanY: (meanY * m) / n, m2y: m2y + meanY * meanY * w, meanX: (meanX * m) / n, m2x: m2x + meanX * meanX * w, c: c + meanX * meanY * w };
}

/**
 * For each look (its end in ms, and the exposed users of each variant by
 * then, cumulative), per variant: the users who paid by then, those whose
 * revenue is above `cap`, and the moments of the look's exposed users.
 */
export function revenueMoments(list: Sparse[], cap: number, exposedPerLook: number[][], lookEnds: number[]): Look[][] {
  const s = list.length;
  const k = exposedPerLook[0]?.length ?? 0;
  // Each user's changes in time order, flat: [start[i], start[i + 1]) are user i's.
  const start = new Int32Array(s + 1);
  const times: number[] = [];
  const amounts: number[] = [];
  const payments: boolean[] = [];
  list.forEach((entry, i) => {
    start[i] = times.length;
    const changes = entry.changes ?? [];
    const order = Array.from({ length: changes.length / 3 }, (_, j) => j).sort((a, b) => changes[3 * a]! - changes[3 * b]!);
    for (const j of order) {
      times.push(changes[3 * j]!);
      amounts.push(changes[3 * j + 1]!);
      payments.push(changes[3 * j + 2]! > 0 && changes[3 * j + 1]! > 0);
    }
  });
  start[s] = times.length;
  const next = Int32Array.from(start.subarray(0, s));
  const net = new Float64Array(s);
  const paid = new Uint8Array(s);
  const y = new Float64Array(s);
  return lookEnds.map((end, look) => {
    const count = new Float64Array(k);
    const meanY = new Float64Array(k);
    const meanX = new Float64Array(k);
    const payers = new Float64Array(k);
    const capped = new Float64Array(k);
    for (let i = 0; i < s; i++) {
      for (; next[i]! < start[i + 1]! && times[next[i]!]! < end; next[i]!++) {
        net[i]! += amounts[next[i]!]!;
        if (payments[next[i]!]) paid[i] = 1;
      }
      const entry = list[i]!;
      if (!(entry.exposed < end)) continue;
      const v = entry.variant;
      y[i] = Math.min(cap, net[i]!);
      count[v]!++;
      meanY[v]! += (y[i]! - meanY[v]!) / count[v]!;
      meanX[v]! += (entry.x - meanX[v]!) / count[v]!;
      payers[v]! += paid[i]!;
      if (net[i]! > cap) capped[v]!++;
    }
    const m2y = new Float64Array(k);
    const m2x = new Float64Array(k);
    const c = new Float64Array(k);
    for (let i = 0; i < s; i++) {
      const entry = list[i]!;
      if (!(entry.exposed < end)) continue;
      const v = entry.variant;
      const dy = y[i]! - meanY[v]!;
      const dx = entry.x - meanX[v]!;
      m2y[v]! += dy * dy;
      m2x[v]! += dx * dx;
      c[v]! += dx * dy;
    }
    return exposedPerLook[look]!.map((n, v) => ({
      payers: payers[v]!,
      capped: capped[v]!,
      moments: withZeros(n, count[v]!, meanY[v]!, m2y[v]!, meanX[v]!, m2x[v]!, c[v]!),
    }));
  });
}
