/**
 * A Bloom filter of deduplication keys: it answers "certainly not stored" for
 * almost every new event, so the writer reads event_dedup only for the few
 * keys it might hold (a retry, or a false positive, about 2 in 100 at the
 * planned capacity). It never answers "not stored" for a stored key: every
 * key goes in before it can be looked up, so deduplication stays exact.
 * Deleted keys (retention) stay in it: they only cost a read. The owner
 * replaces it with a larger one when it holds more keys than planned.
 */

/** Bits per planned key, and probes per key: about 2 % false positives at capacity. */
const BITS_PER_KEY = 8;
const PROBES = 6;
/** 2^31 bits (256 MiB) at most: 268 M keys. */
const MAX_BITS = 2 ** 31;

export class KeyFilter {
  /** Keys it was planned for. */
  readonly capacity: number;
  private readonly words: Uint32Array;
  private readonly bits: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.bits = Math.min(MAX_BITS, Math.max(1024, Math.ceil((capacity * BITS_PER_KEY) / 32) * 32));
    this.words = new Uint32Array(this.bits / 32);
  }

  add(key: string): void {
    let [h1, h2] = hashes(key);
    for (let i = 0; i < PROBES; i++, h1 = (h1 + h2) >>> 0) {
      const bit = h1 % this.bits;
      this.words[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  /** False only when the key was never added. */
  mightContain(key: string): boolean {
    let [h1, h2] = hashes(key);
    for (let i = 0; i < PROBES; i++, h1 = (h1 + h2) >>> 0) {
      const bit = h1 % this.bits;
      if ((this.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/** Two independent 32-bit hashes of the UTF-16 code units (FNV-1a and a multiply-rotate), for double hashing. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b | 1) >>> 0];
}
