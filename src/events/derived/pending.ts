/**
 * What the events stored since the last checkpoint add to the dedup index:
 * their exact keys in a set (a retry of an event not yet checkpointed is
 * found in memory) and their keys as event_dedup holds them (project number,
 * client time, id hash), for the key filter once the checkpoint has written
 * them. The checkpoint itself reads the index entries back from the events
 * (by seq range) and clears this; after a crash it is rebuilt by replaying
 * the events after the checkpoint's `seq`.
 */
export function dedupKey(projectId: string, clientTs: number, eventId: string): string {
  return `${projectId}\0${clientTs}\0${eventId}`;
}

export class PendingIndexes {
  readonly keys = new Set<string>();
  /** project_no, client_ts, id_hash of each key, flat. */
  storedKeys: number[] = [];
  /** Events counted since the last checkpoint. */
  size = 0;
  /** The seq of the last event counted in memory; the next checkpoint records it. */
  lastSeq = 0;

  add(seq: number, key: string | undefined, projectNo: number, clientTs: number, idHash: number | undefined): void {
    if (key !== undefined) {
      this.keys.add(key);
      this.storedKeys.push(projectNo, clientTs, idHash!);
    }
    this.size++;
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  clear(): void {
    this.keys.clear();
    this.storedKeys = [];
    this.size = 0;
  }
}
