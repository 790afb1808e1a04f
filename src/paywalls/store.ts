/**
 * Paywalls and their revisions. Revisions are append-only; the paywall row
 * says which is newest, which is live and whether it is archived. The
 * interface every backend implements (sqlite-store.ts; CONTRIBUTING.md,
 * "The storage seam"): each method is one transaction. A write takes the
 * version the service read and checked (shared/stale.ts) and answers STALE
 * when the paywall moved since.
 */

import type { PhaseDesign, PhaseOptions, PhaseRow } from '../experiments/phases.ts';
import type { Change } from '../shared/change.ts';
import type { Stale } from '../shared/stale.ts';

export interface PaywallRow {
  project_id: string;
  id: string;
  /** The name in the latest revision, kept here for listings. */
  name: string;
  latest_revision: number;
  live_revision: number | null;
  archived_at: number | null;
  /** Grows with every change of the row: the ETag. */
  version: number;
  created_at: number;
  updated_at: number;
}

export interface RevisionRow {
  revision: number;
  name: string;
  created_at: number;
  published_at: number | null;
  /** Who wrote it (an Actor as JSON); null for revisions written before paywalld kept it. */
  created_by: string | null;
}

export interface StoredRevision extends RevisionRow {
  /** The validated document as JSON text. */
  document: string;
}

/** A non-archived paywall as the in-memory registry of live paywalls needs it. */
export interface ServedPaywall {
  project_id: string;
  id: string;
  live_revision: number | null;
  /** Since when it serves its id: created, or published again after being archived (keyless events go to the longest serving). */
  serving_since: number;
  /** The current phase's seed suffix (null: none, or no phase). */
  seed_suffix: string | null;
  /** A number that changes whenever the project's product catalog does. */
  catalog_stamp: number;
}

/** A new revision, validated by the service. */
export interface RevisionWrite {
  name: string;
  /** The validated document as JSON text. */
  document: string;
  /** The products the document puts in a slot: each must exist (not deleted) when the revision is stored, else STALE. */
  products: readonly string[];
}

/** Making a revision live, as the service checked it. */
export interface Publication {
  revision: number;
  /** The revision's split, for the phase bookkeeping (phases.ts, `nextPhase`). */
  design: PhaseDesign;
  options: PhaseOptions;
  /** The products the revision puts in a slot: each must exist when it goes live, else STALE. */
  products: readonly string[];
  now: number;
}

export interface PaywallStore {
  list(projectId: string): Promise<PaywallRow[]>;
  get(projectId: string, id: string): Promise<PaywallRow | undefined>;
  /** The paywall's revisions, newest first. */
  revisions(projectId: string, id: string): Promise<RevisionRow[]>;
  revision(projectId: string, id: string, revision: number): Promise<StoredRevision | undefined>;
  /**
   * Appends a revision (creating the paywall with revision 1 when `expected`
   * is undefined) and returns the paywall after it; STALE when the paywall is
   * no longer at `expected` (undefined: it must not exist) or a product of the
   * revision is gone. Every change below appends its audit entry (`change`: who) in the same transaction.
   */
  addRevision(projectId: string, id: string, write: RevisionWrite, expected: number | undefined, change: Change): Promise<PaywallRow | Stale>;
  /**
   * Makes the revision live (unarchiving the paywall), marks it published and
   * starts a phase when `nextPhase` says so, in one transaction: an event is
   * never timed after a publish whose phase is not stored yet. Returns the
   * paywall after it, the current phase and whether this publish started it;
   * STALE when the paywall is no longer at `expected` or a product is gone.
   */
  publish(
    projectId: string,
    id: string,
    publication: Publication,
    expected: number,
    change: Change,
  ): Promise<{ row: PaywallRow; phase: PhaseRow; started: boolean } | Stale>;
  /** Archives the paywall (a no-op, without an entry, when it already is) and returns it; STALE when it is no longer at `expected`. */
  archive(projectId: string, id: string, expected: number, change: Change): Promise<PaywallRow | Stale>;
  /** Every paywall that is not archived, published or not: what the in-memory live paywalls load. */
  servedPaywalls(): Promise<ServedPaywall[]>;
  /** One paywall as servedPaywalls() lists it; undefined when it does not exist or is archived. */
  served(projectId: string, id: string): Promise<ServedPaywall | undefined>;
  /** A number per project that changes whenever its product catalog does. */
  catalogStamp(projectId: string): Promise<number>;
}
