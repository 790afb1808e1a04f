/**
 * A Bloom filter of deduplication keys: it answers "certainly not stored" for
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

  add(key: string): void {
    hashStart();
    hashText(key);
    this.set();
  }

  /** Adds dedupKey(projectId, clientTs, eventId) without building the string: filling at start hashes millions. */
  addParts(projectId: string, clientTs: number, eventId: string): void {
    hashStart();
    hashText(projectId);
    hashCode(0);
    hashText(String(clientTs));
    hashCode(0);
    hashText(eventId);
    this.set();
  }

  /** False only when the key was never added. */
  mightContain(key: string): boolean {
    hashStart();
    hashText(key);
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
 * Two independent 32-bit hashes of the UTF-16 code units (FNV-1a and a
 * multiply-rotate) for double hashing, kept in module state rather than
 * returned in a tuple: no allocation per key.
 */
let h1 = 0;
let h2 = 0;

function hashStart(): void {
  h1 = 0x811c9dc5;
  h2 = 0x9747b28c;
}

function hashCode(c: number): void {
  h1 = Math.imul(h1 ^ c, 0x01000193);
  h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  h2 ^= h2 >>> 15;
}

function hashText(text: string): void {
  for (let i = 0; i < text.length; i++) hashCode(text.charCodeAt(i));
}
