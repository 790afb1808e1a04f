/**
 * The purchase records as experiment results read them
 * (src/analytics/fold/purchase-records.ts): per project, every record read
 * so far in order of storage, to which `refresh` appends the records stored
 * since. One algorithm for every backend, on PurchaseStore.recordsAfter:
 * seq order is commit order (SQLite's one writer; on PostgreSQL the
 * purchases' advisory lock), so reading on from the last seq read misses
 * none. Records are kept in memory: they are few next to events.
 */
import type { PurchaseStore, RecordForResults } from './store.ts';

/** Records read per query. */
const PAGE = 10_000;

export class PurchaseRecordFeed {
  private readonly projects = new Map<string, RecordForResults[]>();
  /** The refresh in progress: the next one starts after it, so that two never read the same records. */
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<PurchaseStore, 'recordsAfter'>,
    private readonly page = PAGE,
  ) {}

  /** Reads the records the project stored since the last refresh. */
  refresh(projectId: string): Promise<void> {
    const read = this.reading.then(() => this.read(projectId));
    this.reading = read.catch(() => undefined);
    return read;
  }

  /** The records read so far that were stored after `seq`, in order of storage. */
  since(projectId: string, seq: number): RecordForResults[] {
    const records = this.projects.get(projectId) ?? [];
    // In seq order: the first one after `seq` by bisection.
    let low = 0;
    let high = records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (records[middle]!.seq <= seq) low = middle + 1;
      else high = middle;
    }
    return records.slice(low);
  }

  private async read(projectId: string): Promise<void> {
    let records = this.projects.get(projectId);
    if (!records) this.projects.set(projectId, (records = []));
    for (;;) {
      const rows = await this.store.recordsAfter(projectId, records.at(-1)?.seq ?? 0, this.page);
      for (const row of rows) records.push(row);
      if (rows.length < this.page) return;
    }
  }
}
