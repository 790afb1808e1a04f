/**
 * Deterministic bucketing, bit-for-bit compatible with GrowthBook's SDKs
 * (packages/sdk-js/src/util.ts, spec 0.5.4): given the same seed, a user
 * lands in the same bucket here as in any GrowthBook client.
 */

/** A variation's share of the unit interval: [start, end). */
export type VariationRange = [start: number, end: number];

/** assignBucket's buckets: hash v2 has exactly 10,000 distinct values. */
const BUCKETS = 10_000;

const FNV_OFFSET_BASIS = 0x811c9dc5;

/**
 * One FNV-1a round: xor in a UTF-16 code unit (GrowthBook hashes charCodeAt,
 * not UTF-8 bytes), then multiply by the FNV prime 16777619 written as shifts,
 * exactly as GrowthBook does, so every intermediate stays an exact double.
 */
function fnvStep(state: number, codeUnit: number): number {
  state ^= codeUnit;
  return state + (state << 1) + (state << 4) + (state << 7) + (state << 8) + (state << 24);
}

/** The FNV-1a state after `text`, from `state`: hashing a + b is continuing a's state over b. */
function fnvOver(state: number, text: string): number {
  for (let i = 0; i < text.length; i++) state = fnvStep(state, text.charCodeAt(i));
  return state;
}

function fnv1a32(text: string): number {
  return fnvOver(FNV_OFFSET_BASIS, text) >>> 0;
}

/** Decimal digits of fnv1a32OfDecimal, least significant first; one buffer, since hashing never nests. */
const DIGITS = new Uint8Array(10);

/**
 * fnv1a32(String(n)) for a uint32 n, hashing its decimal digits without
 * building the string. n is split at 10^5 so that each half fits an int32 and
 * its digits come from integer division (a uint32 does not fit one).
 */
function fnv1a32OfDecimal(n: number): number {
  let count = 0;
  let high = Math.floor(n / 100_000);
  let low = n - high * 100_000;
  if (high > 0) {
    // low's five digits, leading zeros included, then high's.
    for (let i = 0; i < 5; i++) {
      const rest = (low / 10) | 0;
      DIGITS[count++] = low - rest * 10;
      low = rest;
    }
    do {
      const rest = (high / 10) | 0;
      DIGITS[count++] = high - rest * 10;
      high = rest;
    } while (high > 0);
  } else {
    do {
      const rest = (low / 10) | 0;
      DIGITS[count++] = low - rest * 10;
      low = rest;
    } while (low > 0);
  }
  let state = FNV_OFFSET_BASIS;
  while (count > 0) state = fnvStep(state, 0x30 + DIGITS[--count]!);
  return state >>> 0;
}

/** Hash v2 as an integer in [0, 10000): GrowthBook's v2 hash is this divided by 10,000. */
function hashV2Bucket(seed: string, value: string): number {
  return fnv1a32OfDecimal(fnv1a32(seed + value)) % BUCKETS;
}

/**
 * GrowthBook's hash of `value` into [0, 1): version 2 (unbiased) in steps of
 * 0.0001, version 1 (the original, biased; kept for compatibility) in steps of
 * 0.001; null for any other version.
 */
export function hash(seed: string, value: string, version: number): number | null {
  if (version === 2) return hashV2Bucket(seed, value) / BUCKETS;
  if (version === 1) return (fnv1a32(value + seed) % 1000) / 1000;
  return null;
}

function equalWeights(numVariations: number): number[] {
  if (numVariations <= 0) return [];
  return new Array<number>(numVariations).fill(1 / numVariations);
}

/**
 * GrowthBook's bucket ranges: variation i owns [start_i, start_i + coverage * w_i)
 * where start_i is the sum of the earlier weights, so changing coverage never
 * moves a user from one variation to another. Coverage is clamped to [0, 1];
 * weights of the wrong length or not summing to 1 (±0.01) fall back to equal weights.
 */
export function getBucketRanges(numVariations: number, coverage: number | undefined, weights?: readonly number[]): VariationRange[] {
  const clampedCoverage = coverage === undefined ? 1 : coverage < 0 ? 0 : coverage > 1 ? 1 : coverage;

  let usable = weights ?? equalWeights(numVariations);
  if (usable.length !== numVariations) usable = equalWeights(numVariations);
  const totalWeight = usable.reduce((sum, weight) => sum + weight, 0);
  if (totalWeight < 0.99 || totalWeight > 1.01) usable = equalWeights(numVariations);

  let cumulative = 0;
  return usable.map((weight): VariationRange => {
    const start = cumulative;
    cumulative += weight;
    return [start, start + clampedCoverage * weight];
  });
}

/** The index of the range containing n (start inclusive, end exclusive), or -1 when none does. */
export function chooseVariation(n: number, ranges: readonly VariationRange[]): number {
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i]!;
    if (n >= range[0] && n < range[1]) return i;
  }
  return -1;
}

/**
 * The user's bucket in [0, 10000) for `seed`: GrowthBook's hash v2 as an
 * integer, so assignBucket(s, u) / 10000 === hash(s, u, 2) exactly.
 * Computed in integers rather than as Math.floor(hash(s, u, 2) * 10000),
 * because that product rounds just below the integer for 573 of the 10,000
 * values and would floor them into the bucket below.
 */
export function assignBucket(seed: string, userId: string): number {
  return hashV2Bucket(seed, userId);
}

/**
 * The hash state after a seed, for assignBucketAfter: a compiled paywall
 * hashes its seed once instead of joining it to every user id.
 */
export function seedHash(seed: string): number {
  return fnvOver(FNV_OFFSET_BASIS, seed);
}

/** assignBucket(seed, userId), given seedHash(seed). */
export function assignBucketAfter(seedState: number, userId: string): number {
  return fnv1a32OfDecimal(fnvOver(seedState, userId) >>> 0) % BUCKETS;
}

/**
 * The variation for `bucket` given non-negative integer weights of any sum:
 * variation i receives the buckets b with cum_i / total <= b / 10000 < cum_(i+1) / total.
 * A weight of 0 owns no bucket; -1 when every weight is 0 (or there are none).
 * Weights are assumed validated at write time; this runs on every request.
 */
export function pickByWeights(bucket: number, weights: readonly number[]): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i]!;
  if (total <= 0) return -1;

  let cumulative = 0;
  for (let i = 0; i < weights.length; i++) {
    cumulative += weights[i]!;
    // bucket / BUCKETS < cumulative / total, cross-multiplied to stay in exact integers.
    if (bucket * total < cumulative * BUCKETS) return i;
  }
  return -1;
}
