/**
 * The per-user facts of experiments, kept as append-only columns (typed
 * arrays in blocks, no object per user or event): per paywall and segment, every
 * exposure (user ordinal, time, variant code) and every purchase (user
 * ordinal, time, revenue, currency code) in order of storage. Appending
 * costs no search at all; a results request folds the entries of its phase
 * into per-user arrays (experiment-fold.ts). The fold depends only on the
 * set of entries, never their order, so late events with earlier times give
 * the same answer as events in time order, and a rebuild from the raw events
 * (in seq order) gives the same answer as the live state.
 */

/** Entries per checkpointed chunk, and per block in memory: a checkpoint rewrites only the chunks that grew. */
export const CHUNK_ENTRIES = 65_536;
/** log2(CHUNK_ENTRIES): entry i is at (i >>> BLOCK_SHIFT, i & BLOCK_MASK). */
export const BLOCK_SHIFT = 16;
export const BLOCK_MASK = CHUNK_ENTRIES - 1;
/** The currency code of a purchase without revenue. */
export const NO_CURRENCY = 0xffff;
/** Entries of a new last block; it doubles up to CHUNK_ENTRIES. Small: a segment costs what it holds, and most hold little. */
const FIRST_BLOCK = 16;

/** Half the range of a time offset: a block's base lies this far before its first time. */
const OFFSET_HALF = 2 ** 31;
const OFFSET_RANGE = 2 ** 32;

/**
 * Up to CHUNK_ENTRIES consecutive entries of a log, as columns. Times are
 * whole milliseconds; a block's entries nearly always lie within days of
 * each other, so they are kept as 32-bit offsets from a base 24.8 days
 * before the block's first time (10 bytes per exposure instead of 14). A
 * block holding a time outside base … base + 49.7 days (an offline queue
 * sent weeks late, a fractional time) keeps 64-bit times instead.
 */
interface Block {
  ordinals: Int32Array;
  codes: Uint16Array;
  /** Revenue of purchases; absent for exposures. */
  values: Float64Array | undefined;
  /** Entry j's time is base + offsets[j], when offsets is set; else times[j]. */
  base: number;
  offsets: Uint32Array | undefined;
  times: Float64Array | undefined;
}

/** The columns of a block share one buffer (widest first, so each view is aligned): one allocation, not three or four. */
function newBlock(capacity: number, withValues: boolean, base: number): Block {
  const buffer = new ArrayBuffer(capacity * ((withValues ? 8 : 0) + 4 + 4 + 2));
  const valuesBytes = withValues ? 8 * capacity : 0;
  return {
    values: withValues ? new Float64Array(buffer, 0, capacity) : undefined,
    ordinals: new Int32Array(buffer, valuesBytes, capacity),
    offsets: new Uint32Array(buffer, valuesBytes + 4 * capacity, capacity),
    codes: new Uint16Array(buffer, valuesBytes + 8 * capacity, capacity),
    base,
    times: undefined,
  };
}

/** Entry j's time. */
export function timeAt(block: Block, j: number): number {
  return block.offsets ? block.base + block.offsets[j]! : block.times![j]!;
}

/** Switches a block to 64-bit times (a time did not fit its offsets). */
function widen(block: Block): void {
  const times = new Float64Array(block.ordinals.length);
  for (let j = 0; j < times.length; j++) times[j] = block.base + block.offsets![j]!;
  block.times = times;
  block.offsets = undefined;
}

/**
 * One log: full blocks of CHUNK_ENTRIES entries and a last one that grows.
 * Blocks rather than one array that doubles: millions of entries cost their
 * own size (10 bytes per exposure, 18 per purchase), not up to twice that,
 * and growing never copies more than one block (a doubling copy of the
 * whole log would briefly hold it three times over).
 */
export class ExperimentLog {
  length = 0;
  /** Entries below this are in the stored chunks. */
  storedLength = 0;
  readonly blocks: Block[] = [];
  private readonly withValues: boolean;

  constructor(withValues: boolean) {
    this.withValues = withValues;
  }

  push(ordinal: number, time: number, code: number, value: number): void {
    const i = this.length & BLOCK_MASK;
    let block = this.blocks[this.length >>> BLOCK_SHIFT];
    if (!block) this.blocks.push((block = newBlock(FIRST_BLOCK, this.withValues, Math.floor(time) - OFFSET_HALF)));
    else if (i === block.ordinals.length) block = this.growLast(Math.min(CHUNK_ENTRIES, 2 * i));
    block.ordinals[i] = ordinal;
    block.codes[i] = code;
    if (block.values) block.values[i] = value;
    if (block.offsets) {
      const offset = time - block.base;
      if (offset >= 0 && offset < OFFSET_RANGE && Number.isInteger(offset)) block.offsets[i] = offset;
      else widen(block);
    }
    if (block.times) block.times[i] = time;
    this.length++;
  }

  /** Replaces the last block by a copy with room for `capacity` entries. */
  private growLast(capacity: number): Block {
    const last = this.blocks.at(-1)!;
    const block = newBlock(capacity, this.withValues, last.base);
    block.ordinals.set(last.ordinals);
    block.codes.set(last.codes);
    if (block.values) block.values.set(last.values!);
    if (last.offsets) block.offsets!.set(last.offsets);
    else {
      block.offsets = undefined;
      block.times = new Float64Array(capacity);
      block.times.set(last.times!);
    }
    this.blocks[this.blocks.length - 1] = block;
    return block;
  }

  ordinal(i: number): number {
    return this.blocks[i >>> BLOCK_SHIFT]!.ordinals[i & BLOCK_MASK]!;
  }

  /** Chunk `n` as packed columns: times (64-bit), values (purchases), ordinals, codes (8-byte columns first). */
  chunk(n: number): { entries: number; data: Buffer } {
    const entries = Math.min(CHUNK_ENTRIES, this.length - n * CHUNK_ENTRIES);
    const block = this.blocks[n]!;
    const column = (array: Float64Array | Int32Array | Uint16Array) => Buffer.from(array.buffer, array.byteOffset, entries * array.BYTES_PER_ELEMENT);
    const times = new Float64Array(entries);
    for (let j = 0; j < entries; j++) times[j] = timeAt(block, j);
    const parts = [column(times)];
    if (block.values) parts.push(column(block.values));
    parts.push(column(block.ordinals), column(block.codes));
    return { entries, data: Buffer.concat(parts) };
  }

  /**
   * Appends a stored chunk as the next block, sized to its entries (chunks
   * are read in order and all but the last are full; a blob need not be
   * aligned, so columns are copied).
   */
  appendChunk(entries: number, data: Buffer): void {
    if (this.length !== this.blocks.length * CHUNK_ENTRIES) throw new Error('a stored chunk follows a chunk that is not full');
    const times = new Float64Array(entries);
    new Uint8Array(times.buffer).set(data.subarray(0, times.byteLength));
    const block = newBlock(entries, this.withValues, entries === 0 ? 0 : Math.floor(times[0]!) - OFFSET_HALF);
    let offset = times.byteLength;
    for (const array of [block.values, block.ordinals, block.codes]) {
      if (!array) continue;
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(data.subarray(offset, offset + array.byteLength));
      offset += array.byteLength;
    }
    for (let j = 0; j < entries; j++) {
      const at = times[j]! - block.base;
      if (at >= 0 && at < OFFSET_RANGE && Number.isInteger(at)) block.offsets![j] = at;
      else {
        block.offsets = undefined;
        block.times = times;
        break;
      }
    }
    this.blocks.push(block);
    this.length += entries;
    this.storedLength = this.length;
  }
}

/** The purchase chain of a segment without purchases: no allocation until the first. */
const NO_ENTRIES = new Int32Array(0);

/** One paywall's segment: its logs and the names their codes stand for. */
export class Segment {
  readonly exposures = new ExperimentLog(false);
  readonly purchases = new ExperimentLog(true);
  /**
   * Each user's purchases as a chain through the purchase log: the newest
   * entry of user u is lastPurchase.get(u), the one before entry i is
   * previousPurchase[i] (−1 ends a chain). A fold whose user got an earlier
   * first exposure re-reads that user's purchases only. A map, not an array
   * by ordinal: a segment costs its purchasers, not every user of its project.
   */
  lastPurchase: Map<number, number> | undefined;
  previousPurchase = NO_ENTRIES;
  readonly variants: string[] = [];
  readonly currencies: string[] = [];
  /** Each name's code (a search of the lists costs their length per entry), made with the first name. */
  private variantCodes: Map<string, number> | undefined;
  private currencyCodes: Map<string, number> | undefined;
  /** Names were added since the last checkpoint. */
  namesDirty = true;
  /** Bumped on every append: a remembered fold stays valid while it is unchanged. */
  version = 0;

  addPurchase(ordinal: number, ts: number, code: number, value: number): void {
    this.purchases.push(ordinal, ts, code, value);
    this.link(this.purchases.length - 1);
  }

  /** Chains entry i (the newest so far) to its user's previous purchase. */
  link(i: number): void {
    const user = this.purchases.ordinal(i);
    if (i >= this.previousPurchase.length) {
      const grown = new Int32Array(Math.max(16, 2 * (i + 1)));
      grown.set(this.previousPurchase);
      this.previousPurchase = grown;
    }
    const last = (this.lastPurchase ??= new Map());
    this.previousPurchase[i] = last.get(user) ?? -1;
    last.set(user, i);
  }

  /** The name's code, or -1 when the segment has no code left for a new name (never met below the ingestion limits). */
  code(names: string[], name: string): number {
    const index = names === this.variants ? (this.variantCodes ??= new Map()) : (this.currencyCodes ??= new Map());
    // Names loaded from a checkpoint are pushed onto the list directly: the index catches up here.
    for (let k = index.size; k < names.length; k++) index.set(names[k]!, k);
    let code = index.get(name) ?? -1;
    if (code === -1) {
      if (names.length === NO_CURRENCY) return -1;
      code = names.push(name) - 1;
      index.set(name, code);
      this.namesDirty = true;
    }
    return code;
  }
}
