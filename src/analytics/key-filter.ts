/**
 * A Bloom filter of deduplication keys (as event_dedup holds them: project
 * number, client time, hash of the event id): it answers "certainly not stored" for
 * almost every new event, so the writer reads event_dedup only for the few
 * keys it might hold (a retry, or a false positive, about 2 in 100 at the
 * planned capacity). It never answers "not stored" for a stored key: every
 * key goes in before it can be looked up, so deduplication stays exact.
 * Deleted keys (retention) stay in it: they only cost a read. When it holds
 * more keys than planned, its owner starts a larger one beside it.
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

  add(projectNo: number, clientTs: number, idHash: number): void {
    hashKey(projectNo, clientTs, idHash);
    this.set();
  }

  /** False only when the key was never added. */
  mightContain(projectNo: number, clientTs: number, idHash: number): boolean {
    hashKey(projectNo, clientTs, idHash);
    let a = h1 >>> 0;
    const b = (h2 | 1) >>> 0;
    for (let i = 0; i < PROBES; i++, a = (a + b) >>> 0) {
      const bit = a % this.bits;
      if ((this.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  private set(): void {
    let a = h1 >>> 0;
    const b = (h2 | 1) >>> 0;
    for (let i = 0; i < PROBES; i++, a = (a + b) >>> 0) {
      const bit = a % this.bits;
      this.words[bit >>> 5]! |= 1 << (bit & 31);
    }
  }
}

/*
 * Two independent 32-bit hashes of the key's 32-bit words (FNV-1a and a
 * multiply-rotate, each finished by murmur3's mix) for double hashing, kept
 * in module state rather than returned in a tuple: no allocation per key.
 */
let h1 = 0;
let h2 = 0;

const TWO_32 = 2 ** 32;

function word(w: number): void {
  h1 = Math.imul(h1 ^ w, 0x01000193);
  h2 = Math.imul(h2 ^ w, 0x5bd1e995);
  h2 ^= h2 >>> 15;
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The key (event_dedup's project_no, client_ts, id_hash): non-negative integers below 2^53. */
function hashKey(projectNo: number, clientTs: number, idHash: number): void {
  h1 = 0x811c9dc5;
  h2 = 0x9747b28c;
  word(projectNo);
  word(clientTs >>> 0);
  word(Math.floor(clientTs / TWO_32));
  word(idHash >>> 0);
  word(Math.floor(idHash / TWO_32));
  h1 = mix(h1);
  h2 = mix(h2);
}
