import type { Logger } from '../log.ts';
import type { Product } from '../products/schema.ts';
import { ViewUpdates } from '../shared/view-updates.ts';
import { type ProductCatalog, productsById } from './catalog.ts';
import type { PaywallOutput } from './document/schema.ts';
import { CompiledPaywall } from './resolve/compiled.ts';
import type { PaywallStore } from './store.ts';

interface Entry {
  /** What the compiled form was built from: live revision and catalog state; '' for a paywall with nothing live. */
  stamp: string;
  /** The live revision compiled; undefined when nothing is published (or it could not be compiled). */
  compiled: CompiledPaywall | undefined;
  /** Since when the paywall serves its id (ServedPaywall.serving_since): the longest serving takes keyless events. */
  servingSince: number;
}

const NONE: readonly string[] = Object.freeze([]);
const NOTHING_DECLARED = Object.freeze({ variantIds: new Set<string>(), audienceIds: new Set<string>() });

/**
 * Every non-archived paywall of every project, held in memory so that the
 * resolve endpoint and the events feature run no SQL: live revisions are
 * compiled once and replaced (a Map.set, atomic for the event loop) when a
 * revision is published, a paywall archived, a product it uses changed, or
 * another process commits to the database. Updates load from the store
 * asynchronously, one at a time (shared/view-updates.ts); the previous state
 * serves meanwhile, and stays when a load fails.
 */
export class LivePaywalls {
  private byProject = new Map<string, Map<string, Entry>>();
  private projectsByPaywall = new Map<string, readonly string[]>();
  private readonly updates = new ViewUpdates();
  constructor(
    private readonly store: PaywallStore,
    private readonly products: ProductCatalog,
    private readonly log: Logger,
  ) {}

  /** The compiled live revision, or undefined when the paywall is unknown, unpublished or archived. */
  get(projectId: string, paywallId: string): CompiledPaywall | undefined {
    return this.byProject.get(projectId)?.get(paywallId)?.compiled;
  }

  /** The ids of the project's live paywalls, sorted. */
  liveIds(projectId: string): string[] {
    const ids: string[] = [];
    for (const [paywallId, entry] of this.byProject.get(projectId) ?? []) if (entry.compiled) ids.push(paywallId);
    return ids.sort();
  }

  /**
   * The projects that have a non-archived paywall with this id (published
   * or not), the one serving it the longest first: the one keyless events
   * of the id go to (docs/reference/events.md, "Keys and attribution").
   */
  projectsWithPaywall(paywallId: string): readonly string[] {
    return this.projectsByPaywall.get(paywallId) ?? NONE;
  }

  /** Whether the project's paywall has a live revision (compiled). */
  isLive(projectId: string, paywallId: string): boolean {
    return this.get(projectId, paywallId) !== undefined;
  }

  /** What the project's paywall declares: its live revision's variants and audiences (none before it is live); undefined when there is no such paywall. */
  declared(projectId: string, paywallId: string): { variantIds: ReadonlySet<string>; audienceIds: ReadonlySet<string> } | undefined {
    const entry = this.byProject.get(projectId)?.get(paywallId);
    return entry && (entry.compiled ?? NOTHING_DECLARED);
  }

  /** The variant the resolve endpoint gives this user when it knows nothing else about them. */
  variantFor(projectId: string, paywallId: string, userId: string): string | undefined {
    const compiled = this.get(projectId, paywallId);
    return compiled?.variantId(compiled.choose(userId, { userId }));
  }

  /** How many live revisions are compiled in memory (a /metrics gauge). */
  compiledCount(): number {
    let count = 0;
    for (const paywalls of this.byProject.values()) for (const entry of paywalls.values()) if (entry.compiled) count++;
    return count;
  }

  /** Rebuilds from the store, recompiling only what changed: at start, and for commits made by other processes. */
  reload(): Promise<void> {
    return this.updates.reload(async () => {
      const next = new Map<string, Map<string, Entry>>();
      const catalogs = new Map<string, Promise<ReadonlyMap<string, Product>>>();
      const catalogOf = (projectId: string) => {
        let catalog = catalogs.get(projectId);
        if (!catalog) catalogs.set(projectId, (catalog = productsById(this.products, projectId)));
        return catalog;
      };
      for (const row of await this.store.servedPaywalls()) {
        const suffix = row.seed_suffix ?? '';
        const stamp = row.live_revision === null ? '' : `${row.live_revision}:${row.catalog_stamp}:${suffix}`;
        const previous = this.byProject.get(row.project_id)?.get(row.id);
        const compiled =
          previous?.stamp === stamp ? previous : await this.compile(row.project_id, row.id, row.live_revision, suffix, stamp, () => catalogOf(row.project_id));
        const entry = { ...compiled, servingSince: row.serving_since };
        let paywalls = next.get(row.project_id);
        if (!paywalls) next.set(row.project_id, (paywalls = new Map()));
        paywalls.set(row.id, entry);
      }
      this.byProject = next;
      this.reindex();
    });
  }

  /** After this process changed one paywall (a new revision, a publication, archiving): served once this resolves. */
  refresh(projectId: string, paywallId: string): Promise<void> {
    return this.updates.run(async () => {
      const row = await this.store.served(projectId, paywallId);
      if (!row) {
        this.byProject.get(projectId)?.delete(paywallId);
      } else {
        // A publish that starts a reseeded phase changes the suffix, even when it republishes the live revision.
        const suffix = row.seed_suffix ?? '';
        const stamp = row.live_revision === null ? '' : `${row.live_revision}:${row.catalog_stamp}:${suffix}`;
        const known = this.byProject.get(projectId)?.get(paywallId);
        if (known?.stamp === stamp && known.servingSince === row.serving_since) return;
        const entry = {
          ...(await this.compile(projectId, paywallId, row.live_revision, suffix, stamp, () => productsById(this.products, projectId))),
          servingSince: row.serving_since,
        };
        let paywalls = this.byProject.get(projectId);
        if (!paywalls) this.byProject.set(projectId, (paywalls = new Map()));
        paywalls.set(paywallId, entry);
      }
      this.reindex();
    });
  }

  /** After this process changed a product: recompiles the live paywalls that use it, and restamps the others. */
  refreshProduct(projectId: string, productId: string): Promise<void> {
    return this.updates.run(async () => {
      const paywalls = this.byProject.get(projectId);
      if (!paywalls) return;
      const catalog = await this.store.catalogStamp(projectId);
      let products: Promise<ReadonlyMap<string, Product>> | undefined;
      const entries: [string, Entry][] = [];
      for (const [paywallId, entry] of paywalls) {
        if (!entry.compiled) continue;
        const { revision, seedSuffix } = entry.compiled;
        const stamp = `${revision}:${catalog}:${seedSuffix}`;
        const uses = entry.compiled.productIds.has(productId);
        entries.push([
          paywallId,
          {
            ...(uses
              ? await this.compile(projectId, paywallId, revision, seedSuffix, stamp, () => (products ??= productsById(this.products, projectId)))
              : { stamp, compiled: entry.compiled }),
            servingSince: entry.servingSince,
          },
        ]);
      }
      // All at once: resolve never sees some paywalls with the change and others without.
      for (const [paywallId, entry] of entries) paywalls.set(paywallId, entry);
    });
  }

  private async compile(
    projectId: string,
    paywallId: string,
    liveRevision: number | null,
    seedSuffix: string,
    stamp: string,
    catalog: () => Promise<ReadonlyMap<string, Product>>,
  ): Promise<Omit<Entry, 'servingSince'>> {
    if (liveRevision === null) return { stamp, compiled: undefined };
    const [revision, products] = await Promise.all([this.store.revision(projectId, paywallId, liveRevision), catalog()]);
    try {
      if (!revision) throw new Error(`revision ${liveRevision} is missing`);
      const compiled = new CompiledPaywall({
        paywallId,
        revision: liveRevision,
        seedSuffix,
        document: JSON.parse(revision.document) as PaywallOutput,
        product: (productId) => products.get(productId),
      });
      return { stamp, compiled };
    } catch (error) {
      // A stored revision was validated when written; failing here is a bug, and the paywall is not served rather than served wrong.
      this.log.error('paywall failed to compile', {
        project_id: projectId,
        paywall_id: paywallId,
        revision: liveRevision,
        error: error instanceof Error ? error.stack : String(error),
      });
      return { stamp, compiled: undefined };
    }
  }

  private reindex(): void {
    const index = new Map<string, [since: number, projectId: string][]>();
    for (const [projectId, paywalls] of this.byProject) {
      for (const [paywallId, entry] of paywalls) {
        const projects = index.get(paywallId);
        if (projects) projects.push([entry.servingSince, projectId]);
        else index.set(paywallId, [[entry.servingSince, projectId]]);
      }
    }
    const ordered = new Map<string, readonly string[]>();
    for (const [paywallId, projects] of index) {
      // The longest serving first; two of the same millisecond in project id order, the same on every instance.
      projects.sort(([a, p], [b, q]) => a - b || (p < q ? -1 : p > q ? 1 : 0));
      ordered.set(
        paywallId,
        projects.map(([, projectId]) => projectId),
      );
    }
    this.projectsByPaywall = ordered;
  }
}
