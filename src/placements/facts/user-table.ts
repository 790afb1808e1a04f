/**
 * One project's users as the purchases.* facts keep them, built for a
 * million users in a few tens of megabytes (bench/purchase-facts.ts): no
 * object and no string per user. A user id is kept as a 64-bit hash (two
 * 32-bit lanes) in columns by ordinal, found through an open-addressing
 * table of ordinals; everything known of a user is a few typed-array cells
 * at its ordinal. Two ids of one project sharing all 64 bits would share
 * their facts: at a million users, a chance of about 3 in 100 million.
 */

/** The hash of the id being looked up: set by hashId, read by find and add. */
let high = 0;
let low = 0;

/** Murmur3's finalizer: every bit of the input moves about half of the output's. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two independent 32-bit hashes of the id's UTF-16 code units (FNV-1a, and a multiply-rotate), each finalized. */
function hashId(id: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b = (b << 13) | (b >>> 19);
  }
  high = mix(a);
  low = mix(b ^ a);
}

/** A 32-bit hash of a text that is never 0 (0 marks an empty cell). */
export function textHash(text: string): number {
  hashId(text);
  return low || 1;
}

/** How a column grows: by a quarter, so that at a million users little stands empty. */
export function grown<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array>(array: T, size: number, fill = 0): T {
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(size, Math.ceil(array.length * 1.25), 256));
  if (fill !== 0) bigger.fill(fill);
  bigger.set(array);
  return bigger;
}

/** The ids of one project: ordinals 0, 1, 2, … in order of first sight, found by hash. */
export class UserTable {
  size = 0;
  /** Per ordinal: its id's hash. */
  private hashHigh = new Uint32Array(0);
  private hashLow = new Uint32Array(0);
  /** Open addressing with linear probing: ordinal + 1 in each used slot, 0 in a free one; at most three quarters full. */
  private slots = new Int32Array(1024);
  /** Where the last unsuccessful find stopped: where a new id goes. */
  private freeSlot = 0;
  /** Called with the new capacity when the columns must grow (the facts' columns grow with them). */
  constructor(private readonly onGrow: (capacity: number) => void) {}

  /** The ordinal of the id hashed last, or -1 (freeSlot then says where it would go). */
  private find(): number {
    const mask = this.slots.length - 1;
    for (let slot = low & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) {
        this.freeSlot = slot;
        return -1;
      }
      if (this.hashLow[entry - 1] === low && this.hashHigh[entry - 1] === high) return entry - 1;
    }
  }

  /** The ordinal of `id`, or -1 when the table has never seen it. */
  lookup(id: string): number {
    hashId(id);
    return this.find();
  }

  /** The ordinal of `id`, added as the next one when missing. */
  ordinal(id: string): number {
    hashId(id);
    const found = this.find();
    if (found !== -1) return found;
    const ordinal = this.size++;
    if (this.hashLow.length < this.size) {
      this.hashHigh = grown(this.hashHigh, this.size);
      this.hashLow = grown(this.hashLow, this.size);
      this.onGrow(this.hashLow.length);
    }
    this.hashHigh[ordinal] = high;
    this.hashLow[ordinal] = low;
    if (4 * this.size > 3 * this.slots.length) this.rehash();
    else this.slots[this.freeSlot] = ordinal + 1;
    return ordinal;
  }

  /** Doubles the table and puts every ordinal back by the low lane of its hash. */
  private rehash(): void {
    const slots = new Int32Array(2 * this.slots.length);
    const mask = slots.length - 1;
    for (let ordinal = 0; ordinal < this.size; ordinal++) {
      let slot = this.hashLow[ordinal]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = ordinal + 1;
    }
    this.slots = slots;
  }

  /** Bytes held by the table's arrays (the bench reports it beside the heap). */
  bytes(): number {
    return this.hashHigh.byteLength + this.hashLow.byteLength + this.slots.byteLength;
  }
}
