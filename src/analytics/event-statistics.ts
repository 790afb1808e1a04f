/**
 * The event statistics: per project, paywall, variant and UTC day, the
 * count of each event type and the set of users (as ordinals) seen with
 * each type and with any type, what `GET /api/paywalls/{id}/stats` answers
 * from; and per project the event types and (paywall, variant) pairs it
 * has stored, which the ingestion limits count (limits.ts).
 */

import type { Stats } from '../events/schema.ts';
import { KNOWN_EVENT_TYPES } from '../events/schema.ts';
import { dayOf, dayText } from '../events/time.ts';
import { UNKNOWN_VARIANT } from '../events/variants.ts';
import type { DerivedEvent } from './derived-event.ts';
import { Lru } from './lru.ts';
import { OrdinalSet } from './ordinal-set.ts';

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
/** Days this close to the newest day of a variant still change under ingestion; older ones rarely do. */
const RECENT_DAYS = 2;

interface CachedUnion {
  sets: OrdinalSet[];
  /** Sets only grow: the same set with the same size has the same members. */
  sizes: number[];
  chunks: Map<number, Uint32Array>;
}

function byVariantId(a: string, b: string): number {
  return a === UNKNOWN_VARIANT ? 1 : b === UNKNOWN_VARIANT ? -1 : a < b ? -1 : a > b ? 1 : 0;
}

export class EventStatistics {
  /** project → paywall → variant → day → group */
  private readonly groups = new Map<string, Map<string, Map<string, Map<number, DayGroup>>>>();
  /** Unions of the older days of recently asked ranges, by range and variant. */
  private readonly unions = new Lru<string, CachedUnion>(CACHED_UNIONS);
  /** project → every event type it has stored, and its count of (paywall, variant) pairs: what the ingestion limits count. */
  private readonly types = new Map<string, Set<string>>();
  private readonly variantPairs = new Map<string, number>();

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

  /** Counts one stored event, of the user with this ordinal (null: an event without a user). */
  protected count(event: DerivedEvent, ordinal: number | null): void {
    const group = this.group(event.projectId, event.paywallId, event.variantId ?? UNKNOWN_VARIANT, dayOf(event.ts));
    (group.dirty ??= new Set()).add(event.type);
    group.counts.set(event.type, (group.counts.get(event.type) ?? 0) + 1);
    this.addType(event.projectId, event.type);
    if (ordinal === null) return;
    group.users.add(ordinal);
    let typed = group.typeUsers.get(event.type);
    if (!typed) group.typeUsers.set(event.type, (typed = new OrdinalSet()));
    typed.add(ordinal);
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
    const valid = cached !== undefined && cached.sets.length === sets.length && sets.every((set, i) => cached.sets[i] === set && cached.sizes[i] === set.size);
    const entry = valid ? cached : { sets, sizes: sets.map((set) => set.size), chunks: OrdinalSet.unionChunks(sets) };
    this.unions.set(key, entry);
    return entry.chunks;
  }
}
