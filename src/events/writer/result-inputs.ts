/**
 * What experiment results read beside the events: the purchase records and
 * identity links, each through its owner's feed (src/purchases/record-feed.ts,
 * src/identity/link-feed.ts) on the writer thread's own connection, the
 * same way on both backends. The fold reads them synchronously, so a thread
 * refreshes the project's before it asks.
 */
import type { PurchaseReader } from '../../analytics/fold/purchase-records.ts';
import { LinkFeed } from '../../identity/link-feed.ts';
import type { IdentityStore } from '../../identity/store.ts';
import { PurchaseRecordFeed } from '../../purchases/record-feed.ts';
import type { PurchaseStore } from '../../purchases/store.ts';

/** The stores a writer thread uses on its own connection, built by the thread's entry (src/storage/*-writer-thread.ts). */
export interface WriterStores {
  purchases: Pick<PurchaseStore, 'recordsAfter'>;
  identity: Pick<IdentityStore, 'linksAfter' | 'link'>;
}

export class ResultInputs implements PurchaseReader {
  private readonly records: PurchaseRecordFeed;
  private readonly linkFeed: LinkFeed;

  constructor(storage: WriterStores) {
    this.records = new PurchaseRecordFeed(storage.purchases);
    this.linkFeed = new LinkFeed(storage.identity);
  }

  /** Reads what the project stored since the last refresh. */
  async refresh(projectId: string): Promise<void> {
    await this.records.refresh(projectId);
    await this.linkFeed.refresh(projectId);
  }

  recordsSince(projectId: string, seq: number) {
    return this.records.since(projectId, seq);
  }

  links(projectId: string) {
    return this.linkFeed.links(projectId);
  }
}
