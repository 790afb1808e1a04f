/**
 * Which dedup keys event_dedup may hold, answered from memory: Bloom filters
 * (key-filter.ts) over every key stored. At start they are filled from
 * event_dedup a page at a time between commits (until then every key is
 * looked up); a rebuild and each checkpoint add the keys they store.
 */
import type { Database } from '../db/database.ts';
import { KeyFilter } from './key-filter.ts';

/**
 * Keys read from event_dedup per step of filling the filter at start: a few
 * milliseconds, so that statistics and commits asked meanwhile wait no
 * longer than that.
 */
const FILTER_PAGE = 2000;

type Key = [projectNo: number, clientTs: number, idHash: number, seq: number];

export class StoredKeys {
  /**
   * Every dedup key stored since the start is in one of them; those stored
   * before, once `complete`. Keys go into the last one; when it holds more
   * than planned, a four times larger one is started (the full ones stay as
   * they are, at about 2 % false positives each): no rescan.
   */
  private filters = [new KeyFilter(0)];
  private complete = false;
  /** Keys added to the last filter. */
  private lastKeys = 0;
  /** Keys in all filters. */
  private total = 0;
  /** Where filling the filter from event_dedup goes on: the last key read. */
  private cursor: Key = [0, Number.MIN_SAFE_INTEGER, -1, 0];
  private readonly page;

  constructor(db: Database) {
    this.page = db
      .prepare<[...Key, number], Key>(
        `SELECT project_no, client_ts, id_hash, seq FROM event_dedup WHERE (project_no, client_ts, id_hash, seq) > (?, ?, ?, ?)
         ORDER BY project_no, client_ts, id_hash, seq LIMIT ?`,
      )
      .raw();
  }

  /**
   * The filter at start, for four times `stored` keys (room to grow), to be
   * filled from event_dedup by `fill`; until then every key is read.
   */
  reset(stored: number): void {
    this.filters = [new KeyFilter(Math.max(1_000_000, 4 * stored))];
    this.lastKeys = 0;
    this.total = 0;
    this.complete = false;
    this.cursor = [0, Number.MIN_SAFE_INTEGER, -1, 0];
  }

  /** Adds keys (parallel columns) just stored. */
  addAll(projectNos: readonly number[], clientTimes: readonly number[], hashes: readonly number[]): void {
    const filter = this.filters.at(-1)!;
    for (let i = 0; i < hashes.length; i++) filter.add(projectNos[i]!, clientTimes[i]!, hashes[i]!);
    this.counted(hashes.length);
  }

  /**
   * Adds one key without counting it (a rebuild's pass); `counted` and
   * `markComplete` follow once the pass is over.
   */
  addUncounted(projectNo: number, clientTs: number, idHash: number): void {
    this.filters.at(-1)!.add(projectNo, clientTs, idHash);
  }

  /** Counts keys added to the last filter; past its capacity the next ones go to a new, larger one. */
  counted(keys: number): void {
    this.lastKeys += keys;
    this.total += keys;
    const last = this.filters.at(-1)!;
    if (this.lastKeys > last.capacity) {
      this.filters.push(new KeyFilter(4 * last.capacity));
      this.lastKeys = 0;
    }
  }

  /** Every stored key is in the filters (a rebuild added them all in its pass). */
  markComplete(): void {
    this.complete = true;
  }

  /** The filter is being filled: the writer calls fill between commits until it answers true. */
  get filling(): boolean {
    return !this.complete;
  }

  /** Keys in the filters. */
  get size(): number {
    return this.total;
  }

  /** Whether a stored event may have this dedup key: false means certainly not, with no read. */
  mayBeStored(projectNo: number, clientTs: number, idHash: number): boolean {
    if (!this.complete) return true;
    for (const filter of this.filters) if (filter.mightContain(projectNo, clientTs, idHash)) return true;
    return false;
  }

  /**
   * Adds the next page of keys stored before this start to the filter; true
   * once all are in (from then on `mayBeStored` answers from memory). Runs
   * in steps between commits, so ingestion does not wait for it.
   */
  fill(): boolean {
    if (this.complete) return true;
    let read = 0;
    let last: Key | undefined;
    // Iterated to its end right here, so the connection is free again before anything else runs.
    const filter = this.filters.at(-1)!;
    for (const row of this.page.iterate(...this.cursor, FILTER_PAGE)) {
      const [projectNo, clientTs, idHash] = row;
      filter.add(projectNo, clientTs, idHash);
      last = row;
      read++;
    }
    this.counted(read);
    if (last) this.cursor = last;
    this.complete = read < FILTER_PAGE;
    return this.complete;
  }
}
