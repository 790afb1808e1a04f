import type { Logger } from '../log.ts';
import { ViewUpdates } from '../shared/view-updates.ts';
import { CompiledPlacement } from './compiled.ts';
import type { PlacementDocument } from './schema.ts';
import type { PlacementStore, ServedPlacement } from './store.ts';

/**
 * Every placement that is not archived, of every project, compiled and held
 * in memory so that GET /api/sdk/placement runs no SQL: replaced (a Map.set)
 * when this process writes or archives one, and reloaded when another
 * process commits configuration. Updates load from the store one at a time
 * (shared/view-updates.ts); the previous state serves meanwhile and stays
 * when a load fails.
 */
export class LivePlacements {
  private byProject = new Map<string, Map<string, CompiledPlacement>>();
  private readonly updates = new ViewUpdates();

  constructor(
    private readonly store: PlacementStore,
    private readonly log: Logger,
  ) {}

  get(projectId: string, placementId: string): CompiledPlacement | undefined {
    return this.byProject.get(projectId)?.get(placementId);
  }

  /** The ids of the project's placements that are served, sorted. */
  ids(projectId: string): string[] {
    return [...(this.byProject.get(projectId)?.keys() ?? [])].sort();
  }

  /** How many placements are compiled in memory (a /metrics gauge). */
  count(): number {
    let count = 0;
    for (const placements of this.byProject.values()) count += placements.size;
    return count;
  }

  /** Rebuilds from the store, recompiling only what changed: at start, and for commits made by other processes. */
  reload(): Promise<void> {
    return this.updates.reload(async () => {
      const next = new Map<string, Map<string, CompiledPlacement>>();
      for (const row of await this.store.servedPlacements()) {
        const previous = this.get(row.project_id, row.id);
        const compiled = previous?.revision === row.revision ? previous : this.compile(row);
        if (!compiled) continue;
        let placements = next.get(row.project_id);
        if (!placements) next.set(row.project_id, (placements = new Map()));
        placements.set(row.id, compiled);
      }
      this.byProject = next;
    });
  }

  /** After this process changed one placement: served once this resolves. */
  refresh(projectId: string, placementId: string): Promise<void> {
    return this.updates.run(async () => {
      const row = await this.store.served(projectId, placementId);
      const compiled = row && this.compile(row);
      if (!compiled) {
        this.byProject.get(projectId)?.delete(placementId);
        return;
      }
      let placements = this.byProject.get(projectId);
      if (!placements) this.byProject.set(projectId, (placements = new Map()));
      placements.set(placementId, compiled);
    });
  }

  private compile(row: ServedPlacement): CompiledPlacement | undefined {
    try {
      return new CompiledPlacement(row.id, row.revision, JSON.parse(row.document) as PlacementDocument);
    } catch (error) {
      // A stored revision was validated when written; failing here is a bug, and the placement is not served rather than served wrong.
      this.log.error('placement failed to compile', {
        project_id: row.project_id,
        placement_id: row.id,
        revision: row.revision,
        error: error instanceof Error ? error.stack : String(error),
      });
      return undefined;
    }
  }
}
