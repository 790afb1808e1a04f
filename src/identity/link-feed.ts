/**
 * The identity links as experiment results read them
 * (src/analytics/fold/purchase-records.ts): per project, every link read so
 * far in order of storage, to which `refresh` appends the links stored
 * since. One algorithm for every backend, on IdentityStore.linksAfter: a
 * link's seq is its place in its project's order of storage, and links are
 * only ever added (the first link of an anonymous id stays), so reading on
 * from the last seq read misses none.
 */
import type { IdentityStore } from './store.ts';

/** Links read per query: a project of a million links is read in pages, not one result set. */
const PAGE = 10_000;

interface ProjectLinks {
  /** The seq of the last link read. */
  seq: number;
  list: [anonymousId: string, userId: string][];
}

export class LinkFeed {
  private readonly projects = new Map<string, ProjectLinks>();
  /** The refresh in progress: the next one starts after it, so that two never read the same links. */
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<IdentityStore, 'linksAfter'>,
    private readonly page = PAGE,
  ) {}

  /** Reads the links the project stored since the last refresh. */
  refresh(projectId: string): Promise<void> {
    const read = this.reading.then(() => this.read(projectId));
    this.reading = read.catch(() => undefined);
    return read;
  }

  /** The project's links read so far: the same object on every call, appended to by `refresh`. */
  links(projectId: string): { readonly list: readonly (readonly [string, string])[] } {
    return this.project(projectId);
  }

  private project(projectId: string): ProjectLinks {
    let project = this.projects.get(projectId);
    if (!project) this.projects.set(projectId, (project = { seq: 0, list: [] }));
    return project;
  }

  private async read(projectId: string): Promise<void> {
    const project = this.project(projectId);
    for (;;) {
      const rows = await this.store.linksAfter(projectId, project.seq, this.page);
      for (const row of rows) project.list.push([row.anonymousId, row.userId]);
      if (rows.length > 0) project.seq = rows.at(-1)!.seq;
      if (rows.length < this.page) return;
    }
  }
}
