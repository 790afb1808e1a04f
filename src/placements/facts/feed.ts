/**
 * The purchases.* facts of every project's users, in memory, and how they
 * keep up with the database: the purchase records and identify links stored
 * after the last ones read, read through their owners' stores
 * (PurchaseStore.factsAfter, IdentityStore.linksAfter) as the results' feeds
 * read them (src/purchases/record-feed.ts, src/identity/link-feed.ts: seq
 * order is commit order on both backends). Unlike those feeds, which keep
 * every row, only the folded facts are kept (project-facts.ts). Read once at
 * start, before the server listens, then every watch interval (250 ms in
 * `serve`): what any instance stores is in every instance's facts within
 * about that, without a notification of its own.
 */
import type { IdentityStore } from '../../identity/store.ts';
import type { Logger } from '../../log.ts';
import type { ProjectStore } from '../../projects/store.ts';
import type { PurchaseStore, RecordForFacts } from '../../purchases/store.ts';
import { DomainError } from '../../shared/errors.ts';
import { ViewUpdates } from '../../shared/view-updates.ts';
import { NO_FACTS, ProjectFacts, type PurchaseFacts } from './project-facts.ts';

/** Rows read per query: a million records are read in pages, not one result set. */
const PAGE = 10_000;

interface FactSources {
  purchases: Pick<PurchaseStore, 'factsAfter'>;
  identity: Pick<IdentityStore, 'linksAfter'>;
  projects: Pick<ProjectStore, 'list'>;
}

/** A record as the facts fold it: its product, and what ties the records of its subscription together. */
function factRecord(row: RecordForFacts) {
  const product = row.productId ?? row.storeProductId;
  const storeProduct = row.store === null || row.storeProductId === null ? null : `${row.store}:${row.storeProductId}`;
  return { userId: row.userId, type: row.type, ts: row.ts, product, subscription: row.originalTransactionId ?? row.productId ?? storeProduct };
}

export class PurchaseFactsFeed {
  private readonly projects = new Map<string, ProjectFacts>();
  private recordSeq = 0;
  private readonly linkSeqs = new Map<string, number>();
  private readonly updates = new ViewUpdates();

  constructor(
    private readonly sources: FactSources,
    private readonly log: Logger,
  ) {}

  /** The facts of the user `userId` counts as (identify links followed), now. */
  factsOf(projectId: string, userId: string): PurchaseFacts {
    return this.projects.get(projectId)?.factsOf(userId, Date.now()) ?? NO_FACTS;
  }

  /** Users (and linked ids) the facts hold, every project: a /metrics gauge. */
  users(): number {
    let users = 0;
    for (const project of this.projects.values()) users += project.size;
    return users;
  }

  /** Reads what was stored since the last read; a read asked for while one waits to start is that one. */
  read(): Promise<void> {
    return this.updates.reload(() => this.readNew());
  }

  /** Reads every `intervalMs` until the returned stop; a failed read is logged (the database unreachable: quietly) and tried again. */
  follow(intervalMs: number): () => void {
    const timer = setInterval(() => {
      this.read().catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'database_unavailable') return;
        this.log.error('reading purchase records for the purchases.* facts failed; the facts keep their last state', {
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private project(projectId: string): ProjectFacts {
    let facts = this.projects.get(projectId);
    if (!facts) this.projects.set(projectId, (facts = new ProjectFacts()));
    return facts;
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const rows = await this.sources.purchases.factsAfter(this.recordSeq, PAGE);
      for (const row of rows) this.project(row.projectId).fold(factRecord(row));
      if (rows.length > 0) this.recordSeq = rows.at(-1)!.seq;
      if (rows.length < PAGE) break;
    }
    for (const { id } of await this.sources.projects.list()) {
      for (;;) {
        const links = await this.sources.identity.linksAfter(id, this.linkSeqs.get(id) ?? 0, PAGE);
        for (const link of links) this.project(id).link(link.anonymousId, link.userId);
        if (links.length > 0) this.linkSeqs.set(id, links.at(-1)!.seq);
        if (links.length < PAGE) break;
      }
    }
  }
}
