/**
 * The per-user facts of experiments, kept as append-only columns (typed
 * arrays, no object per user or event): per paywall and segment, every
 * exposure (user ordinal, time, variant code) and every purchase (user
 * ordinal, time, revenue, currency code) in order of storage. Appending
 * costs no search at all; a results request folds the entries of its phase
 * into per-user arrays (experiment-fold.ts). The fold depends only on the
 * set of entries, never their order, so late events with earlier times give
 * the same answer as events in time order, and a rebuild from the raw events
 * (in seq order) gives the same answer as the live state.
 */

/** Entries per checkpointed chunk: a checkpoint rewrites only the chunks that grew. */
export const CHUNK_ENTRIES = 65_536;
/** The currency code of a purchase without revenue. */
export const NO_CURRENCY = 0xffff;

export class Log {
  length = 0;
  /** Entries below this are in the stored chunks. */
  storedLength = 0;
  ordinals = new Int32Array(256);
  times = new Float64Array(256);
  codes = new Uint16Array(256);
  /** Revenue of purchases; absent for exposures. */
  values: Float64Array | undefined;

  constructor(withValues: boolean) {
    if (withValues) this.values = new Float64Array(256);
  }

  push(ordinal: number, time: number, code: number, value: number): void {
    if (this.length === this.ordinals.length) this.grow(this.length * 2);
    const i = this.length++;
    this.ordinals[i] = ordinal;
    this.times[i] = time;
    this.codes[i] = code;
    if (this.values) this.values[i] = value;
  }

  private grow(capacity: number): void {
    const ordinals = new Int32Array(capacity);
    ordinals.set(this.ordinals.subarray(0, this.length));
    this.ordinals = ordinals;
    const times = new Float64Array(capacity);
    times.set(this.times.subarray(0, this.length));
    this.times = times;
    const codes = new Uint16Array(capacity);
    codes.set(this.codes.subarray(0, this.length));
    this.codes = codes;
    if (this.values) {
      const values = new Float64Array(capacity);
      values.set(this.values.subarray(0, this.length));
      this.values = values;
    }
  }

  /** Chunk `n` as packed columns: times, values (purchases), ordinals, codes (8-byte columns first). */
  chunk(n: number): { entries: number; data: Buffer } {
    const from = n * CHUNK_ENTRIES;
    const to = Math.min(this.length, from + CHUNK_ENTRIES);
    const parts = [Buffer.from(this.times.slice(from, to).buffer)];
    if (this.values) parts.push(Buffer.from(this.values.slice(from, to).buffer));
    parts.push(Buffer.from(this.ordinals.slice(from, to).buffer), Buffer.from(this.codes.slice(from, to).buffer));
    return { entries: to - from, data: Buffer.concat(parts) };
  }

  /** Appends a stored chunk (chunks are read in order; a blob need not be aligned, so columns are copied). */
  appendChunk(entries: number, data: Buffer): void {
    const column = <T extends Float64Array | Int32Array | Uint16Array>(make: new (n: number) => T, offset: number): T => {
      const out = new make(entries);
      new Uint8Array(out.buffer).set(data.subarray(offset, offset + out.byteLength));
      return out;
    };
    const times = column(Float64Array, 0);
    let offset = 8 * entries;
    const values = this.values ? column(Float64Array, offset) : undefined;
    if (values) offset += 8 * entries;
    const ordinals = column(Int32Array, offset);
    const codes = column(Uint16Array, offset + 4 * entries);
    for (let i = 0; i < entries; i++) this.push(ordinals[i]!, times[i]!, codes[i]!, values ? values[i]! : 0);
    this.storedLength = this.length;
  }
}

/** One paywall's segment: its logs and the names their codes stand for. */
export class Segment {
  readonly exposures = new Log(false);
  readonly purchases = new Log(true);
  /**
   * Each user's purchases as a chain through the purchase log: the newest
   * entry of user u is lastPurchase[u], the one before entry i is
   * previousPurchase[i] (−1 ends a chain). A fold whose user got an earlier
   * first exposure re-reads that user's purchases only.
   */
  lastPurchase = new Int32Array(0);
  previousPurchase = new Int32Array(256);
  readonly variants: string[] = [];
  readonly currencies: string[] = [];
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
    const user = this.purchases.ordinals[i]!;
    if (user >= this.lastPurchase.length) {
      const grown = new Int32Array(Math.max(1024, 2 * (user + 1))).fill(-1);
      grown.set(this.lastPurchase);
      this.lastPurchase = grown;
    }
    if (i >= this.previousPurchase.length) {
      const grown = new Int32Array(2 * (i + 1));
      grown.set(this.previousPurchase);
      this.previousPurchase = grown;
    }
    this.previousPurchase[i] = this.lastPurchase[user]!;
    this.lastPurchase[user] = i;
  }

  code(names: string[], name: string): number {
    let code = names.indexOf(name);
    if (code === -1) {
      if (names.length === NO_CURRENCY) throw new Error('too many distinct variants or currencies in one segment');
      code = names.push(name) - 1;
      this.namesDirty = true;
    }
    return code;
  }
}

/** The segment key of the default split (audience ids are never empty). */
export const DEFAULT_SEGMENT = '';

export class ExperimentLogs {
  /** project → paywall → audience ('' for the default split) → segment */
  private readonly segments = new Map<string, Map<string, Map<string, Segment>>>();

  segment(projectId: string, paywallId: string, audience: string): Segment {
    let paywalls = this.segments.get(projectId);
    if (!paywalls) this.segments.set(projectId, (paywalls = new Map()));
    let audiences = paywalls.get(paywallId);
    if (!audiences) paywalls.set(paywallId, (audiences = new Map()));
    let segment = audiences.get(audience);
    if (!segment) audiences.set(audience, (segment = new Segment()));
    return segment;
  }

  find(projectId: string, paywallId: string, audience: string): Segment | undefined {
    return this.segments.get(projectId)?.get(paywallId)?.get(audience);
  }

  /** Records an event of a known user when it is an exposure (with a variant) or a purchase. */
  apply(
    projectId: string,
    paywallId: string,
    audience: string | null,
    type: string,
    ts: number,
    ordinal: number,
    variantId: string | null,
    revenue: number | null,
    currency: string | null,
  ): void {
    if (type === 'screen_impression') {
      if (variantId === null) return;
      const segment = this.segment(projectId, paywallId, audience ?? DEFAULT_SEGMENT);
      segment.exposures.push(ordinal, ts, segment.code(segment.variants, variantId), 0);
      segment.version++;
    } else if (type === 'purchase_complete') {
      const segment = this.segment(projectId, paywallId, audience ?? DEFAULT_SEGMENT);
      const code = revenue === null || currency === null ? NO_CURRENCY : segment.code(segment.currencies, currency);
      segment.addPurchase(ordinal, ts, code, revenue ?? 0);
      segment.version++;
    }
  }

  *entries(): IterableIterator<[projectId: string, paywallId: string, audience: string, segment: Segment]> {
    for (const [projectId, paywalls] of this.segments) {
      for (const [paywallId, audiences] of paywalls) {
        for (const [audience, segment] of audiences) yield [projectId, paywallId, audience, segment];
      }
    }
  }
}
