/**
 * What the server and its event-writer thread say to each other (rows are
 * EventRows: ../event-row.ts).
 */

import type { FoldQuery, FoldResult } from '../../analytics/fold/fold-types.ts';
import type { LimitCode } from '../../analytics/limits.ts';
import type { PlacementOpen } from '../../analytics/placement-opens.ts';
import type { DatabaseTarget } from '../../db/target.ts';
import type { LinkOutcome, LinkRequest } from '../../identity/store.ts';
import type { EventRow } from '../event-row.ts';
import type { Stats } from '../schema.ts';

/**
 * One transaction's outcome, per request: how many rows were new, and which
 * rows (by index) an ingestion limit refused, 'public' when it was the
 * budget of names sent without a secret key (analytics/name-budget.ts).
 */
export interface Written {
  inserted: number[];
  refused: ([row: number, code: LimitCode] | [row: number, code: LimitCode, budget: 'public'])[][];
}

/** One request's part of a transaction. */
export interface RequestWritten {
  inserted: number;
  refused: Written['refused'][number];
}

/** How a writer thread starts: its script, of the target's kind, and the Node.js options it runs with (src/storage/writer-thread-script.ts). */
export interface WriterScript {
  file: string | URL;
  /** Unset: the server's own, as worker threads inherit them. */
  execArgv?: string[];
}

/** What a writer thread starts with; each thread reads the target of its kind (threadScript picks the thread by it). */
export interface WriterOptions<Target extends DatabaseTarget = DatabaseTarget> {
  /** The server's database, as it opened it. */
  target: Target;
  /** Delete raw events received more than this many days ago; undefined keeps them. */
  retentionDays: number | undefined;
}

export type ToWriter =
  /**
   * One request's accepted events: committed together, never split across
   * transactions. `marks`: per row, what the server knows of its names
   * (analytics/name-budget.ts, MARK); without them, a secret key's.
   */
  | { kind: 'write'; id: number; rows: EventRow[]; marks?: number[] }
  /** One identify: the links that arrived meanwhile are committed together (IdentityStore.link), answered with 'linked' or 'failed'. */
  | { kind: 'link'; id: number; request: LinkRequest }
  /** Statistics from the derived state (answered with a 'stats' message of the same id). */
  | { kind: 'stats'; id: number; projectId: string; paywallId: string; fromDay: number; toDay: number }
  /** Experiment counts of one segment over one phase (answered with a 'results' message of the same id). */
  | { kind: 'results'; id: number; projectId: string; paywallId: string; audience: string | null; query: FoldQuery }
  /** Commit what is queued, write a checkpoint, close the database and end the thread (the server waits for its exit). */
  | { kind: 'close' };

export type FromWriter =
  /** The derived state is loaded and caught up with the raw events: statistics can be answered. */
  | { kind: 'ready'; rebuildMs: number; checkpointSeq: number; replayed: number }
  /** Placement opens the derived state counted: every one it holds (`full`: the server replaces its counts), then the new ones. */
  | { kind: 'placement_opens'; full: boolean; opens: PlacementOpen[] }
  /** Stored events whose experiment entry the derived state left out, since the start (stored by an older version past the limits). */
  | { kind: 'unrepresentable'; events: number }
  /**
   * Loading the derived state failed; the thread ends without having handled any write (they wait
   * in its port until it is ready). `unavailable` as for 'failed'.
   */
  | { kind: 'start_failed'; error: string; unavailable?: string }
  | { kind: 'stats'; id: number; variants: Stats['variants'] }
  | { kind: 'results'; id: number; result: FoldResult }
  /** A result could not be computed: the purchase records it needs could not be read; `unavailable` as for 'failed'. */
  | { kind: 'results_failed'; id: number; error: string; unavailable?: string }
  /** This instance took (true) or lost (false) the background work that runs on one instance at a time (PostgreSQL). */
  | { kind: 'leadership'; leading: boolean }
  | { kind: 'checkpoint_failed'; error: string }
  /** The leading instance wrote a checkpoint of the derived state shared through PostgreSQL. */
  | { kind: 'checkpoint_written'; seq: number; bytes: number; ms: number }
  /** The dedup key filter holds every stored key: new events are no longer looked up in event_dedup. */
  | { kind: 'filter_filled'; ms: number; keys: number }
  /** Filling the dedup key filter failed: every key is looked up in event_dedup until the next start. */
  | { kind: 'filter_failed'; error: string }
  /** One transaction committed: for each request in it, how many of its rows were new, which were refused (the rest were duplicates). */
  | ({ kind: 'written'; ids: number[] } & Written)
  /** One transaction of links committed: the outcome of each request, in the order of `ids`. */
  | { kind: 'linked'; ids: number[]; outcomes: LinkOutcome[] }
  /**
   * One transaction rolled back: none of these requests' rows (or links) are stored. `unavailable` says why
   * when the database itself failed (a lock held elsewhere, a full disk, a read-only or failing file).
   */
  | { kind: 'failed'; ids: number[]; error: string; unavailable?: string }
  | { kind: 'retention'; deleted: number }
  | { kind: 'retention_failed'; error: string };
