/**
 * The users dictionary: per project, each distinct `user_id` gets a dense
 * integer ordinal (0, 1, 2, … in order of first appearance), so that sets of
 * users are sets of small integers (OrdinalSet). Ordinals are derived state
 * like everything else: replaying the raw events in `seq` order hands out
 * the same ones again.
 */
export class UserDictionary {
  private readonly projects = new Map<string, Map<string, number>>();
  /** Ordinals handed out since the last checkpoint, to be appended to the stored dictionary. */
  private fresh: [projectId: string, ordinal: number, userId: string][] = [];

  /** The ordinal of a user, handed out on first sight. */
  ordinal(projectId: string, userId: string): number {
    let users = this.projects.get(projectId);
    if (!users) this.projects.set(projectId, (users = new Map()));
    let ordinal = users.get(userId);
    if (ordinal === undefined) {
      ordinal = users.size;
      users.set(userId, ordinal);
      this.fresh.push([projectId, ordinal, userId]);
    }
    return ordinal;
  }

  /** Users of a project: every ordinal is below this. */
  count(projectId: string): number {
    return this.projects.get(projectId)?.size ?? 0;
  }

  /** A stored entry, read back at start (in ordinal order per project). */
  restore(projectId: string, ordinal: number, userId: string): void {
    let users = this.projects.get(projectId);
    if (!users) this.projects.set(projectId, (users = new Map()));
    if (ordinal !== users.size) throw new Error(`the stored users dictionary of project ${projectId} has a gap at ordinal ${users.size}`);
    users.set(userId, ordinal);
  }

  /** Entries handed out since the last call; the checkpoint stores them. */
  takeFresh(): [projectId: string, ordinal: number, userId: string][] {
    const fresh = this.fresh;
    this.fresh = [];
    return fresh;
  }

  /** Puts entries back when their checkpoint failed: the next one stores them. */
  giveBack(entries: [projectId: string, ordinal: number, userId: string][]): void {
    this.fresh = entries.concat(this.fresh);
  }
}
