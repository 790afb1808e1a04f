/**
 * What the events stored since the last checkpoint add to the dedup index:
 * their keys, so that a retry of an event not yet checkpointed is found in
 * memory, and so that the key filter learns them once the checkpoint has
 * written them. The checkpoint itself reads the index entries back from the
 * events (by seq range) and clears this; after a crash it is rebuilt by
 * replaying the events after the checkpoint's `seq`.
 */

/**
 * An exact set of dedup keys (project number, client time, event id),
 * indexed by the id's hash: numbers in a Map and in arrays instead of a
 * string per key built and hashed for a Set (a third of the cost per event).
 * Keys added after a mark can be taken back, for a transaction that rolled
 * back.
 */
export class PendingKeys {
  /** Per id hash, the index of the newest key with it. */
  private readonly newest = new Map<number, number>();
  /** Per key, the index of the previous key with the same id hash, or -1. */
  private previous: number[] = [];
  projectNos: number[] = [];
  clientTimes: number[] = [];
  hashes: number[] = [];
  private ids: string[] = [];

  get length(): number {
    return this.ids.length;
  }

  has(projectNo: number, clientTs: number, idHash: number, eventId: string): boolean {
    for (let i = this.newest.get(idHash) ?? -1; i >= 0; i = this.previous[i]!) {
      if (this.clientTimes[i] === clientTs && this.projectNos[i] === projectNo && this.ids[i] === eventId) return true;
    }
    return false;
  }

  add(projectNo: number, clientTs: number, idHash: number, eventId: string): void {
    this.previous.push(this.newest.get(idHash) ?? -1);
    this.newest.set(idHash, this.ids.length);
    this.projectNos.push(projectNo);
    this.clientTimes.push(clientTs);
    this.hashes.push(idHash);
    this.ids.push(eventId);
  }

  /** Takes back every key added since `length` was `mark`, newest first. */
  truncate(mark: number): void {
    for (let i = this.ids.length - 1; i >= mark; i--) {
      const previous = this.previous[i]!;
      if (previous < 0) this.newest.delete(this.hashes[i]!);
      else this.newest.set(this.hashes[i]!, previous);
    }
    for (const list of [this.previous, this.projectNos, this.clientTimes, this.hashes, this.ids]) list.length = mark;
  }

  clear(): void {
    this.newest.clear();
    this.previous = [];
    this.projectNos = [];
    this.clientTimes = [];
    this.hashes = [];
    this.ids = [];
  }
}

export class PendingIndexes {
  readonly keys = new PendingKeys();
  /** Events counted since the last checkpoint. */
  size = 0;
  /** The seq of the last event counted in memory; the next checkpoint records it. */
  lastSeq = 0;

  /** Counts a stored event (its key, if it has an id, went into `keys` when it was stored). */
  add(seq: number): void {
    this.size++;
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  clear(): void {
    this.keys.clear();
    this.size = 0;
  }
}
