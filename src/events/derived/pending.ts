/**
 * The index entries of the events stored since the last checkpoint: their
 * deduplication keys (also kept in a set, so a retry of an event not yet
 * checkpointed is found in memory) and their time-index entries. The
 * checkpoint writes them in key order and clears them; after a crash they are
 * rebuilt by replaying the events after the checkpoint's `seq`.
 */
export type DedupEntry = [projectId: string, clientTs: number, eventId: string];
export type TimeEntry = [projectId: string, ts: number, seq: number];

export function dedupKey(projectId: string, clientTs: number, eventId: string): string {
  return `${projectId}\0${clientTs}\0${eventId}`;
}

export class PendingIndexes {
  readonly keys = new Set<string>();
  dedup: DedupEntry[] = [];
  time: TimeEntry[] = [];
  /** The seq of the last event counted in memory; the next checkpoint records it. */
  lastSeq = 0;

  get size(): number {
    return this.time.length;
  }

  add(seq: number, projectId: string, ts: number, clientTs: number, eventId: string | null, key: string | undefined): void {
    if (eventId !== null) {
      this.keys.add(key ?? dedupKey(projectId, clientTs, eventId));
      this.dedup.push([projectId, clientTs, eventId]);
    }
    this.time.push([projectId, ts, seq]);
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  clear(): void {
    this.keys.clear();
    this.dedup = [];
    this.time = [];
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Key order of event_dedup, so a checkpoint's inserts walk the index once from left to right. */
export function byDedupKey(a: DedupEntry, b: DedupEntry): number {
  return compareText(a[0], b[0]) || a[1] - b[1] || compareText(a[2], b[2]);
}

/** Key order of event_time_index. */
export function byTimeKey(a: TimeEntry, b: TimeEntry): number {
  return compareText(a[0], b[0]) || a[1] - b[1] || a[2] - b[2];
}
