/**
 * Reading the experiment phases of a paywall (phases.ts says what a phase
 * is); they are written by PaywallStore.publish, in the publish's own
 * transaction. The interface every backend implements (sqlite-store.ts;
 * CONTRIBUTING.md, "The storage seam").
 */
import type { PhaseRow } from './phases.ts';

export interface PhaseStore {
  /** The paywall's phases, oldest first; none before its first publish. */
  phases(projectId: string, paywallId: string): Promise<PhaseRow[]>;
}
