/**
 * The derived state of the events, kept in memory by the writer thread,
 * updated after each commit with no SQL at all, and checkpointed every few
 * seconds (checkpoint.ts; on PostgreSQL writer/postgres/checkpoints.ts):
 * the users dictionary, the event statistics (event-statistics.ts), the
 * per-segment logs of exposures and purchases, and the results folded from
 * them (results-cache.ts). The raw events stay the only source of truth:
 * the state is rebuilt from them when its checkpoint is missing.
 */

import type { DerivedEvent } from './derived-event.ts';
import { EventStatistics } from './event-statistics.ts';
import type { FoldQuery, FoldResult } from './fold/fold-types.ts';
import type { PurchaseReader } from './fold/purchase-records.ts';
import { ExperimentLogs, SHOWN } from './fold/segments.ts';
import { type PlacementOpen, PlacementOpensLog } from './placement-opens.ts';
import { ResultsCache } from './results-cache.ts';
import { UserDictionary } from './users.ts';

export class DerivedState extends EventStatistics {
  readonly users = new UserDictionary();
  /** Exposures and purchases per paywall and segment, for experiment results. */
  readonly experiments = new ExperimentLogs();
  private readonly folds = new ResultsCache(this.users, this.experiments);
  /** The placement opens counted since the server last heard (placement-opens.ts). */
  private readonly opens = new PlacementOpensLog();
  /** Experiment entries left out since the start: stored by an older version past what a segment can code. */
  unrepresentable = 0;

  /** Counts one stored event; never throws (what a segment cannot code is left out and counted in `unrepresentable`). */
  apply(event: DerivedEvent): void {
    const { projectId, paywallId, audience, type, ts, userId, variantId, revenue, currency, placement } = event;
    const ordinal = userId === null ? null : this.users.ordinal(projectId, userId);
    this.count(event, ordinal);
    if (ordinal === null) return;
    if (!this.experiments.apply(projectId, paywallId, audience, type, ts, ordinal, variantId, revenue, currency)) this.unrepresentable++;
    if (placement === null) return;
    const arm = this.experiments.placementExposure(projectId, placement, type, ts, ordinal);
    if (arm === false) this.unrepresentable++;
    else if (arm === SHOWN) this.opens.add(projectId, placement, userId!, ts);
  }

  /** The placement opens the server has not heard of: every one the first time, then the new ones (placement-opens.ts). */
  takeOpens(): { full: boolean; opens: PlacementOpen[] } | undefined {
    return this.opens.take(this.experiments, this.users);
  }

  /**
   * The experiment counts of one segment (null: the default split) over one
   * phase, with the purchase records and identity links `feed` reads.
   */
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery, feed: PurchaseReader): FoldResult {
    return this.folds.results(projectId, paywallId, audience, query, feed);
  }
}
