/**
 * The placement opens the server counts frequency caps from
 * (src/placements/opens.ts): a screen_impression that names a placement,
 * of a known user. The derived state holds them as its placement segments'
 * exposures of the shown arm; the writer thread tells the server thread of
 * them after each fold: every one it holds the first time (so that a new
 * thread, or the state loaded from a checkpoint, replaces what the server
 * counted), then the new ones.
 */
import { BLOCK_MASK, BLOCK_SHIFT, timeAt } from './fold/experiment-log.ts';
import { type ExperimentLogs, PLACEMENT_SEGMENT, SHOWN } from './fold/segments.ts';
import type { UserDictionary } from './users.ts';

export type PlacementOpen = [projectId: string, placementId: string, userId: string, ts: number];

export class PlacementOpensLog {
  private fresh: PlacementOpen[] = [];
  private reported = false;

  /** One open the state just counted (before the first report, the whole set will carry it). */
  add(projectId: string, placementId: string, userId: string, ts: number): void {
    if (this.reported) this.fresh.push([projectId, placementId, userId, ts]);
  }

  /** What the server has not heard yet: everything the first time, then the opens added since; undefined when nothing is new. */
  take(experiments: ExperimentLogs, users: UserDictionary): { full: boolean; opens: PlacementOpen[] } | undefined {
    if (this.reported) {
      if (this.fresh.length === 0) return undefined;
      const opens = this.fresh;
      this.fresh = [];
      return { full: false, opens };
    }
    this.reported = true;
    const opens: PlacementOpen[] = [];
    for (const [projectId, key, , segment] of experiments.entries()) {
      if (!key.startsWith(PLACEMENT_SEGMENT)) continue;
      const shown = segment.variants.indexOf(SHOWN);
      if (shown === -1) continue;
      const placementId = key.slice(PLACEMENT_SEGMENT.length);
      const { exposures } = segment;
      for (let i = 0; i < exposures.length; i++) {
        const block = exposures.blocks[i >>> BLOCK_SHIFT]!;
        const j = i & BLOCK_MASK;
        if (block.codes[j] !== shown) continue;
        opens.push([projectId, placementId, users.userId(projectId, block.ordinals[j]!), timeAt(block, j)]);
      }
    }
    return { full: true, opens };
  }
}
