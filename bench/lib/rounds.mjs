/**
 * Alternating rounds: every contender once for warm-up (not counted; none
 * when warmupSeconds is 0), then
 * `rounds` rounds of A, B, C … in turn, so that a slow spell of the machine
 * falls on every contender alike rather than on whoever ran during it.
 */
export async function alternate(contenders, { options: { rounds, warmupSeconds, roundSeconds }, log }) {
  for (const contender of warmupSeconds > 0 ? contenders : []) {
    log(`  warm-up  ${contender.name}`);
    await contender.run(warmupSeconds, 'warmup');
  }
  const results = new Map(contenders.map((contender) => [contender.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const contender of contenders) {
      const result = await contender.run(roundSeconds, round);
      results.get(contender.name).push(result);
      log(`  round ${round}  ${contender.name.padEnd(28)} ${contender.describe(result)}`);
    }
  }
  return results;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Round by round a / b of `field`, and their median. */
export function ratios(a, b, field) {
  const perRound = a.map((result, i) => result[field] / b[i][field]);
  return { perRound, median: median(perRound) };
}

/** The median of one field over a contender's rounds. */
export function medianOf(results, field) {
  return median(results.map((result) => result[field]));
}

/** The p-th percentile (nearest rank) of ascending values. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
