/**
 * A compressed set of user ordinals (non-negative integers below 2^32), in
 * the layout of roaring bitmaps: ordinals are split by their high 16 bits
 * into chunks, and each chunk holds its low 16 bits either as a sorted array
 * (up to 4,096 members: 2 bytes each) or as a 65,536-bit bitmap (8 KiB), so
 * a set of a few users costs bytes and a set of most users one bit each.
 * Written here rather than taken from the `roaring` package so that the
 * bundle and the single executable stay free of another native addon.
 */

/** Past this many members a chunk's array is larger than its bitmap (4,096 × 2 bytes = 8 KiB). */
const ARRAY_MAX = 4096;
const BITMAP_WORDS = 2048;

type Chunk = { kind: 'array'; values: Uint16Array; size: number } | { kind: 'bitmap'; words: Uint32Array; size: number };

function popcount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Index of `value` in the first `size` entries of sorted `values`, or -(insertion point) - 1. */
function search(values: Uint16Array, size: number, value: number): number {
  let low = 0;
  let high = size - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = values[mid]!;
    if (at < value) low = mid + 1;
    else if (at > value) high = mid - 1;
    else return mid;
  }
  return -low - 1;
}

function orInto(scratch: Uint32Array, chunk: Chunk): void {
  if (chunk.kind === 'bitmap') {
    const words = chunk.words;
    for (let i = 0; i < BITMAP_WORDS; i++) scratch[i]! |= words[i]!;
  } else {
    const values = chunk.values;
    for (let i = 0; i < chunk.size; i++) scratch[values[i]! >>> 5]! |= 1 << (values[i]! & 31);
  }
}

function toBitmap(values: Uint16Array, size: number): Uint32Array {
  const words = new Uint32Array(BITMAP_WORDS);
  for (let i = 0; i < size; i++) words[values[i]! >>> 5]! |= 1 << (values[i]! & 31);
  return words;
}

export class OrdinalSet {
  /** Chunks by their high 16 bits. */
  private readonly chunks = new Map<number, Chunk>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `ordinal`; true when it was not yet a member. */
  add(ordinal: number): boolean {
    const high = ordinal >>> 16;
    const low = ordinal & 0xffff;
    let chunk = this.chunks.get(high);
    if (!chunk) this.chunks.set(high, (chunk = { kind: 'array', values: new Uint16Array(4), size: 0 }));
    if (chunk.kind === 'bitmap') {
      const word = low >>> 5;
      const bit = 1 << (low & 31);
      if ((chunk.words[word]! & bit) !== 0) return false;
      chunk.words[word]! |= bit;
    } else {
      // Ordinals are handed out in order of first appearance: new users append at the end.
      const at = chunk.size > 0 && chunk.values[chunk.size - 1]! < low ? -chunk.size - 1 : search(chunk.values, chunk.size, low);
      if (at >= 0) return false;
      if (chunk.size === ARRAY_MAX) {
        const words = toBitmap(chunk.values, chunk.size);
        words[low >>> 5]! |= 1 << (low & 31);
        this.chunks.set(high, { kind: 'bitmap', words, size: chunk.size + 1 });
        this.count++;
        return true;
      }
      if (chunk.size === chunk.values.length) {
        const grown = new Uint16Array(Math.min(ARRAY_MAX, chunk.values.length * 2));
        grown.set(chunk.values);
        chunk.values = grown;
      }
      const insertAt = -at - 1;
      chunk.values.copyWithin(insertAt + 1, insertAt, chunk.size);
      chunk.values[insertAt] = low;
    }
    chunk.size++;
    this.count++;
    return true;
  }

  has(ordinal: number): boolean {
    const chunk = this.chunks.get(ordinal >>> 16);
    if (!chunk) return false;
    const low = ordinal & 0xffff;
    if (chunk.kind === 'bitmap') return (chunk.words[low >>> 5]! & (1 << (low & 31))) !== 0;
    return search(chunk.values, chunk.size, low) >= 0;
  }

  /** Members in ascending order. */
  *[Symbol.iterator](): IterableIterator<number> {
    for (const high of [...this.chunks.keys()].sort((a, b) => a - b)) {
      const chunk = this.chunks.get(high)!;
      const base = high * 65536;
      if (chunk.kind === 'array') {
        for (let i = 0; i < chunk.size; i++) yield base + chunk.values[i]!;
      } else {
        for (let word = 0; word < BITMAP_WORDS; word++) {
          let bits = chunk.words[word]!;
          while (bits !== 0) {
            const lowest = bits & -bits;
            yield base + word * 32 + (31 - Math.clz32(lowest));
            bits ^= lowest;
          }
        }
      }
    }
  }

  /**
   * How many ordinals are in at least one of `sets`: the exact size of their
   * union, computed chunk by chunk in one scratch bitmap, without building it.
   * `base`, when given, is a union already computed (chunks by high bits, as
   * from `unionChunks`) that the result includes too.
   */
  static unionSize(sets: readonly OrdinalSet[], base?: ReadonlyMap<number, Uint32Array>): number {
    if (!base && sets.length === 0) return 0;
    if (!base && sets.length === 1) return sets[0]!.size;
    const highs = new Set<number>(base?.keys());
    for (const set of sets) for (const high of set.chunks.keys()) highs.add(high);
    const scratch = new Uint32Array(BITMAP_WORDS);
    let total = 0;
    for (const high of highs) {
      const start = base?.get(high);
      if (start) scratch.set(start);
      else scratch.fill(0);
      for (const set of sets) {
        const chunk = set.chunks.get(high);
        if (chunk) orInto(scratch, chunk);
      }
      for (let i = 0; i < BITMAP_WORDS; i++) if (scratch[i] !== 0) total += popcount(scratch[i]!);
    }
    return total;
  }

  /** The union of `sets` as bitmaps by high bits: to be the `base` of later unionSize calls. */
  static unionChunks(sets: readonly OrdinalSet[]): Map<number, Uint32Array> {
    const union = new Map<number, Uint32Array>();
    for (const set of sets) {
      for (const [high, chunk] of set.chunks) {
        let words = union.get(high);
        if (!words) union.set(high, (words = new Uint32Array(BITMAP_WORDS)));
        orInto(words, chunk);
      }
    }
    return union;
  }

  /**
   * The set as bytes: per chunk (ascending) its high 16 bits, its kind (0
   * array, 1 bitmap) and its size as u32 little-endian, then the array's
   * u16 values or the bitmap's 2,048 u32 words.
   */
  serialize(): Buffer {
    const highs = [...this.chunks.keys()].sort((a, b) => a - b);
    let bytes = 4;
    for (const high of highs) {
      const chunk = this.chunks.get(high)!;
      bytes += 12 + (chunk.kind === 'array' ? chunk.size * 2 : BITMAP_WORDS * 4);
    }
    const out = Buffer.alloc(bytes);
    out.writeUInt32LE(highs.length, 0);
    let at = 4;
    for (const high of highs) {
      const chunk = this.chunks.get(high)!;
      out.writeUInt32LE(high, at);
      out.writeUInt32LE(chunk.kind === 'array' ? 0 : 1, at + 4);
      out.writeUInt32LE(chunk.size, at + 8);
      at += 12;
      if (chunk.kind === 'array') {
        for (let i = 0; i < chunk.size; i++, at += 2) out.writeUInt16LE(chunk.values[i]!, at);
      } else {
        for (let i = 0; i < BITMAP_WORDS; i++, at += 4) out.writeUInt32LE(chunk.words[i]!, at);
      }
    }
    return out;
  }

  static deserialize(bytes: Uint8Array): OrdinalSet {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const set = new OrdinalSet();
    const chunks = view.readUInt32LE(0);
    let at = 4;
    for (let c = 0; c < chunks; c++) {
      const high = view.readUInt32LE(at);
      const kind = view.readUInt32LE(at + 4);
      const size = view.readUInt32LE(at + 8);
      at += 12;
      if (kind === 0) {
        const values = new Uint16Array(Math.max(4, size));
        for (let i = 0; i < size; i++, at += 2) values[i] = view.readUInt16LE(at);
        set.chunks.set(high, { kind: 'array', values, size });
      } else {
        const words = new Uint32Array(BITMAP_WORDS);
        for (let i = 0; i < BITMAP_WORDS; i++, at += 4) words[i] = view.readUInt32LE(at);
        set.chunks.set(high, { kind: 'bitmap', words, size });
      }
      set.count += size;
    }
    return set;
  }
}
