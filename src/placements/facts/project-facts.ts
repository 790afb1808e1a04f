/**
 * What one project's purchase records say of each user, as the purchases.*
 * audience attributes (docs/guide/placements.md, "What the server knows about a
 * user"), folded as records and identify links arrive and read on the
 * resolve path without SQL.
 *
 * Per user (an ordinal of user-table.ts): the first paid purchase (seconds),
 * the number of paid purchases and renewals, whether a trial ever started,
 * the products bought (a bit per product for the project's first 32), and
 * one subscription: its key (a hash of the original transaction id, else of
 * the product), the time of its latest record and whether that record
 * ended it (an expiration or a refund) and whether it ever had a paid
 * period. The rare user with more (a second subscription, a 33rd product)
 * keeps the rest in a flat array of numbers each (an object per
 * subscription would cost several times as much).
 *
 * Every step is commutative: a subscription's state is its latest record's
 * (an end winning a tie), counts add, first times take the minimum, flags
 * and products the union. So records folded in any order, and a link that
 * joins two users' facts after both had records, give what a fold of every
 * record under the joined user would. A link makes the anonymous id's user
 * (and everything linked to it) count as the user it names, links followed
 * to the end.
 */
import { grown, textHash, UserTable } from './user-table.ts';

const HAD_TRIAL = 1;
/** The inline subscription is set. */
const SUB = 2;
const ENDED = 4;
const PAID = 8;
const MAX_COUNT = 0xffff;
const DAY_MS = 86_400_000;
/** Products kept as bits of the inline column; later ones in the products beyond. */
const INLINE_PRODUCTS = 32;

/** Paid purchases and renewals: what `count`, `first_purchase_days` and `products` count. */
const PAID_TYPES: ReadonlySet<string> = new Set(['initial_purchase', 'renewal', 'trial_converted', 'non_renewing_purchase']);
/** Records that start or continue a subscription period, and whether it is a paid one. */
const PERIODS: ReadonlyMap<string, boolean> = new Map([
  ['initial_purchase', true],
  ['trial_started', false],
  ['trial_converted', true],
  ['renewal', true],
  ['product_change', false],
]);
/** Records that end a subscription's period. */
const ENDS: ReadonlySet<string> = new Set(['expiration', 'refund']);

interface Subscription {
  key: number;
  /** Seconds: the latest record's time. */
  ts: number;
  ended: boolean;
  paid: boolean;
}

/** A subscription beyond the inline one takes three numbers: its key, its time, its state (ENDED | PAID). */
const SUBSCRIPTION_NUMBERS = 3;

/** A record as the facts read it. */
interface FactRecord {
  userId: string;
  type: string;
  ts: number;
  /** The catalog product, else the store's product id; null when neither is known. */
  product: string | null;
  /** What ties the records of one subscription: its original transaction id, else its product. */
  subscription: string | null;
}

export interface PurchaseFacts {
  is_subscriber: boolean;
  had_trial: boolean;
  lapsed_days: number | null;
  count: number;
  products: string[];
  first_purchase_days: number | null;
}

/** The facts of a user no record names. */
export const NO_FACTS: Readonly<PurchaseFacts> = Object.freeze({
  is_subscriber: false,
  had_trial: false,
  lapsed_days: null,
  count: 0,
  products: Object.freeze([]) as unknown as string[],
  first_purchase_days: null,
});

/** Whether (ts, ended) is later than the state held: a later time, or an end at the same second. */
function later(ts: number, ended: boolean, heldTs: number, heldEnded: boolean): boolean {
  return ts > heldTs || (ts === heldTs && ended && !heldEnded);
}

export class ProjectFacts {
  private readonly users = new UserTable((capacity) => this.grow(capacity));
  /** The ordinal whose facts hold this one's (a link), or -1. */
  private parent = new Int32Array(0);
  private firstPaid = new Uint32Array(0);
  private count = new Uint16Array(0);
  private flags = new Uint8Array(0);
  private subKey = new Uint32Array(0);
  private subTs = new Uint32Array(0);
  private products = new Uint32Array(0);
  /** user → the subscriptions beyond the inline one, flat (SUBSCRIPTION_NUMBERS each). */
  private readonly moreSubscriptions = new Map<number, number[]>();
  /** user → the indexes of the products beyond the inline bits. */
  private readonly moreProducts = new Map<number, number[]>();
  private readonly productIndex = new Map<string, number>();
  private readonly productNames: string[] = [];

  private grow(capacity: number): void {
    this.parent = grown(this.parent, capacity, -1);
    this.firstPaid = grown(this.firstPaid, capacity);
    this.count = grown(this.count, capacity);
    this.flags = grown(this.flags, capacity);
    this.subKey = grown(this.subKey, capacity);
    this.subTs = grown(this.subTs, capacity);
    this.products = grown(this.products, capacity);
  }

  private root(ordinal: number): number {
    let at = ordinal;
    while (this.parent[at] !== -1) at = this.parent[at]!;
    return at;
  }

  private addProduct(user: number, index: number): void {
    if (index < INLINE_PRODUCTS) this.products[user]! |= 1 << index;
    else {
      const more = this.moreProducts.get(user);
      if (!more) this.moreProducts.set(user, [index]);
      else if (!more.includes(index)) more.push(index);
    }
  }

  /** Applies one state of a subscription (a record, or another user's state being joined). */
  private period(user: number, key: number, ts: number, ended: boolean, paid: boolean): void {
    const { flags, subKey, subTs } = this;
    const held = flags[user]!;
    if (held & SUB && subKey[user] === key) {
      if (later(ts, ended, subTs[user]!, (held & ENDED) !== 0)) {
        subTs[user] = ts;
        flags[user] = ended ? held | ENDED : held & ~ENDED;
      }
      if (paid) flags[user]! |= PAID;
      return;
    }
    const more = this.moreSubscriptions.get(user);
    let at = -1;
    if (more) for (let i = 0; i < more.length && at === -1; i += SUBSCRIPTION_NUMBERS) if (more[i] === key) at = i;
    if (at !== -1) {
      const state = more![at + 2]!;
      if (later(ts, ended, more![at + 1]!, (state & ENDED) !== 0)) [more![at + 1], more![at + 2]] = [ts, ended ? state | ENDED : state & ~ENDED];
      if (paid) more![at + 2]! |= PAID;
    } else if (!(held & SUB)) {
      subKey[user] = key;
      subTs[user] = ts;
      flags[user] = held | SUB | (ended ? ENDED : 0) | (paid ? PAID : 0);
    } else {
      const added = [key, ts, (ended ? ENDED : 0) | (paid ? PAID : 0)];
      if (more) more.push(...added);
      else this.moreSubscriptions.set(user, added);
    }
  }

  /** Counts one record under the user its id counts as. */
  fold(record: FactRecord): void {
    const user = this.root(this.users.ordinal(record.userId));
    const seconds = Math.max(1, Math.floor(record.ts / 1000));
    const { type } = record;
    let productIndex = -1;
    if (record.product !== null) {
      productIndex = this.productIndex.get(record.product) ?? -1;
      if (productIndex === -1) this.productIndex.set(record.product, (productIndex = this.productNames.push(record.product) - 1));
    }
    if (PAID_TYPES.has(type)) {
      this.count[user] = Math.min(MAX_COUNT, this.count[user]! + 1);
      if (this.firstPaid[user] === 0 || seconds < this.firstPaid[user]!) this.firstPaid[user] = seconds;
    }
    if ((PAID_TYPES.has(type) || type === 'product_change') && productIndex !== -1) this.addProduct(user, productIndex);
    if (type === 'trial_started' || type === 'trial_converted') this.flags[user]! |= HAD_TRIAL;
    if (record.subscription === null) return;
    const paid = PERIODS.get(type);
    if (paid !== undefined) this.period(user, textHash(record.subscription), seconds, false, paid);
    else if (ENDS.has(type)) this.period(user, textHash(record.subscription), seconds, true, false);
  }

  /** `anonymousId` counts as `userId` from now on: what its user knew joins the user `userId` counts as. */
  link(anonymousId: string, userId: string): void {
    const from = this.root(this.users.ordinal(anonymousId));
    const to = this.root(this.users.ordinal(userId));
    // Already one user (a link again, or one that would close a loop).
    if (from === to) return;
    const { count, firstPaid, flags, products } = this;
    count[to] = Math.min(MAX_COUNT, count[to]! + count[from]!);
    if (firstPaid[from] !== 0 && (firstPaid[to] === 0 || firstPaid[from]! < firstPaid[to]!)) firstPaid[to] = firstPaid[from]!;
    flags[to]! |= flags[from]! & HAD_TRIAL;
    products[to]! |= products[from]!;
    const held = flags[from]!;
    if (held & SUB) this.period(to, this.subKey[from]!, this.subTs[from]!, (held & ENDED) !== 0, (held & PAID) !== 0);
    const more = this.moreSubscriptions.get(from) ?? [];
    for (let i = 0; i < more.length; i += SUBSCRIPTION_NUMBERS)
      this.period(to, more[i]!, more[i + 1]!, (more[i + 2]! & ENDED) !== 0, (more[i + 2]! & PAID) !== 0);
    for (const index of this.moreProducts.get(from) ?? []) this.addProduct(to, index);
    this.moreSubscriptions.delete(from);
    this.moreProducts.delete(from);
    count[from] = 0;
    firstPaid[from] = 0;
    flags[from] = 0;
    products[from] = 0;
    this.parent[from] = to;
  }

  /** The facts of the user `userId` counts as, at `now` (ms). */
  factsOf(userId: string, now: number): PurchaseFacts {
    const ordinal = this.users.lookup(userId);
    if (ordinal === -1) return NO_FACTS;
    const user = this.root(ordinal);
    const held = this.flags[user]!;
    const subscriptions: Subscription[] = held & SUB ? [{ key: 0, ts: this.subTs[user]!, ended: (held & ENDED) !== 0, paid: (held & PAID) !== 0 }] : [];
    const more = this.moreSubscriptions.get(user) ?? [];
    for (let i = 0; i < more.length; i += SUBSCRIPTION_NUMBERS) {
      subscriptions.push({ key: more[i]!, ts: more[i + 1]!, ended: (more[i + 2]! & ENDED) !== 0, paid: (more[i + 2]! & PAID) !== 0 });
    }
    let active = false;
    let lastPaidEnd = 0;
    for (const s of subscriptions) {
      if (!s.ended) active = true;
      else if (s.paid && s.ts > lastPaidEnd) lastPaidEnd = s.ts;
    }
    const days = (seconds: number) => Math.max(0, Math.floor((now - seconds * 1000) / DAY_MS));
    const names: string[] = [];
    const bits = this.products[user]!;
    for (let i = 0; i < INLINE_PRODUCTS && i < this.productNames.length; i++) if (bits & (1 << i)) names.push(this.productNames[i]!);
    for (const index of this.moreProducts.get(user) ?? []) names.push(this.productNames[index]!);
    return {
      is_subscriber: active,
      had_trial: (held & HAD_TRIAL) !== 0,
      lapsed_days: active || lastPaidEnd === 0 ? null : days(lastPaidEnd),
      count: this.count[user]!,
      products: names.sort(),
      first_purchase_days: this.firstPaid[user] === 0 ? null : days(this.firstPaid[user]!),
    };
  }

  /** Ids known (with records or links). */
  get size(): number {
    return this.users.size;
  }
}
