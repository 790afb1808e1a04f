/**
 * The users of the events joined by the identity links (docs/revenue.md,
 * "One user across ids"), as experiment folds count them.
 */

import type { UserDictionary } from '../../events/derived/users.ts';
import type { ProjectLinks } from './purchase-records.ts';

/** Ordinals counted apart until a link joined them: from now on they count under `counted`. */
export interface Join {
  counted: number;
  joined: number[];
}

/**
 * The users of the events joined by the links: each linked user is counted
 * under one ordinal (the smallest of its ids that the events know), so an
 * exposure as the anonymous id and a purchase as the signed-in user are one
 * user. Links are applied one by one as they arrive, and an id of a link
 * that the events did not know is joined once they see it: each change is
 * a Join that a fold applies to the users it names (experiment-fold.ts).
 */
export class LinkedUsers {
  /** ordinal → the ordinal its user is counted under (only for ordinals that are not their own). */
  readonly remap = new Map<number, number>();
  /** counted ordinal → every ordinal of the user, when there is more than one. */
  readonly members = new Map<number, number[]>();
  /** Links of `links.list` applied so far. */
  private applied = 0;
  /** Users of the project whose ids were checked against `unresolved`. */
  private seen: number;
  /** linked user id → the ordinals of its ids that the events know. */
  private readonly groups = new Map<string, number[]>();
  /** id the events have not seen → the linked users it belongs to. */
  private readonly unresolved = new Map<string, string[]>();

  constructor(
    private readonly projectId: string,
    private readonly users: UserDictionary,
    private readonly links: ProjectLinks,
  ) {
    this.seen = users.count(projectId);
  }

  /** Applies the links read since the last call and the ids of links the events have seen since; `linked` says whether any was. */
  update(): { joins: Join[]; linked: boolean } {
    const joins: Join[] = [];
    const applied = this.applied;
    const count = this.users.count(this.projectId);
    if (this.unresolved.size > 0) {
      for (let ordinal = this.seen; ordinal < count; ordinal++) {
        const id = this.users.userId(this.projectId, ordinal);
        const owners = this.unresolved.get(id);
        if (owners === undefined) continue;
        this.unresolved.delete(id);
        for (const user of owners) this.join(user, [id], joins);
      }
    }
    this.seen = count;
    const { list } = this.links;
    for (; this.applied < list.length; this.applied++) {
      const [anonymous, user] = list[this.applied]!;
      this.join(user, [anonymous, user], joins);
    }
    return { joins, linked: this.applied > applied || joins.length > 0 };
  }

  /** Adds the ids to the user's group; when the group then counts ordinals that were counted apart, records the join. */
  private join(user: string, ids: string[], joins: Join[]): void {
    let group = this.groups.get(user);
    for (const id of ids) {
      const ordinal = this.users.lookup(this.projectId, id);
      if (ordinal === -1) {
        const owners = this.unresolved.get(id);
        if (owners === undefined) this.unresolved.set(id, [user]);
        else if (!owners.includes(user)) owners.push(user);
      } else if (!group?.includes(ordinal)) {
        if (!group) this.groups.set(user, (group = []));
        group.push(ordinal);
      }
    }
    if (!group || group.length < 2) return;
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

  /** The ordinal a record's user id is counted under; -1 when the events never saw the user. */
  ordinalOf(userId: string): number {
    const user = this.links.map.get(userId) ?? userId;
    const group = this.groups.get(user);
    if (group !== undefined) return this.remap.get(group[0]!) ?? group[0]!;
    return this.users.lookup(this.projectId, user);
  }
}

/**
 * A project's LinkedUsers, shared by its folds, and the joins its links made
 * that some fold has not applied yet: a fold made later starts from the
 * current join, so only the first fold of a project pays for reading its
 * links.
 */
export class ProjectJoins {
  readonly linked: LinkedUsers;
  private readonly joins: Join[] = [];
  /** Joins forgotten from the front of `joins`: every fold had applied them. */
  private dropped = 0;
  /** Bumped when links were applied: records waiting for their user may find one. */
  changes = 0;

  constructor(projectId: string, users: UserDictionary, links: ProjectLinks) {
    this.linked = new LinkedUsers(projectId, users, links);
    this.linked.update();
  }

  /** Applies what the links and the events added since the last call. */
  update(): void {
    const { joins, linked } = this.linked.update();
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
