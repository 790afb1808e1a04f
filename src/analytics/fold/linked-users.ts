/**
 * The users of the events joined by the identity links (docs/guide/revenue.md,
 * "One user across ids"), as experiment folds count them.
 */

import type { UserDictionary } from '../users.ts';
import type { ProjectLinks } from './purchase-records.ts';

/** Ordinals counted apart until a link joined them: from now on they count under `counted`. */
export interface Join {
  counted: number;
  joined: number[];
}

/**
 * The users of the events joined by the links, one step: an id linked as an
 * anonymous id counts as the user it was linked to, any other id as itself
 * (a link is never followed further). The ids that count as one user are
 * its group, counted under one ordinal (the smallest of those the events
 * know), so an exposure as the anonymous id and a purchase as the
 * signed-in user are one user.
 *
 * The groups are the same whether the links are applied one by one as they
 * arrive or all at once (a restart): a link only moves its anonymous id,
 * alone until then, into its user's group, and an id the events did not
 * know joins its group once they see it; each such change is a Join that a
 * fold applies to the users it names (experiment-fold.ts). The one link
 * that would split a group, of an anonymous id that other ids already count
 * as (`b` once `a → b` is linked, then `b → c`), makes `update` answer `reset`:
 * the groups are built again from every link, and a fold starts over, as it
 * cannot take apart what it counted together.
 */
export class LinkedUsers {
  /** ordinal → the ordinal its user is counted under (only for ordinals that are not their own). */
  readonly remap = new Map<number, number>();
  /** counted ordinal → every ordinal of the user, when there is more than one. */
  readonly members = new Map<number, number[]>();
  /** Links of `links.list` applied so far. */
  private applied = 0;
  /** Users of the project whose ids were checked against `unseen`. */
  private seen = 0;
  /** anonymous id → the user it counts as, for the links applied. */
  private readonly userOf = new Map<string, string>();
  /** The id a group counts as → the ordinals of its ids that the events know. */
  private readonly groups = new Map<string, number[]>();
  /** Ids of the links applied that the events have not seen. */
  private readonly unseen = new Set<string>();
  /** Ids some applied link names as its user: other ids count as them. */
  private readonly named = new Set<string>();

  constructor(
    private readonly projectId: string,
    private readonly users: UserDictionary,
    private readonly links: ProjectLinks,
  ) {
    this.build();
  }

  /**
   * Applies the links read since the last call and the ids of links the
   * events have seen since; `linked` says whether any was, `reset` that the
   * groups were built again (every fold must start over).
   */
  update(): { joins: Join[]; linked: boolean; reset: boolean } {
    const joins: Join[] = [];
    const applied = this.applied;
    this.placeNewUsers(joins);
    const { list } = this.links;
    for (; this.applied < list.length; this.applied++) {
      const [anonymous, user] = list[this.applied]!;
      if (this.userOf.has(anonymous)) continue;
      // Other ids count as this one (their records too, seen by the events or not): it cannot leave them.
      if (this.named.has(anonymous)) {
        this.build();
        return { joins: [], linked: true, reset: true };
      }
      // Alone in its group until now: it leaves it for its user's.
      this.groups.delete(anonymous);
      this.userOf.set(anonymous, user);
      this.named.add(user);
      this.place(anonymous, this.users.lookup(this.projectId, anonymous), joins);
      this.place(user, this.users.lookup(this.projectId, user), joins);
    }
    return { joins, linked: this.applied > applied || joins.length > 0, reset: false };
  }

  /** The ordinal a record's user id is counted under; -1 when the events never saw the user. */
  ordinalOf(userId: string): number {
    const group = this.groups.get(this.userOf.get(userId) ?? userId);
    if (group !== undefined) return this.remap.get(group[0]!) ?? group[0]!;
    return this.users.lookup(this.projectId, userId);
  }

  /** The groups from every link read, at once: each id of a link goes to the group of what it counts as. */
  private build(): void {
    this.remap.clear();
    this.members.clear();
    this.userOf.clear();
    this.groups.clear();
    this.unseen.clear();
    this.named.clear();
    this.seen = this.users.count(this.projectId);
    const { list } = this.links;
    for (const [anonymous, user] of list) {
      if (this.userOf.has(anonymous)) continue;
      this.userOf.set(anonymous, user);
      this.named.add(user);
    }
    const joins: Join[] = [];
    for (const [anonymous, user] of list) {
      this.place(anonymous, this.users.lookup(this.projectId, anonymous), joins);
      this.place(user, this.users.lookup(this.projectId, user), joins);
    }
    this.applied = list.length;
  }

  /** Puts an id of a link in the group of what it counts as, unless it is there already (or waits for the events to see it). */
  private place(id: string, ordinal: number, joins: Join[]): void {
    if (ordinal === -1) {
      this.unseen.add(id);
      return;
    }
    const key = this.userOf.get(id) ?? id;
    let group = this.groups.get(key);
    if (group?.includes(ordinal)) return;
    if (!group) this.groups.set(key, (group = []));
    group.push(ordinal);
    if (group.length > 1) this.joined(group, joins);
  }

  /** The ids of links that the events saw since the last call, each put in its group. */
  private placeNewUsers(joins: Join[]): void {
    const count = this.users.count(this.projectId);
    if (this.unseen.size > 0) {
      for (let ordinal = this.seen; ordinal < count; ordinal++) {
        const id = this.users.userId(this.projectId, ordinal);
        if (this.unseen.delete(id)) this.place(id, ordinal, joins);
      }
    }
    this.seen = count;
  }

  /** A group grew: its ordinals count under the smallest; what was counted under another is recorded as a join. */
  private joined(group: number[], joins: Join[]): void {
    let counted = group[0]!;
    for (const ordinal of group) if (ordinal < counted) counted = ordinal;
    // What each member was counted under until now, other than `counted`: a fold moves what it knows of those.
    const joined: number[] = [];
    for (const ordinal of group) {
      const before = this.remap.get(ordinal) ?? ordinal;
      if (before !== counted && !joined.includes(before)) joined.push(before);
      if (ordinal === counted) this.remap.delete(ordinal);
      else this.remap.set(ordinal, counted);
    }
    for (const ordinal of joined) this.members.delete(ordinal);
    this.members.set(counted, group);
    if (joined.length > 0) joins.push({ counted, joined });
  }
}

/**
 * A project's LinkedUsers, shared by its folds, and the joins its links made
 * that some fold has not applied yet: a fold made later starts from the
 * current join, so only the first fold of a project pays for reading its
 * links. `epoch` moves when the groups were built again: a fold of an
 * earlier epoch starts over.
 */
export class ProjectJoins {
  readonly linked: LinkedUsers;
  private readonly joins: Join[] = [];
  /** Joins forgotten from the front of `joins`: every fold had applied them. */
  private dropped = 0;
  /** Bumped when links were applied: records waiting for their user may find one. */
  changes = 0;
  epoch = 0;

  constructor(projectId: string, users: UserDictionary, links: ProjectLinks) {
    this.linked = new LinkedUsers(projectId, users, links);
  }

  /** Applies what the links and the events added since the last call. */
  update(): void {
    const { joins, linked, reset } = this.linked.update();
    if (reset) {
      this.forget(this.end);
      this.epoch++;
    }
    for (const join of joins) this.joins.push(join);
    if (linked) this.changes++;
  }

  /** The position after the newest join. */
  get end(): number {
    return this.dropped + this.joins.length;
  }

  /** The joins from `position` on. */
  since(position: number): Join[] {
    return this.joins.slice(position - this.dropped);
  }

  /** Forgets the joins before `position`. */
  forget(position: number): void {
    if (position <= this.dropped) return;
    this.joins.splice(0, position - this.dropped);
    this.dropped = position;
  }
}
