/**
 * The derived state of the events: per project, paywall, variant and UTC day,
 * the count of each event type and the set of users (as ordinals) seen with
 * each type and with any type. Kept in memory by the writer thread, updated
 * after each commit with no SQL at all, and checkpointed to SQLite every few
 * seconds (checkpoint.ts). The raw events stay the only source of truth: the
 * state is rebuilt from them when its checkpoint is missing.
 */

import type { Stats } from '../events/schema.ts';
import { KNOWN_EVENT_TYPES } from '../events/schema.ts';
import { dayOf, dayText } from '../events/time.ts';
import { UNKNOWN_VARIANT } from '../events/variants.ts';
import type { DerivedEvent } from './derived-event.ts';
import { PhaseFold } from './fold/experiment-fold.ts';
import { emptyFold, type FoldQuery, type FoldRecord, type FoldResult } from './fold/fold-types.ts';
import { type LinkedUsers, ProjectJoins } from './fold/linked-users.ts';
import type { PurchaseReader, PurchaseRow } from './fold/purchase-records.ts';
import { DEFAULT_SEGMENT, ExperimentLogs } from './fold/segments.ts';
import { OrdinalSet } from './ordinal-set.ts';
import { UserDictionary } from './users.ts';

/** The stored type of a day's set of users of any type; no event type can be spelled so. */
export const ANY_TYPE = '*';

/** One paywall's variant on one UTC day. */
interface DayGroup {
  counts: Map<string, number>;
  /** Users with any event that day. */
  users: OrdinalSet;
  /** Users per event type (exposure and conversion for experiment results). */
  typeUsers: Map<string, OrdinalSet>;
  /**
   * The types whose count or users changed since the last checkpoint (undefined: none): a checkpoint
   * rewrites those rows only, not one per type the group ever had.
   */
  dirty: Set<string> | undefined;
}

type Figures = Stats['variants'][number]['totals'];

function figures(counts: Map<string, number>, uniqueUsers: number): Figures {
  const all = new Map<string, number>(KNOWN_EVENT_TYPES.map((type) => [type, 0]));
  for (const [type, count] of counts) all.set(type, count);
  const impressions = all.get('screen_impression')!;
  return {
    // fromEntries defines own properties: a type named "constructor" is a count like any other.
    counts: Object.fromEntries(all),
    unique_users: uniqueUsers,
    conversion_rate: impressions === 0 ? null : all.get('purchase_complete')! / impressions,
  };
}

/** Range unions remembered (each at most one 8 KiB bitmap per 65,536 users): the ranges dashboards poll. */
const CACHED_UNIONS = 16;
/** Folds kept for results (each about 20 bytes per user of its project, plus about 50 per payer and currency). */
const CACHED_FOLDS = 4;
/** Days this close to the newest day of a variant still change under ingestion; older ones rarely do. */
const RECENT_DAYS = 2;

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
};

/** The records of `rows` that may count for the paywall (theirs, or naming none), as the fold reads them; those of unseen users go to `waiting`. */
function foldRecords(rows: readonly PurchaseRow[], paywallId: string, linked: LinkedUsers, waiting: PurchaseRow[]): FoldRecord[] {
  const records: FoldRecord[] = [];
  for (const row of rows) {
    const kind = RECORD_KINDS[row.type];
    if (kind === undefined || (row.paywallId !== null && row.paywallId !== paywallId)) continue;
    const user = linked.ordinalOf(row.userId);
    if (user === -1) waiting.push(row);
    else records.push({ user, ts: row.ts, kind, revenue: row.revenue, currency: row.currency });
  }
  return records;
}

interface CachedUnion {
  sets: OrdinalSet[];
  /** Sets only grow: the same set with the same size has the same members. */
  sizes: number[];
  chunks: Map<number, Uint32Array>;
}

function byVariantId(a: string, b: string): number {
  return a === UNKNOWN_VARIANT ? 1 : b === UNKNOWN_VARIANT ? -1 : a < b ? -1 : a > b ? 1 : 0;
}

export class DerivedState {
  readonly users = new UserDictionary();
  /** Exposures and purchases per paywall and segment, for experiment results. */
  readonly experiments = new ExperimentLogs();
  /** The folds of recently asked segments and phases, brought up to date at each ask (least recently used first). */
  private readonly folds = new Map<string, CachedFold>();
  /** Per project, its users as the identity links join them, shared by its folds. */
  private readonly joins = new Map<string, ProjectJoins>();
  /** project → paywall → variant → day → group */
  private readonly groups = new Map<string, Map<string, Map<string, Map<number, DayGroup>>>>();
  /** Unions of the older days of recently asked ranges, by range and variant (least recently used first). */
  private readonly unions = new Map<string, CachedUnion>();
  /** project → every event type it has stored, and its count of (paywall, variant) pairs: what the ingestion limits count. */
  private readonly types = new Map<string, Set<string>>();
  private readonly variantPairs = new Map<string, number>();
  /** Experiment entries left out since the start: stored by an older version past what a segment can code. */
  unrepresentable = 0;

  /** The group of a key, created empty when missing. */
  group(projectId: string, paywallId: string, variantId: string, day: number): DayGroup {
    let paywalls = this.groups.get(projectId);
    if (!paywalls) this.groups.set(projectId, (paywalls = new Map()));
    let variants = paywalls.get(paywallId);
    if (!variants) paywalls.set(paywallId, (variants = new Map()));
    let days = variants.get(variantId);
    if (!days) {
      variants.set(variantId, (days = new Map()));
      this.variantPairs.set(projectId, (this.variantPairs.get(projectId) ?? 0) + 1);
    }
    let group = days.get(day);
    if (!group) days.set(day, (group = { counts: new Map(), users: new OrdinalSet(), typeUsers: new Map(), dirty: undefined }));
    return group;
  }

  /** Notes that a project has stored an event of this type. */
  addType(projectId: string, type: string): void {
    let types = this.types.get(projectId);
    if (!types) this.types.set(projectId, (types = new Set()));
    types.add(type);
  }

  /** The event types a project has stored. */
  typesOf(projectId: string): ReadonlySet<string> | undefined {
    return this.types.get(projectId);
  }

  /** The variants (with UNKNOWN_VARIANT) each paywall of a project has stored events of. */
  paywallsOf(projectId: string): ReadonlyMap<string, ReadonlyMap<string, unknown>> | undefined {
    return this.groups.get(projectId);
  }

  /** The (paywall, variant) pairs of a project. */
  variantPairsOf(projectId: string): number {
    return this.variantPairs.get(projectId) ?? 0;
  }

  /** Counts one stored event; never throws (what a segment cannot code is left out and counted in `unrepresentable`). */
  apply(event: DerivedEvent): void {
    const group = this.group(event.projectId, event.paywallId, event.variantId ?? UNKNOWN_VARIANT, dayOf(event.ts));
    (group.dirty ??= new Set()).add(event.type);
    group.counts.set(event.type, (group.counts.get(event.type) ?? 0) + 1);
    this.addType(event.projectId, event.type);
    if (event.userId === null) return;
    const ordinal = this.users.ordinal(event.projectId, event.userId);
    group.users.add(ordinal);
    let typed = group.typeUsers.get(event.type);
    if (!typed) group.typeUsers.set(event.type, (typed = new OrdinalSet()));
    typed.add(ordinal);
    const { projectId, paywallId, audience, type, ts, variantId, revenue, currency } = event;
    if (!this.experiments.apply(projectId, paywallId, audience, type, ts, ordinal, variantId, revenue, currency)) this.unrepresentable++;
  }

  /**
   * The experiment counts of one segment (null: the default split) over one
   * phase, with the purchase records and identity links `feed` reads; a new
   * link joins, in the fold, the users it counted apart.
   */
  results(projectId: string, paywallId: string, audience: string | null, query: FoldQuery, feed: PurchaseReader): FoldResult {
    const segment = this.experiments.find(projectId, paywallId, audience ?? DEFAULT_SEGMENT);
    if (!segment) return emptyFold(query);
    const users = this.users.count(projectId);
    const sources = this.experiments.segmentsOf(projectId, paywallId);
    // Purchases of every segment count (for the segment where their user was exposed): any append changes the answer.
    let version = 0;
    for (const source of sources) version += source.version;
    const key = JSON.stringify([projectId, paywallId, audience, query]);
    let entry = this.folds.get(key);
    this.folds.delete(key);
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
    this.folds.set(key, entry);
    const rows = feed.recordsSince(projectId, entry.recordSeq);
    // Each fold holds a few arrays of one number per user of the project: few are kept.
    if (this.folds.size > CACHED_FOLDS) this.folds.delete(this.folds.keys().next().value!);
    project.forget(Math.min(...[...this.folds.values()].filter((other) => other.projectId === projectId).map((other) => other.joinsRead)));
    if (entry.result && entry.version === version && entry.users === users && rows.length === 0 && !linked) return entry.result;
    entry.recordSeq = rows.at(-1)?.seq ?? entry.recordSeq;
    // A waiting record finds its user once the users grow, or a link names one the events know.
    const retried = users === entry.users && !linked ? [] : entry.waiting.splice(0);
    entry.fold.update(users, sources, foldRecords([...retried, ...rows], paywallId, project.linked, entry.waiting), joins);
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

  /** Every group with its key, for the checkpoint. */
  *entries(): IterableIterator<[projectId: string, paywallId: string, variantId: string, day: number, group: DayGroup]> {
    for (const [projectId, paywalls] of this.groups) {
      for (const [paywallId, variants] of paywalls) {
        for (const [variantId, days] of variants) {
          for (const [day, group] of days) yield [projectId, paywallId, variantId, day, group];
        }
      }
    }
  }

  /**
   * Statistics of the UTC days fromDay to toDay (both included): the counts
   * summed over the days, and unique users over the range as the exact size
   * of the union of the day sets. The cost depends on days × variants and on
   * the number of users, not on the number of events.
   */
  stats(projectId: string, paywallId: string, fromDay: number, toDay: number): Stats['variants'] {
    const variants = this.groups.get(projectId)?.get(paywallId);
    if (!variants) return [];
    const result: Stats['variants'] = [];
    for (const variantId of [...variants.keys()].sort(byVariantId)) {
      const days = [...variants.get(variantId)!].filter(([day]) => day >= fromDay && day <= toDay).sort(([a], [b]) => a - b);
      if (days.length === 0) continue;
      const totals = new Map<string, number>();
      for (const [, group] of days) for (const [type, count] of group.counts) totals.set(type, (totals.get(type) ?? 0) + count);
      const newest = Math.max(...variants.get(variantId)!.keys());
      const older = days.filter(([day]) => day <= newest - RECENT_DAYS).map(([, group]) => group.users);
      const recent = days.filter(([day]) => day > newest - RECENT_DAYS).map(([, group]) => group.users);
      const key = `${projectId}\0${paywallId}\0${variantId}\0${fromDay}\0${toDay}`;
      result.push({
        variant_id: variantId,
        totals: figures(totals, older.length < 2 ? OrdinalSet.unionSize([...older, ...recent]) : OrdinalSet.unionSize(recent, this.unionOf(key, older))),
        days: days.map(([day, group]) => ({ day: dayText(day), ...figures(group.counts, group.users.size) })),
      });
    }
    return result;
  }

  /**
   * The union of `sets` as bitmaps, remembered under `key` while none of
   * them changes: a range asked again costs one OR of its recent days into
   * it instead of one per day.
   */
  private unionOf(key: string, sets: OrdinalSet[]): Map<number, Uint32Array> {
    const cached = this.unions.get(key);
    this.unions.delete(key);
    const valid = cached !== undefined && cached.sets.length === sets.length && sets.every((set, i) => cached.sets[i] === set && cached.sizes[i] === set.size);
    const entry = valid ? cached : { sets, sizes: sets.map((set) => set.size), chunks: OrdinalSet.unionChunks(sets) };
    this.unions.set(key, entry);
    if (this.unions.size > CACHED_UNIONS) this.unions.delete(this.unions.keys().next().value!);
    return entry.chunks;
  }
}
