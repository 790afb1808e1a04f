/**
 * The public names of each project (analytics/name-budget.ts) as owners see and
 * clear them. The writer thread reads and stores them on its own connection
 * (events/writer/public-names.ts); this is the interface every backend
 * implements for the API and the CLI (CONTRIBUTING.md, "The storage seam").
 */

import type { NameKind } from '../../analytics/name-budget.ts';
import type { Change } from '../../shared/change.ts';

export interface StoredPublicName {
  kind: NameKind;
  /** The paywall of a variant or audience, '' otherwise. */
  scope: string;
  name: string;
  firstAt: number;
  /** false once an owner cleared it: it no longer counts in the budget. */
  counted: boolean;
}

export interface EventNameStore {
  /** The project's public names, newest first, at most `limit`; and how many it has. */
  list(projectId: string, limit: number): Promise<{ names: StoredPublicName[]; total: number }>;
  /** Stops counting the project's public names in its budget; answers how many were counting. */
  clear(projectId: string, change: Change): Promise<number>;
}
