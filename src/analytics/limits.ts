/**
 * The ingestion limits on what the derived state keeps per name: event
 * types, paywall ids, variant ids and audiences each cost memory and
 * checkpoint rows for as long as the state lives, and a segment's variant
 * codes are 16-bit. Each limit is far above what a real app sends and far
 * below what the state can represent, and is checked by the writer thread
 * inside the transaction, before an event is stored: an event that would
 * take a project past one is refused by index with the limit's code, and
 * the state never meets a name it cannot keep after a commit.
 */

import { UNKNOWN_VARIANT } from '../events/variants.ts';
import type { DerivedEvent } from './derived-event.ts';
import { DEFAULT_SEGMENT, PLACEMENT_SEGMENT } from './fold/segments.ts';
import type { DerivedState } from './state.ts';

const MAX_EVENT_TYPES_PER_PROJECT = 1000;
const MAX_PAYWALLS_PER_PROJECT = 1000;
const MAX_VARIANTS_PER_PAYWALL = 1000;
/** (paywall, variant) pairs of one project. */
const MAX_VARIANTS_PER_PROJECT = 20_000;
/** Experiment segments (the default split and each audience) of one paywall. */
const MAX_AUDIENCES_PER_PAYWALL = 1000;
/** (paywall, audience) pairs of one project. */
const MAX_AUDIENCES_PER_PROJECT = 10_000;

export type LimitCode = 'too_many_event_types' | 'too_many_paywalls' | 'too_many_variants' | 'too_many_audiences';

export const LIMIT_MESSAGES: Record<LimitCode, string> = {
  too_many_event_types: `the project has stored ${MAX_EVENT_TYPES_PER_PROJECT} distinct event types; an event of a new type is refused`,
  too_many_paywalls: `the project has stored events of ${MAX_PAYWALLS_PER_PROJECT} distinct paywall ids; an event of a new one is refused`,
  too_many_variants: `the paywall has ${MAX_VARIANTS_PER_PAYWALL} distinct variant ids (or the project ${MAX_VARIANTS_PER_PROJECT}); an event of a new one is refused`,
  too_many_audiences: `the paywall has ${MAX_AUDIENCES_PER_PAYWALL} distinct audiences (or the project ${MAX_AUDIENCES_PER_PROJECT}, placements counted); an event of a new one is refused`,
};

/** The events that expose a user to a placement (segments.ts, placementExposure). */
const PLACEMENT_EXPOSURES: ReadonlySet<string> = new Set(['screen_impression', 'placement_holdout']);

/** Whether the event opens an experiment segment (DerivedState.apply): only those count against the audience limits. */
function entersSegment(type: string, userId: string | null, variantId: string | null): boolean {
  return userId !== null && ((type === 'screen_impression' && variantId !== null) || type === 'purchase_complete');
}

/**
 * Checks the events of one transaction against the limits. The state counts
 * the events committed before; the names of the events admitted in this
 * transaction (not yet counted: the state is updated after the commit) are
 * reserved here until `clear`.
 */
export class Admission {
  /** Names admitted in this transaction, by what they count against. */
  private readonly names = new Set<string>();
  private readonly counts = new Map<string, number>();

  constructor(private readonly state: DerivedState) {}

  /** Undefined when the event may be stored (its new names are then reserved), else the limit it would pass. */
  admit(event: DerivedEvent): LimitCode | undefined {
    const { projectId, paywallId, type, userId, variantId } = event;
    const variant = variantId ?? UNKNOWN_VARIANT;
    const state = this.state;
    // Allocated only for an event with a name the state does not know yet: the common event allocates nothing.
    let fresh: [name: string, counters: string[]][] | undefined;

    const types = state.typesOf(projectId);
    if (!types?.has(type)) {
      const name = `t\0${projectId}\0${type}`;
      if (!this.names.has(name)) {
        if (this.over(`t\0${projectId}`, types?.size ?? 0, MAX_EVENT_TYPES_PER_PROJECT)) return 'too_many_event_types';
        (fresh ??= []).push([name, [`t\0${projectId}`]]);
      }
    }
    const paywalls = state.paywallsOf(projectId);
    const variants = paywalls?.get(paywallId);
    if (variants === undefined) {
      const name = `p\0${projectId}\0${paywallId}`;
      if (!this.names.has(name)) {
        if (this.over(`p\0${projectId}`, paywalls?.size ?? 0, MAX_PAYWALLS_PER_PROJECT)) return 'too_many_paywalls';
        (fresh ??= []).push([name, [`p\0${projectId}`]]);
      }
    }
    if (!variants?.has(variant)) {
      const name = `v\0${projectId}\0${paywallId}\0${variant}`;
      if (!this.names.has(name)) {
        if (this.over(`v\0${projectId}\0${paywallId}`, variants?.size ?? 0, MAX_VARIANTS_PER_PAYWALL)) return 'too_many_variants';
        if (this.over(`v\0${projectId}`, state.variantPairsOf(projectId), MAX_VARIANTS_PER_PROJECT)) return 'too_many_variants';
        (fresh ??= []).push([name, [`v\0${projectId}\0${paywallId}`, `v\0${projectId}`]]);
      }
    }
    const audience = event.audience ?? DEFAULT_SEGMENT;
    const experiments = state.experiments;
    if (entersSegment(type, userId, variantId) && !experiments.find(projectId, paywallId, audience)) {
      const name = `a\0${projectId}\0${paywallId}\0${audience}`;
      if (!this.names.has(name)) {
        if (this.over(`a\0${projectId}\0${paywallId}`, experiments.countOf(projectId, paywallId), MAX_AUDIENCES_PER_PAYWALL)) return 'too_many_audiences';
        if (this.over(`a\0${projectId}`, experiments.countInProject(projectId), MAX_AUDIENCES_PER_PROJECT)) return 'too_many_audiences';
        (fresh ??= []).push([name, [`a\0${projectId}\0${paywallId}`, `a\0${projectId}`]]);
      }
    }
    // A placement's results are a segment of the project too: a name an app makes up costs what an audience does.
    const placement = event.placement === null ? undefined : PLACEMENT_SEGMENT + event.placement;
    if (placement !== undefined && userId !== null && PLACEMENT_EXPOSURES.has(type) && !experiments.find(projectId, placement, DEFAULT_SEGMENT)) {
      const name = `a\0${projectId}\0${placement}\0`;
      if (!this.names.has(name)) {
        if (this.over(`a\0${projectId}`, experiments.countInProject(projectId), MAX_AUDIENCES_PER_PROJECT)) return 'too_many_audiences';
        (fresh ??= []).push([name, [`a\0${projectId}`]]);
      }
    }
    for (const [name, counters] of fresh ?? []) {
      this.names.add(name);
      for (const counter of counters) this.counts.set(counter, (this.counts.get(counter) ?? 0) + 1);
    }
    return undefined;
  }

  /** Whether an event admitted since the last `clear` brought a name the state did not count. */
  get reservedNames(): boolean {
    return this.names.size > 0;
  }

  /** Whether a counter is at its limit: `existing` names counted by the state, and those reserved in this transaction. */
  private over(counter: string, existing: number, max: number): boolean {
    return existing + (this.counts.get(counter) ?? 0) >= max;
  }

  /** After the transaction: its events are counted by the state (committed) or gone (rolled back). */
  clear(): void {
    this.names.clear();
    this.counts.clear();
  }
}
