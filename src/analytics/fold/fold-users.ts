/**
 * The per-user state of a phase fold (experiment-fold.ts), one number per
 * user of the project in each array, and the tally of the counts it makes
 * (user-tally.ts), kept in step: the fold touches a user before it changes
 * their variant, first exposure, first purchase or history, which takes
 * them out of the tally until the next answer counts them again.
 */
import { UserTally } from './user-tally.ts';

/** A user's variant before any exposure. */
export const UNSEEN = -1;

function grown<T extends Int32Array | Float64Array>(array: T, size: number, fill: number): T {
  if (array.length >= size) return array;
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(size, 2 * array.length));
  bigger.fill(fill);
  bigger.set(array);
  return bigger;
}

export class FoldUsers {
  /** Every ordinal is below it. */
  count = 0;
  /** Per user: the variant index (UNSEEN, or MULTIPLE for several), the first exposure and the first converting purchase (infinite: none). */
  variantOf = new Int32Array(0);
  firstExposure = new Float64Array(0);
  firstPurchase = new Float64Array(0);
  /** The counts, from the first answer on; until then no user is counted. */
  private tally: UserTally | undefined;
  /** Users taken out of the tally since the last answer, to be counted again as they are then. */
  private readonly touched = new Set<number>();

  /** `history`: the users with a purchase before their first exposure. */
  constructor(
    private readonly variants: number,
    private readonly from: number,
    private readonly history: ReadonlySet<number>,
  ) {}

  /** Room for `users` users. */
  grow(users: number): void {
    if (users <= this.count) return;
    this.variantOf = grown(this.variantOf, users, UNSEEN);
    this.firstExposure = grown(this.firstExposure, users, Number.POSITIVE_INFINITY);
    this.firstPurchase = grown(this.firstPurchase, users, Number.POSITIVE_INFINITY);
    this.count = users;
  }

  /** Takes `user` out of the tally before their state changes; whether they were in it (and so a change could matter to an answer given). */
  touch(user: number): boolean {
    if (this.tally === undefined || this.touched.has(user)) return false;
    this.touched.add(user);
    this.tallied(user, -1);
    return true;
  }

  /** The tally as the users are now: the first answer counts every user, the next ones those touched since. */
  counted(): UserTally {
    if (this.tally === undefined) {
      this.tally = new UserTally(this.variants, this.from);
      for (let user = 0; user < this.count; user++) this.tallied(user, 1);
    } else for (const user of this.touched) this.tallied(user, 1);
    this.touched.clear();
    return this.tally;
  }

  private tallied(user: number, sign: number): void {
    // Most folds have no user with history: then a million exposed users cost no lookup.
    const known = this.history.size > 0 && this.history.has(user);
    this.tally!.count(this.variantOf[user]!, this.firstExposure[user]!, this.firstPurchase[user]!, known, sign);
  }
}
