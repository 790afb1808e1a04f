/**
 * The experiment results of recently asked segments and phases: each a fold
 * (fold/experiment-fold.ts) kept and brought up to date at each ask with
 * the log entries, purchase records and identity links added since, rather
 * than folded again from the start.
 */

import { PhaseFold } from './fold/experiment-fold.ts';
import { emptyFold, type FoldQuery, type FoldRecord, type FoldResult } from './fold/fold-types.ts';
import { type LinkedUsers, ProjectJoins } from './fold/linked-users.ts';
import type { PurchaseReader, PurchaseRow } from './fold/purchase-records.ts';
import { DEFAULT_SEGMENT, type ExperimentLogs, PLACEMENT_SEGMENT } from './fold/segments.ts';
import { Lru } from './lru.ts';
import type { UserDictionary } from './users.ts';

/** Folds kept for results (each about 20 bytes per user of its project, plus about 50 per payer and currency). */
const CACHED_FOLDS = 4;

interface CachedFold {
  fold: PhaseFold;
  version: number;
  users: number;
  projectId: string;
  /** The joins of the project's links applied (a ProjectJoins position) in its epoch, its changes seen, and the last purchase record read. */
  epoch: number;
  joinsRead: number;
  linkChanges: number;
  recordSeq: number;
  /** Records of users the events have not seen yet: read again when new users appear. */
  waiting: PurchaseRow[];
  result: FoldResult | undefined;
}

const RECORD_KINDS: Record<string, FoldRecord['kind']> = {
  initial_purchase: 'sale',
  renewal: 'renewal',
  non_renewing_purchase: 'sale',
  trial_converted: 'trial_converted',
  trial_started: 'trial_started',
  refund: 'refund',
  cancellation: 'cancellation',
};

/**
 * The records of `rows` that may count for the paywall (theirs, or naming none; every one for a placement: null), as the
 * fold reads them; those of unseen users go to `waiting`.
 */
function foldRecords(rows: readonly PurchaseRow[], paywallId: string | null, linked: LinkedUsers, waiting: PurchaseRow[]): FoldRecord[] {
  const records: FoldRecord[] = [];
  for (const row of rows) {
    const kind = RECORD_KINDS[row.type];
    if (kind === undefined || (paywallId !== null && row.paywallId !== null && row.paywallId !== paywallId)) continue;
    const user = linked.ordinalOf(row.userId);
    if (user === -1) waiting.push(row);
    else records.push({ user, ts: row.ts, kind, revenue: row.revenue, currency: row.currency });
  }
  return records;
}

export class ResultsCache {
  /** The folds of recently asked segments and phases. */
  private readonly folds = new Lru<string, CachedFold>(CACHED_FOLDS);
  /** Per project, its users as the identity links join them, shared by its folds. */
  private readonly joins = new Map<string, ProjectJoins>();

  constructor(
    private readonly users: UserDictionary,
    private readonly experiments: ExperimentLogs,
  ) {}

  /**
   * The experiment counts of one segment (null: the default split) over one
   * phase, with the purchase records and identity links `feed` reads; a new
   * link joins, in the fold, the users it counted apart.
   */
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery, feed: PurchaseReader): FoldResult {
    const segment = this.experiments.find(projectId, paywallId, audience ?? DEFAULT_SEGMENT);
    if (!segment) return emptyFold(query);
    const users = this.users.count(projectId);
    // A placement's users convert with a purchase anywhere: the held out were shown no paywall to buy through.
    const placement = paywallId.startsWith(PLACEMENT_SEGMENT);
    const sources = placement ? this.experiments.segmentsInProject(projectId) : this.experiments.segmentsOf(projectId, paywallId);
    // Purchases of every segment count (for the segment where their user was exposed): any append changes the answer.
    let version = 0;
    for (const source of sources) version += source.version;
    const key = JSON.stringify([projectId, paywallId, audience, query]);
    let entry = this.folds.get(key);
    const project = this.joinsOf(projectId, feed);
    // The links were grouped again (a link split a group): a fold of the groups before starts over.
    if (entry?.epoch !== project.epoch) entry = undefined;
    // A new fold has counted nobody yet: the joins made before it have nothing to move.
    entry ??= {
      fold: new PhaseFold(segment, query, project.linked),
      projectId,
      epoch: project.epoch,
      joinsRead: project.end,
      linkChanges: project.changes,
      version: -1,
      users: 0,
      recordSeq: 0,
      waiting: [],
      result: undefined,
    };
    const joins = project.since(entry.joinsRead);
    const linked = entry.linkChanges !== project.changes;
    entry.joinsRead = project.end;
    entry.linkChanges = project.changes;
    // Each fold holds a few arrays of one number per user of the project: few are kept.
    this.folds.set(key, entry);
    const rows = feed.recordsSince(projectId, entry.recordSeq);
    project.forget(Math.min(...[...this.folds.values()].filter((other) => other.projectId === projectId).map((other) => other.joinsRead)));
    if (entry.result && entry.version === version && entry.users === users && rows.length === 0 && !linked) return entry.result;
    entry.recordSeq = rows.at(-1)?.seq ?? entry.recordSeq;
    // A waiting record finds its user once the users grow, or a link names one the events know.
    const retried = users === entry.users && !linked ? [] : entry.waiting.splice(0);
    entry.fold.update(users, sources, foldRecords([...retried, ...rows], placement ? null : paywallId, project.linked, entry.waiting), joins);
    entry.result = entry.fold.result();
    entry.version = version;
    entry.users = users;
    return entry.result;
  }

  /** The project's joined users, brought up to date with the links `feed` reads. */
  private joinsOf(projectId: string, feed: PurchaseReader): ProjectJoins {
    let project = this.joins.get(projectId);
    if (!project) this.joins.set(projectId, (project = new ProjectJoins(projectId, this.users, feed.links(projectId))));
    else project.update();
    return project;
  }
}
