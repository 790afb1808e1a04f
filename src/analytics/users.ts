/**
 * The users dictionary: per project, each distinct `user_id` gets a dense
 * integer ordinal (0, 1, 2, … in order of first appearance), so that sets of
 * users are sets of small integers (OrdinalSet). Ordinals are derived state
 * like everything else: replaying the raw events in `seq` order hands out
 * the same ones again.
 *
 * A million users is the scale this is built for, so it holds no object per
 * user: the ids are UTF-8 bytes end to end in one buffer, an ordinal's bytes
 * start at offsets[ordinal], and an open-addressing hash table of ordinals
 * finds an id. About 30 bytes per user of 11 characters, where a Map of
 * strings took about 60 (and one heap object each for the collector to
 * trace). Ids are compared as UTF-8, as the databases store them. An id
 * with a lone surrogate would not be the same user live and after a rebuild
 * (better-sqlite3 and PostgreSQL store U+FFFD in its place, one or three of
 * them depending on the path, where the encoder here keeps one): the edge
 * refuses such ids, and NUL, before they get here (src/shared/text.ts).
 */

/** Starting sizes: a project with a few users costs a few kilobytes. */
const FIRST_BYTES = 4096;
const FIRST_USERS = 256;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The UTF-8 bytes of the id being looked up (grown when an id needs more). */
let scratch = new Uint8Array(1024);

/** Writes `text` as UTF-8 into `scratch`; returns its length in bytes. */
function encode(text: string): number {
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  // Ids are nearly always ASCII: copied here without a call into the encoder.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(text, scratch).written;
    scratch[i] = c;
  }
  return text.length;
}

/** FNV-1a over the first `length` bytes of `scratch`. */
function hash(length: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < length; i++) h = Math.imul(h ^ scratch[i]!, 0x01000193);
  return h >>> 0;
}

/** A larger copy of `array` (by half again: growth is paid in copies, not in idle capacity). */
function grown<T extends Uint8Array | Uint32Array>(array: T, needed: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(needed, Math.ceil(array.length * 1.5)));
  bigger.set(array);
  return bigger;
}

/** One project's users. */
class ProjectUsers {
  size = 0;
  /** Ordinals below this are in the stored dictionary (event_users). */
  stored = 0;
  private bytes = new Uint8Array(FIRST_BYTES);
  /** Ordinal n's id is bytes[offsets[n], offsets[n + 1]). */
  private offsets = new Uint32Array(FIRST_USERS + 1);
  /** Open addressing with linear probing: ordinal + 1 in each used slot, 0 in a free one; at most half full. */
  private slots = new Int32Array(2 * FIRST_USERS);
  /** Where the last unsuccessful find() stopped: the slot a new id goes to. */
  private freeSlot = 0;

  /** The ordinal of the id in `scratch`, or -1; `slot` is left where it is or would go. */
  private find(length: number, h: number): number {
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) {
        this.freeSlot = slot;
        return -1;
      }
      const ordinal = entry - 1;
      const start = this.offsets[ordinal]!;
      if (this.offsets[ordinal + 1]! - start !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (this.bytes[start + i] !== scratch[i]) {
          same = false;
          break;
        }
      }
      if (same) return ordinal;
    }
  }

  /** The ordinal of `userId`, added as the next one when missing. */
  ordinal(userId: string): number {
    const length = encode(userId);
    const h = hash(length);
    const found = this.find(length, h);
    if (found !== -1) return found;
    return this.append(length);
  }

  /** The ordinal of `userId`, or -1 when it has none. */
  lookup(userId: string): number {
    const length = encode(userId);
    return this.find(length, hash(length));
  }

  /** Adds the id in `scratch` as ordinal `size`; `freeSlot` is where find() stopped. */
  private append(length: number): number {
    const ordinal = this.size++;
    if (this.offsets.length < this.size + 1) this.offsets = grown(this.offsets, this.size + 1);
    const start = this.offsets[ordinal]!;
    if (this.bytes.length < start + length) this.bytes = grown(this.bytes, start + length);
    this.bytes.set(scratch.subarray(0, length), start);
    this.offsets[ordinal + 1] = start + length;
    if (2 * this.size > this.slots.length) this.rehash();
    else this.slots[this.freeSlot] = ordinal + 1;
    return ordinal;
  }

  /** Doubles the table and puts every ordinal back (hashing its bytes again: nothing per user is kept for it). */
  private rehash(): void {
    const slots = new Int32Array(2 * this.slots.length);
    const mask = slots.length - 1;
    for (let ordinal = 0; ordinal < this.size; ordinal++) {
      const start = this.offsets[ordinal]!;
      const end = this.offsets[ordinal + 1]!;
      let h = 0x811c9dc5;
      for (let i = start; i < end; i++) h = Math.imul(h ^ this.bytes[i]!, 0x01000193);
      let slot = h & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = ordinal + 1;
    }
    this.slots = slots;
  }

  /** A stored entry read back at start: ordinals arrive in order, each id once. */
  restore(ordinal: number, userId: string): boolean {
    if (ordinal !== this.size) return false;
    const length = encode(userId);
    const h = hash(length);
    if (this.find(length, h) !== -1) return false;
    this.append(length);
    this.stored = this.size;
    return true;
  }

  userId(ordinal: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[ordinal]!, this.offsets[ordinal + 1]!));
  }
}

/** A project's ordinals from … to − 1, not yet in the stored dictionary. */
interface FreshUsers {
  projectId: string;
  from: number;
  to: number;
}

export class UserDictionary {
  private readonly projects = new Map<string, ProjectUsers>();

  private project(projectId: string): ProjectUsers {
    let users = this.projects.get(projectId);
    if (!users) this.projects.set(projectId, (users = new ProjectUsers()));
    return users;
  }

  /** The ordinal of a user, handed out on first sight. */
  ordinal(projectId: string, userId: string): number {
    return this.project(projectId).ordinal(userId);
  }

  /** The ordinal of a user, or -1 when the project has never seen them. */
  lookup(projectId: string, userId: string): number {
    return this.projects.get(projectId)?.lookup(userId) ?? -1;
  }

  /** The id of an ordinal the project has handed out. */
  userId(projectId: string, ordinal: number): string {
    return this.projects.get(projectId)!.userId(ordinal);
  }

  /** Users of a project: every ordinal is below this. */
  count(projectId: string): number {
    return this.projects.get(projectId)?.size ?? 0;
  }

  /** Every entry, in ordinal order per project: what a snapshot of the whole state holds. */
  *all(): IterableIterator<[projectId: string, ordinal: number, userId: string]> {
    for (const [projectId, users] of this.projects) {
      for (let ordinal = 0; ordinal < users.size; ordinal++) yield [projectId, ordinal, users.userId(ordinal)];
    }
  }

  /** A stored entry, read back at start (in ordinal order per project). */
  restore(projectId: string, ordinal: number, userId: string): void {
    const users = this.project(projectId);
    if (!users.restore(ordinal, userId)) {
      throw new Error(`the stored users dictionary of project ${projectId} has a gap or a repeated user at ordinal ${users.size}`);
    }
  }

  /**
   * The ordinals handed out since the last call, per project, as ranges
   * [from, to) (no entry per user: at millions of users the checkpoint
   * after a rebuild reads them a page at a time with `ids`).
   */
  takeFresh(): FreshUsers[] {
    const fresh: FreshUsers[] = [];
    for (const [projectId, users] of this.projects) {
      if (users.stored < users.size) fresh.push({ projectId, from: users.stored, to: users.size });
      users.stored = users.size;
    }
    return fresh;
  }

  /** Puts ranges back when their checkpoint failed: the next one stores them. */
  giveBack(fresh: readonly FreshUsers[]): void {
    for (const { projectId, from } of fresh) {
      const users = this.project(projectId);
      if (from < users.stored) users.stored = from;
    }
  }

  /** The ids of ordinals from … to − 1 of a project. */
  ids(projectId: string, from: number, to: number): string[] {
    const users = this.project(projectId);
    const ids: string[] = [];
    for (let ordinal = from; ordinal < to; ordinal++) ids.push(users.userId(ordinal));
    return ids;
  }
}
