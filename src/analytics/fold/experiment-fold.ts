/**
 * Folds a segment's logs over one phase into the counts the statistics need
 * (docs/reference/experiments.md, "Model"): per user, the variants seen and the first
 * exposure; per exposed user of one variant, the first purchase at or after
 * it (within the conversion window) and the revenue of every such purchase
 * per currency. Purchases are read from every segment of the paywall: a
 * purchase counts for the segment in which its user was exposed, whatever
 * its own `audience` says (a backend sending it cannot know it). Purchase
 * records (sales, refunds, trials: src/purchases/) count by the same rule,
 * under the user's ordinal with linked ids joined. Revenue is kept sparse,
 * per payer and currency: memory follows what exists, not users × currencies.
 *
 * A fold is kept and brought up to date: each update reads only the log
 * entries added since the last one. Exposures only lower a user's first
 * exposure or add a variant, so they fold in any order; a user whose first
 * exposure moved earlier has their purchases re-read through the segment's
 * per-user purchase chain (a purchase before the old first exposure may now
 * count). So late events with earlier times give the same answer as events
 * in time order, and an answer costs the new entries, not a pass over
 * every event (whose random accesses to per-user arrays cost most of a
 * full fold). Nor over every user: the users' counts are a tally that each
 * change of a user's variant, exposure, purchase or history updates
 * (user-tally.ts), and the payers' revenue is read again only when a payer
 * changed (fold-revenue.ts, PayerRevenue).
 */
import { MAX_REVENUE } from '../../events/schema.ts';
import { BLOCK_MASK, BLOCK_SHIFT, CHUNK_ENTRIES, NO_CURRENCY, type Segment, timeAt } from './experiment-log.ts';
import { foldResult } from './fold-result.ts';
import { CURRENCY_SLOTS, UserRevenue } from './fold-revenue.ts';
import type { FoldQuery, FoldRecord, FoldResult } from './fold-types.ts';
import { FoldUsers, UNSEEN } from './fold-users.ts';
import type { Join } from './linked-users.ts';
import { hasPurchases } from './payers.ts';
import { MULTIPLE } from './user-tally.ts';

export class PhaseFold {
  private exposuresRead = 0;
  /** Per purchase source (a segment of the paywall): entries read so far. */
  private readonly purchasesRead = new Map<Segment, number>();
  /** user · CURRENCY_SLOTS + currency slot → the user's revenue in that currency (payers only). */
  private readonly revenue = new UserRevenue();
  private readonly users: FoldUsers;
  /** The purchase records counted so far, per user. */
  private readonly records = new Map<number, FoldRecord[]>();
  /** user → earliest trial start and latest trial conversion that count. */
  private readonly trialStart = new Map<number, number>();
  private readonly trialConverted = new Map<number, number>();
  /** user → latest cancellation that counts (a guardrail: trials cancelled). */
  private readonly cancelled = new Map<number, number>();
  /** Currency name → slot, across the paywall's segments (each codes its currencies its own way). */
  private readonly slots = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly to: number;
  private readonly window: number;

  /** `linked` joins the ordinals of one user (LinkedUsers in purchase-records.ts): each is counted under its user's ordinal. */
  constructor(
    private readonly segment: Segment,
    private readonly query: FoldQuery,
    private readonly linked: { remap: Map<number, number>; members: Map<number, number[]> } = { remap: new Map(), members: new Map() },
  ) {
    this.to = query.to ?? Number.POSITIVE_INFINITY;
    this.window = query.conversionWindowMs ?? Number.POSITIVE_INFINITY;
    this.users = new FoldUsers(query.variants.length, query.from, this.revenue.history);
  }

  /**
   * Reads the entries added since the last update; `users` is the project's
   * user count (every ordinal is below it), `sources` every segment of the
   * paywall (this one included), whose purchases may count here,
   * `records` the purchase records stored since the last update and `joins`
   * the users new links joined since then.
   */
  update(users: number, sources: Segment[], records: FoldRecord[], joins: Join[] = []): void {
    this.users.grow(users);
    const { segment, query, to } = this;
    const { variantOf, firstExposure, firstPurchase } = this.users;
    const from = query.from;
    // Variant codes of the segment (new ones appear as events arrive) → position in the query's list.
    const index = new Int32Array(segment.variants.length);
    segment.variants.forEach((name, code) => {
      index[code] = query.variants.indexOf(name);
    });
    // The first update reads every exposure before any purchase: it lists no one whose first exposure moved (millions would),
    // since none of their purchases was counted yet.
    const first = this.purchasesRead.size === 0 && this.records.size === 0;
    const moved: number[] = [];
    for (const join of joins) for (const ordinal of join.joined) this.absorb(join.counted, ordinal, moved);
    const remap = this.linked.remap.size === 0 ? undefined : this.linked.remap;
    const exposures = segment.exposures;
    for (let i = this.exposuresRead; i < exposures.length; ) {
      // One block at a time: its columns are plain typed arrays in the loop.
      const { base, offsets, times, codes, ordinals } = exposures.blocks[i >>> BLOCK_SHIFT]!;
      const end = Math.min(exposures.length, ((i >>> BLOCK_SHIFT) + 1) * CHUNK_ENTRIES);
      for (let j = i & BLOCK_MASK; i < end; i++, j++) {
        const ts = offsets ? base + offsets[j]! : times![j]!;
        if (ts < from || ts >= to) continue;
        const variant = index[codes[j]!]!;
        if (variant === UNSEEN) continue;
        const ordinal = ordinals[j]!;
        const user = remap === undefined ? ordinal : (remap.get(ordinal) ?? ordinal);
        const seen = variantOf[user]!;
        const next = seen === UNSEEN ? variant : seen === variant ? seen : MULTIPLE;
        const earlier = ts < firstExposure[user]!;
        if (next === seen && !earlier) continue;
        this.touch(user);
        variantOf[user] = next;
        if (earlier) {
          firstExposure[user] = ts;
          if (!first) moved.push(user);
        }
      }
    }
    this.exposuresRead = exposures.length;
    for (const source of sources) {
      const purchases = source.purchases;
      for (let i = this.purchasesRead.get(source) ?? 0; i < purchases.length; ) {
        const block = purchases.blocks[i >>> BLOCK_SHIFT]!;
        const { codes, ordinals, values } = block;
        const end = Math.min(purchases.length, ((i >>> BLOCK_SHIFT) + 1) * CHUNK_ENTRIES);
        for (let j = i & BLOCK_MASK; i < end; i++, j++) {
          const ordinal = ordinals[j]!;
          this.count(source, remap === undefined ? ordinal : (remap.get(ordinal) ?? ordinal), timeAt(block, j), codes[j]!, values![j]!);
        }
      }
      this.purchasesRead.set(source, purchases.length);
    }
    for (const record of records) {
      let list = this.records.get(record.user);
      if (!list) this.records.set(record.user, (list = []));
      list.push(record);
      this.countRecord(record);
    }
    // Users whose first exposure moved earlier: their purchases are counted again from scratch.
    for (const user of moved) {
      this.touch(user);
      firstPurchase[user] = Number.POSITIVE_INFINITY;
      if (hasPurchases(user, sources, this.records, this.linked.members)) this.recount(user, sources);
    }
  }

  /**
   * Counts what the fold knows of `ordinal` (counted on its own until a
   * link joined it) under `user`: variants and first exposure combined,
   * records moved; its revenue and trials are forgotten and `user` goes to
   * `moved`, whose purchases are counted again from scratch, through every
   * ordinal of the user. The answer is the one of a fold that had the link
   * from the start.
   */
  private absorb(user: number, ordinal: number, moved: number[]): void {
    this.touch(user);
    this.touch(ordinal);
    const { variantOf, firstExposure } = this.users;
    const theirs = variantOf[ordinal]!;
    const ours = variantOf[user]!;
    variantOf[user] = theirs === UNSEEN || theirs === ours ? ours : ours === UNSEEN ? theirs : MULTIPLE;
    if (firstExposure[ordinal]! < firstExposure[user]!) firstExposure[user] = firstExposure[ordinal]!;
    variantOf[ordinal] = UNSEEN;
    firstExposure[ordinal] = Number.POSITIVE_INFINITY;
    this.users.firstPurchase[ordinal] = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < this.names.length; slot++) this.revenue.forget(ordinal * CURRENCY_SLOTS + slot);
    this.trialStart.delete(ordinal);
    this.trialConverted.delete(ordinal);
    this.cancelled.delete(ordinal);
    this.revenue.history.delete(ordinal);
    const records = this.records.get(ordinal);
    if (records) {
      this.records.delete(ordinal);
      let list = this.records.get(user);
      if (!list) this.records.set(user, (list = []));
      for (const record of records) list.push({ ...record, user });
    }
    moved.push(user);
  }

  /** Forgets every revenue and trial of `user`, then counts each of their purchases (through each source's per-user chain of each of their ordinals) and records again. */
  private recount(user: number, sources: Segment[]): void {
    const records = this.records.get(user) ?? [];
    this.touch(user);
    this.trialStart.delete(user);
    this.trialConverted.delete(user);
    this.cancelled.delete(user);
    this.revenue.history.delete(user);
    for (const pass of [0, 1]) {
      for (const ordinal of this.linked.members.get(user) ?? [user]) {
        for (const source of sources) {
          const blocks = source.purchases.blocks;
          for (let i = source.lastPurchase?.get(ordinal) ?? -1; i !== -1; i = source.previousPurchase[i]!) {
            const block = blocks[i >>> BLOCK_SHIFT]!;
            const j = i & BLOCK_MASK;
            if (pass === 0) this.forget(source, user, block.codes[j]!);
            else this.count(source, user, timeAt(block, j), block.codes[j]!, block.values![j]!);
          }
        }
      }
      for (const record of records) {
        if (pass === 0) this.revenue.forget(user * CURRENCY_SLOTS + this.slotOf(record.currency));
        else this.countRecord(record);
      }
    }
  }

  private slot(source: Segment, code: number): number {
    return this.slotOf(source.currencies[code]!);
  }

  private slotOf(name: string): number {
    let slot = this.slots.get(name);
    if (slot === undefined) this.slots.set(name, (slot = this.names.push(name) - 1));
    return slot;
  }

  private forget(source: Segment, user: number, code: number): void {
    if (code !== NO_CURRENCY) this.revenue.forget(user * CURRENCY_SLOTS + this.slot(source, code));
  }

  /** Whether something `user` did at `ts` counts for their exposure: in the phase, at or after the first exposure, inside the window. */
  private counts(user: number, ts: number): boolean {
    if (ts < this.query.from || ts >= this.to) return false;
    const exposed = this.users.firstExposure[user]!;
    return this.users.variantOf[user]! !== UNSEEN && ts >= exposed && ts <= exposed + this.window;
  }

  private count(source: Segment, user: number, ts: number, code: number, value: number): void {
    // Events stored before the revenue cap may exceed it: they convert but add no revenue, so every sum stays finite.
    const key = code === NO_CURRENCY || !(value <= MAX_REVENUE) ? undefined : user * CURRENCY_SLOTS + this.slot(source, code);
    if (this.before(user, ts)) {
      this.touch(user);
      this.revenue.earlier(user, key, value);
    }
    if (!this.counts(user, ts)) return;
    this.bought(user, ts);
    if (key !== undefined) this.revenue.paid(key, value, ts);
  }

  /** Whether something `user` did at `ts` is history: before the first exposure of an exposed user (in this phase or before it). */
  private before(user: number, ts: number): boolean {
    return this.users.variantOf[user]! !== UNSEEN && ts < this.users.firstExposure[user]!;
  }

  private countRecord(record: FoldRecord): void {
    const { user, ts, kind } = record;
    if (this.before(user, ts) && kind !== 'trial_started' && kind !== 'cancellation') {
      this.touch(user);
      this.revenue.earlier(user, user * CURRENCY_SLOTS + this.slotOf(record.currency), kind === 'refund' ? -record.revenue : record.revenue);
    }
    if (!this.counts(user, ts)) return;
    if (kind === 'cancellation') {
      if (!(ts <= (this.cancelled.get(user) ?? Number.NEGATIVE_INFINITY))) this.cancelled.set(user, ts);
      return;
    }
    if (kind === 'trial_started') {
      if (!(ts >= (this.trialStart.get(user) ?? Number.POSITIVE_INFINITY))) this.trialStart.set(user, ts);
      return;
    }
    const key = user * CURRENCY_SLOTS + this.slotOf(record.currency);
    if (kind === 'refund') {
      this.revenue.refund(key, record.revenue, ts);
      return;
    }
    // A renewal continues a purchase: the user converted with it (once), or before the exposure (not on this paywall).
    if (kind === 'renewal') {
      this.revenue.paid(key, record.revenue, ts);
      return;
    }
    if (kind === 'trial_converted' && !(ts <= (this.trialConverted.get(user) ?? Number.NEGATIVE_INFINITY))) this.trialConverted.set(user, ts);
    this.bought(user, ts);
    this.revenue.paid(key, record.revenue, ts);
  }

  /** A converting purchase of `user` at `ts`: their first, if none counted was earlier. */
  private bought(user: number, ts: number): void {
    if (!(ts < this.users.firstPurchase[user]!)) return;
    this.touch(user);
    this.users.firstPurchase[user] = ts;
  }

  /** Takes `user` out of the users' tally before the fold changes them (fold-users.ts); a payer's change is a change of the payers' revenue too. */
  private touch(user: number): void {
    if (this.users.touch(user) && this.revenue.users.has(user)) this.revenue.version++;
  }

  /** The counts (fold-result.ts). */
  result(): FoldResult {
    const { query, to, users, trialStart, trialConverted, cancelled } = this;
    const tally = users.counted();
    return foldResult({ query, to, tally, variantOf: users.variantOf, trialStart, trialConverted, cancelled }, (dayEnds) =>
      this.revenue.answer(query, users, this.names, dayEnds),
    );
  }
}
