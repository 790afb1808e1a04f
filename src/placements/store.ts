/**
 * Placements and their revisions. Revisions are append-only and the newest
 * is the one served (there is no draft); the placement row says which is
 * newest and whether it is archived. The interface every backend implements
 * (sqlite-store.ts, postgres-store.ts; CONTRIBUTING.md, "The storage seam"):
 * each method is one transaction, and a write takes the version the service
 * read and checked (shared/stale.ts), answering STALE when the placement
 * moved since.
 */
import type { Change } from '../shared/change.ts';
import type { Stale } from '../shared/stale.ts';

export interface PlacementRow {
  project_id: string;
  id: string;
  /** The name in the latest revision, kept here for listings. */
  name: string;
  latest_revision: number;
  archived_at: number | null;
  /** Grows with every change of the row: the ETag. */
  version: number;
  created_at: number;
  updated_at: number;
}

export interface PlacementRevisionRow {
  revision: number;
  name: string;
  created_at: number;
  /** Who wrote it (an Actor as JSON). */
  created_by: string;
}

export interface StoredPlacementRevision extends PlacementRevisionRow {
  /** The validated document as JSON text. */
  document: string;
}

/** A placement that is not archived, with its newest revision: what the in-memory live placements load. */
export interface ServedPlacement {
  project_id: string;
  id: string;
  revision: number;
  document: string;
}

/** A new revision, validated by the service. */
export interface PlacementWrite {
  name: string;
  /** The validated document as JSON text. */
  document: string;
}

export interface PlacementStore {
  list(projectId: string): Promise<PlacementRow[]>;
  get(projectId: string, id: string): Promise<PlacementRow | undefined>;
  /** The placement's revisions, newest first. */
  revisions(projectId: string, id: string): Promise<PlacementRevisionRow[]>;
  revision(projectId: string, id: string, revision: number): Promise<StoredPlacementRevision | undefined>;
  /**
   * Appends a revision, served at once (creating the placement with revision
   * 1 when `expected` is undefined, unarchiving an archived one), and returns
   * the placement after it; STALE when it is no longer at `expected`
   * (undefined: it must not exist). Records its audit entry (`change`: who)
   * in the same transaction.
   */
  write(projectId: string, id: string, write: PlacementWrite, expected: number | undefined, change: Change): Promise<PlacementRow | Stale>;
  /** Archives the placement (a no-op, without an entry, when it already is) and returns it; STALE when it is no longer at `expected`. */
  archive(projectId: string, id: string, expected: number, change: Change): Promise<PlacementRow | Stale>;
  /** Every placement that is not archived, with its newest revision. */
  servedPlacements(): Promise<ServedPlacement[]>;
  /** One placement as servedPlacements() lists it; undefined when it does not exist or is archived. */
  served(projectId: string, id: string): Promise<ServedPlacement | undefined>;
}
